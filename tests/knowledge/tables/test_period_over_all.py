"""The period with the most over every row: "in which month did we have the most visitors across
all branches?" of a sheet of branches by month is the month whose total is the largest, not one
branch's busiest month. Only when the question says it asks over them all and names none of the
rows. Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.rules import explained, holds_what_it_orders_by

VISITS = [
    ["Branch", "Jan", "Feb", "Mar", "Apr"],
    ["Harbour", "900", "300", "200", "250"],  # its busiest month is January
    ["Castle", "100", "500", "450", "300"],
    ["Market", "150", "420", "500", "380"],
]  # totals: Jan 1150, Feb 1220, Mar 1150, Apr 930


@pytest.fixture(scope="module")
def visits():
    return grid(table_from_rows(VISITS[0], VISITS[1:]), "visits.xlsx › Visitors 2025")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("In which month did we have the most visitors across all branches?", ["Feb"]),
        ("Which month had the fewest visitors overall?", ["Apr"]),
        # One branch named: its own busiest month.
        ("Which month was busiest at Harbour?", ["Jan"]),
    ],
)
def test_the_period_with_the_most_over_every_row(visits, question, values) -> None:
    assert followed(question, visits)[0].result.values == values


def test_rows_named_are_no_question_over_all(visits) -> None:
    found = followed("Which month had the most visitors across Castle and Market?", visits)
    assert not [c for c in found if c.program.op == "row_argmax" and not c.program.conditions]


def test_electricity_is_what_a_sheet_of_kwh_measures() -> None:
    generation = grid(
        table_from_rows(["Site", "Jan", "Feb"], [["Roof A", "300", "420"], ["Roof B", "90", "80"]]),
        "generation.pptx › kWh generated per site",
    )
    assert holds_what_it_orders_by("Which site generated the most electricity?", generation)
    assert not holds_what_it_orders_by("Which site used the most water?", generation)


INCOME = [
    ["Month", "Sales", "Export", "Rent"],
    ["January", "100", "40", "10"], ["February", "200", "60", "10"],
    ["March", "300", "80", "10"], ["April", "400", "100", "10"],
    ["May", "500", "120", "10"], ["June", "600", "140", "10"], ["July", "700", "160", "10"],
]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # Rows that are months, from one said to another: their total, or their average.
        ("What were our export payments per month on average from January to June?", [90.0]),
        ("How much did we get in sales from February to April?", [900.0]),
        ("What was the average export per month between March and May?", [100.0]),
        ("What were total sales in the first quarter?", [600.0]),
    ],
)
def test_the_months_from_one_said_to_another(question, values) -> None:
    income = grid(table_from_rows(INCOME[0], INCOME[1:]), "income.pdf")
    assert explained(question, followed(question, income)).result.values == values


def test_a_change_between_two_months_is_no_total_of_them() -> None:
    income = grid(table_from_rows(INCOME[0], INCOME[1:]), "income.pdf")
    for question in (
        "How much did sales go up between March and May?",
        "What was the difference in export between January and June?",
    ):
        best = explained(question, followed(question, income))
        assert best is None or best.program.op not in ("sum", "avg"), question
