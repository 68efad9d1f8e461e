"""A wide sheet of periods asked "how many … in <period>" of one named row: that row's cell in
that period (knowledge/tables/change.py `period_cell`), not a count of the one row the name
keeps (knowledge/tables/kept.py `counts_no_named_cell`). Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.periods import period_cell

# The row names' header is the counted noun: "how many calls" of a Calls column of lines.
CALLS = [
    ["Calls", "Jan 2026", "Feb 2026", "Mar 2026", "Apr 2026", "Total"],
    ["Sales line", "410", "388", "452", "401", "1651"],
    ["Support line", "1,220", "1,104", "1,310", "1,187", "4821"],
    ["Out of hours", "64", "71", "58", "69", "262"],
]
CROPS = [
    ["Crop", "2021", "2022", "2023", "2024"],
    ["Spring barley", "212", "198", "240", "231"],
    ["Oilseed rape", "88", "94", "71", "102"],
    ["Field beans", "40", "52", "47", "61"],
]


@pytest.fixture(scope="module")
def calls():
    return grid(table_from_rows(CALLS[0], CALLS[1:]), "calls.pptx › Calls per line by month")


@pytest.fixture(scope="module")
def crops():
    return grid(table_from_rows(CROPS[0], CROPS[1:]), "harvest.xlsx › Tonnes harvested")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("How many calls did the support line take in March 2026?", ["1,310"]),
        ("How many calls came in out of hours in February?", ["71"]),
        # Not one period: the whole row, or an order.
        ("How many calls did the sales line take in total?", [1651.0]),
        ("Which month was busiest on the support line?", ["Mar 2026"]),
    ],
)
def test_one_named_row_in_one_named_month_is_its_cell(calls, question, values) -> None:
    found = followed(question, calls)
    assert found[0].result.values == values, found[0].program


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("How many tonnes of field beans did we get in 2023?", ["47"]),
        ("How much oilseed rape came off in 2022?", ["94"]),
    ],
)
def test_one_named_row_in_one_named_year_is_its_cell(crops, question, values) -> None:
    found = followed(question, crops)
    assert found[0].result.values == values, found[0].program


def test_a_count_of_one_named_row_stands_where_no_period_is_named(calls) -> None:
    # A count of the one Sales line row is what is left when nothing else is asked of it: the
    # rule sets it aside only where the question names a period column.
    found = followed("How many calls lines are there?", calls)
    assert found[0].program.op == "count" and found[0].result.values == [3.0]


@pytest.mark.parametrize(
    "question",
    [
        "How many calls did the support line take since February 2026?",
        "How many calls did the support line take in the year to March 2026?",
    ],
)
def test_a_span_from_or_to_a_month_is_no_one_cell(calls, question) -> None:
    # (The parser may still read one month; the rule does not make it.)
    assert period_cell(question, calls) is None
    assert period_cell("How many calls did the support line take in March 2026?", calls)


FLEET = [
    ["Vehicle", "Age (years)", "Mileage", "2023", "2024", "2025"],
    ["Transit", "6", "104000", "1200", "900", "1500"],
    ["Berlingo", "3", "41000", "400", "650", "300"],
]


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("In how many months did the support line take more than 1,200 calls?", 2.0),
        ("In how many months did the sales line take fewer than 400 calls?", 1.0),
    ],
)
def test_how_many_months_meet_a_comparison(calls, question, value) -> None:
    from knowledge.tables.periods import periods_meeting

    made = periods_meeting(question, calls)
    assert made is not None and made.result.values == [value]


@pytest.mark.parametrize(
    "question",
    [
        "In how many months did the support line not take more than 1,200 calls?",
        "How many months did the support line top 1,200 calls?",
        "In how many months of 2026 did the support line take more than 1,200 calls?",
        "How many months in a row did the support line take more than 1,200 calls?",
        "In how many months since February did the support line take more than 1,200 calls?",
    ],
)
def test_no_count_of_months_for_a_negation_a_rank_a_span_or_a_run(calls, question) -> None:
    from knowledge.tables.periods import periods_meeting

    assert periods_meeting(question, calls) is None


def test_how_many_years_old_is_no_count_of_years() -> None:
    from knowledge.tables.periods import periods_meeting

    fleet = grid(table_from_rows(FLEET[0], FLEET[1:]), "fleet.xlsx › Service costs by year")
    question = "How many years old is the Transit, with more than 100,000 miles on it?"
    assert periods_meeting(question, fleet) is None
