"""Reading table cells: numbers with their currency or unit, dates with unknown parts, lengths of
time, footnote marks and cells that hold no value; a column's type."""

from __future__ import annotations

import pytest

from knowledge.tables.cells import DATE, DURATION, NUMBER, TEXT, column_type, read_cell


@pytest.mark.parametrize(
    ("raw", "value", "unit"),
    [
        ("1,234", 1234.0, ""),
        ("$1,200", 1200.0, "USD"),
        ("€ 3.5 million", 3_500_000.0, "EUR"),
        ("12[3]", 12.0, ""),
        ("40*", 40.0, ""),
        ("-7", -7.0, ""),
        ("45 %", 45.0, "%"),
        ("120 km", 120.0, "km"),
        ("2 012", 2012.0, ""),
    ],
)
def test_numbers_keep_their_unit_and_lose_their_marks(raw, value, unit) -> None:
    cell = read_cell(raw)
    assert (cell.type, cell.value, cell.unit) == (NUMBER, value, unit)


def test_a_footnote_mark_is_recorded_not_read() -> None:
    assert read_cell("12[3]").marked and not read_cell("12").marked


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("3 March 2021", "2021-03-03"),
        ("June 2024", "2024-06-xx"),
        ("July 4", "xx-07-04"),
        ("2019-1-5", "2019-01-05"),
    ],
)
def test_dates_keep_unknown_parts_unknown(raw, value) -> None:
    assert (read_cell(raw).type, read_cell(raw).value) == (DATE, value)


@pytest.mark.parametrize(
    ("raw", "seconds"), [("90 days", 90 * 86400), ("2:05", 125), ("1:02:03", 3723), ("3 h", 10800)]
)
def test_lengths_of_time_are_seconds(raw, seconds) -> None:
    assert (read_cell(raw).type, read_cell(raw).value) == (DURATION, seconds)


@pytest.mark.parametrize("raw", ["", "-", "—", "n/a", "N/A", "TBD", "?"])
def test_missing_cells_hold_no_value(raw) -> None:
    assert read_cell(raw).value is None


def test_a_bare_year_is_a_number_and_words_are_text() -> None:
    assert read_cell("1998").type == NUMBER
    assert (read_cell("Lisbon").type, read_cell("Lisbon").value) == (TEXT, "Lisbon")


def test_a_column_takes_the_type_most_of_its_values_have() -> None:
    numbers = [read_cell(text) for text in ["12", "40", "n/a", "7", "15"]]
    assert column_type(numbers) == NUMBER
    mixed = [read_cell(text) for text in ["12", "Lisbon", "Porto", "7"]]
    assert column_type(mixed) == TEXT
