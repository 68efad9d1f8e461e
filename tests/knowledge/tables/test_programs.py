"""Tables normalised from their rows, and every program operation run over one."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.programs import Condition, Program, display, run
from knowledge.tables.wording import in_words

HEADERS = ["Office", "Staff", "Opened", "Lead"]
ROWS = [
    ["Lisbon", "120", "2015", "Ana Reis"],
    ["Office", "Staff", "Opened", "Lead"],  # a header repeated inside the table
    ["Porto", "85[1]", "2019", "Rui Sousa"],
    ["Braga", "40", "2021", "Ana Reis"],
    ["Faro", "n/a", "2022", "Marta Lobo"],
    ["Total", "245", "", ""],
]


@pytest.fixture
def offices():
    table = table_from_rows(HEADERS, ROWS)
    return table, grid(table, "offices.xlsx › Offices")


def test_a_repeated_header_and_a_totals_row_are_dropped_and_recorded(offices) -> None:
    table, _ = offices
    assert [row.cells[0] for row in table.rows] == ["Lisbon", "Porto", "Braga", "Faro"]
    reasons = [entry["reason"] for entry in table.dropped]
    assert reasons == ["repeated header", "totals row", "footnote marks"]
    assert [column["type"] for column in table.columns] == ["text", "number", "number", "text"]
    # Row numbers are the table's own, so a citation points at the row as written.
    assert [row.number for row in table.rows] == [1, 3, 4, 5]
    assert table.rows[1].values[1] == 85.0 and table.rows[3].values[1] is None


def test_a_last_row_that_adds_up_the_rows_above_is_a_totals_row_whatever_it_is_called() -> None:
    """A career row under a golfer's seasons names no "Total", but its wins and earnings are the
    sums of the seasons above (its rank is not): it is dropped, or "the year with the highest
    earnings" would be "Career". A short column adding up by chance (3, 5, 8) is kept, and so
    is a last row of small numbers near the sum (0.045 under 0.005 … 0.040)."""
    seasons = [["2019", "1", "300,000", "40"], ["2020", "0", "120,500", "88"],
               ["2021", "2", "910,000", "12"], ["2022", "1", "455,250", "31"],
               ["2023", "0", "98,000", "120"]]  # fmt: skip
    career = ["Career*", "4", "1,883,750", "25"]
    table = table_from_rows(["Year", "Wins", "Earnings ($)", "Rank"], [*seasons, career])
    assert [row.cells[0] for row in table.rows] == [row[0] for row in seasons]
    assert table.dropped == [{"row": 6, "reason": "totals row", "cells": career}]
    by_chance = table_from_rows(["Step", "Size"], [["a", "3"], ["b", "5"], ["c", "8"]])
    assert len(by_chance.rows) == 3 and not by_chance.dropped
    chokes = [["Cylinder", "0.000"], ["Skeet", "0.005"], ["Improved", "0.010"],
              ["Modified", "0.020"], ["Full", "0.030"], ["Extra full", "0.040"],
              ["Turkey", "0.045"]]  # fmt: skip
    assert len(table_from_rows(["Choke", "Constriction"], chokes).rows) == 7
    labelled = table_from_rows(["Team", "Points"], [["Ajax", "40"], ["Total:", "40"]])
    assert [row.cells[0] for row in labelled.rows] == ["Ajax"]


def _staff_over(n: float) -> Condition:
    return Condition(1, "gt", n)


@pytest.mark.parametrize(
    ("program", "values"),
    [
        (Program("count"), [4.0]),
        (Program("count", conditions=(Condition(3, "eq", "ana reis"),)), [2.0]),
        (Program("count", conditions=(_staff_over(200),)), [0.0]),
        (Program("values", target=0, conditions=(_staff_over(50),)), ["Lisbon", "Porto"]),
        (Program("values", target=0, conditions=(Condition(2, "ge", 2021),)), ["Braga", "Faro"]),
        (Program("sum", key=1), [245.0]),
        (Program("avg", key=1), [245.0 / 3]),
        (Program("max", key=2), ["2022"]),
        (Program("argmax", target=3, key=1), ["Ana Reis"]),
        (Program("argmin", target=0, key=1), ["Braga"]),
        (Program("first", target=0), ["Lisbon"]),
        (Program("last", target=0, conditions=(Condition(3, "eq", "ana reis"),)), ["Braga"]),
        (Program("next", target=0, anchors=(Condition(0, "eq", "porto"),)), ["Braga"]),
        (Program("previous", target=0, anchors=(Condition(0, "eq", "porto"),)), ["Lisbon"]),
        (
            Program(
                "diff", key=1, anchors=(Condition(0, "eq", "lisbon"), Condition(0, "eq", "braga"))
            ),
            [80.0],
        ),
        (
            Program(
                "less", key=1, anchors=(Condition(0, "eq", "lisbon"), Condition(0, "eq", "porto"))
            ),
            ["Porto"],
        ),
        (
            Program(
                "plus", key=1, anchors=(Condition(0, "eq", "lisbon"), Condition(0, "eq", "braga"))
            ),
            [160.0],
        ),
        (Program("mode", target=3), ["Ana Reis"]),
        (Program("top", target=0, key=1, k=2), ["Lisbon", "Porto"]),
        (Program("top", target=0, key=2, k=1, ascending=True), ["Lisbon"]),
    ],
)
def test_each_operation_computes_from_the_rows(offices, program, values) -> None:
    _, offices_grid = offices
    result = run(program, offices_grid)
    assert result is not None
    assert result.values == pytest.approx(values)
    # The rows read are real rows of the table, so each can be cited.
    assert all(0 <= row < offices_grid.size for row in result.rows)


@pytest.mark.parametrize(
    "program",
    [
        Program("values", target=0, conditions=(Condition(0, "eq", "madrid"),)),
        Program("next", target=0, anchors=(Condition(0, "eq", "faro"),)),
        Program("diff", key=1, anchors=(Condition(0, "eq", "lisbon"), Condition(0, "eq", "faro"))),
        Program("plus", key=1, anchors=(Condition(0, "eq", "lisbon"), Condition(0, "eq", "faro"))),
        Program("mode", target=0),  # no office repeats
    ],
)
def test_a_program_with_nothing_to_compute_returns_none(offices, program) -> None:
    assert run(program, offices[1]) is None


def test_a_program_in_words_names_the_table_the_condition_and_the_rows(offices) -> None:
    _, offices_grid = offices
    program = Program("count", conditions=(Condition(2, "gt", 2018),))
    result = run(program, offices_grid)
    assert in_words(program, offices_grid, result) == (
        "Counted 3 rows of offices.xlsx › Offices where Opened > 2018"
    )
    assert display(result.values[0]) == "3" and display(245.0 / 3) == "81.67"


def test_a_cell_that_lists_several_items_holds_each_but_an_anchor_prefers_a_whole_cell() -> None:
    table = table_from_rows(
        ["Peak", "Country", "Height"],
        [
            ["Mont Blanc", "France/ Italy", "4808"],
            ["Monte Rosa", "Italy, Switzerland", "4634"],
            ["Gran Paradiso", "Italy", "4061"],
            ["Ecrins", "France", "4102"],
        ],
    )
    peaks = grid(table, "peaks.csv")
    in_italy = (Condition(1, "eq", "italy"),)

    assert run(Program("count", conditions=in_italy), peaks).values == [3.0]
    assert run(Program("count", conditions=(Condition(1, "ne", "italy"),)), peaks).values == [1.0]
    # "the peak after Italy" reads from the row whose cell is Italy, not the first list of it.
    assert run(Program("next", target=0, anchors=in_italy), peaks).values == ["Ecrins"]


def test_a_year_compares_with_the_year_of_a_date_column() -> None:
    table = table_from_rows(
        ["Site", "Listed"],
        [["Mill", "March 16, 1989"], ["Bridge", "April 14, 1961"], ["Fort", "May 1, 1957"]],
    )
    sites = grid(table, "sites.csv")

    before = run(Program("values", target=0, conditions=(Condition(1, "lt", 1965),)), sites)
    in_or_after = run(Program("count", conditions=(Condition(1, "ge", 1961),)), sites)

    assert before.values == ["Bridge", "Fort"] and in_or_after.values == [2.0]


# A medal table writes no medal as a dash: most of its Silver cells hold no value.
MEDALS = [
    ["Norway", "3", "-", "2", "5"],
    ["Chile", "-", "1", "-", "1"],
    ["Ghana", "-", "-", "1", "1"],
    ["Peru", "1", "-", "-", "1"],
    ["Kenya", "2", "4", "1", "7"],
]


def test_a_column_of_numbers_and_dashes_is_numeric_and_its_dashes_hold_no_number() -> None:
    """A dash or "n/a" says nothing of a column's type (ingestion's column_type skips them too):
    a Silver column with two numbers among five cells is still a column of numbers to sum, order
    and compare on."""
    table = table_from_rows(["Nation", "Gold", "Silver", "Bronze", "Total"], MEDALS)
    medals = grid(table, "medals.csv")
    silver = medals.columns[2]
    assert silver.numeric and silver.numbers == [None, 1.0, None, None, 4.0]
    assert run(Program("sum", key=2), medals).values == [5.0]
    assert run(Program("argmax", target=0, key=2), medals).values == ["Kenya"]
    # A column of words with a dash or two stays text.
    words = grid(table_from_rows(["Nation", "Coach"], [["Chile", "Ana"], ["Peru", "-"]]), "c")
    assert not words.columns[1].numeric


def test_the_next_row_is_another_with_a_value() -> None:
    """ "The next division after X" is not X said again on the following row, nor a "-"."""
    seasons = grid(
        table_from_rows(
            ["Season", "Division", "Coach"],
            [
                ["2001", "Primera", "Rui"],
                ["2002", "Primera", "-"],
                ["2003", "Segunda", "Ana"],
                ["2004", "-", "Ana"],
                ["2005", "Tercera", "Ana"],
            ],
        ),  # fmt: skip
        "seasons.csv",
    )
    first = (Condition(1, "eq", "primera"),)
    assert run(Program("next", target=1, anchors=first), seasons).values == ["Segunda"]
    segunda = (Condition(1, "eq", "segunda"),)
    assert run(Program("next", target=1, anchors=segunda), seasons).values == ["Tercera"]
    assert run(Program("previous", target=1, anchors=segunda), seasons).values == ["Primera"]
    # Another column's next value may repeat the anchor row's: Ana coached 2003 and 2004.
    ana = (Condition(0, "eq", "2003"),)
    assert run(Program("next", target=2, anchors=ana), seasons).values == ["Ana"]
    assert run(Program("previous", target=2, anchors=ana), seasons).values == ["Rui"]
