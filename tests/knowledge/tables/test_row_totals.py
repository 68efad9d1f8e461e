"""A wide sheet of months: each row's total over them, read when the question names no month
(knowledge/tables/totals.py). Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.wording import in_words

VISITS = [
    ["Branch", "Sep 2025", "Oct 2025", "Nov 2025", "Dec 2025"],
    ["Ashby", "120", "0", "310", "95"],
    ["Brook", "400", "250", "0", "60"],
    ["Corley", "0", "180", "200", "300"],
]


@pytest.fixture(scope="module")
def visits():
    return grid(
        table_from_rows(VISITS[0], VISITS[1:]), "visits.pptx › Visitors per branch by month"
    )


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # No month named: each row's months added up (Ashby 525, Brook 710, Corley 680).
        ("Which branch had the most visitors over the autumn?", ["Brook"]),
        ("Which branch had the fewest visitors this season?", ["Ashby"]),
        ("Did Ashby or Corley get more visitors?", ["Corley"]),
        ("How many visitors did Ashby have over the four months?", ["525"]),
        # A month named reads that month, as before.
        ("Which branch had the most visitors in November?", ["Ashby"]),
        ("How many visitors did we have across all the branches in October 2025?", [430.0]),
    ],
)
def test_a_question_that_names_no_month_reads_each_row_s_total(visits, question, values) -> None:
    found = followed(question, visits)
    assert found[0].result.values == values, found[0].program


def test_the_total_is_read_in_words_and_a_named_month_is_no_total(visits) -> None:
    best = followed("Which branch had the most visitors over the autumn?", visits)[0]
    assert "the most Total" in in_words(best.program, visits, best.result)
    # "The total visitors in December" are December's.
    assert followed("What were the total visitors in December?", visits)[0].result.values == [455.0]


def test_a_sheet_with_its_own_total_or_few_months_gets_none() -> None:
    own = grid(
        table_from_rows(["Branch", "Jan", "Feb", "Mar", "Total"], [["Ashby", "1", "2", "3", "6"]]),
        "q1.csv",
    )
    few = grid(table_from_rows(["Branch", "Jan", "Feb"], [["Ashby", "1", "2"]]), "jf.csv")
    years = grid(
        table_from_rows(["Town", "2019", "2020", "2021"], [["Leeds", "10", "12", "14"]]), "pop.csv"
    )
    for table, width in ((own, 5), (few, 3), (years, 4)):
        assert len(table.columns) == width


BRANCHES = [
    ["Branch", "Manager", "City", "Opened", "Staff", "Jan", "Feb", "Mar", "Apr"],
    ["Ashby", "Ola Berg", "Leeds", "2015", "6", "120", "80", "310", "95"],
    ["Brook", "Ian Cole", "York", "2012", "4", "400", "250", "10", "60"],
    ["Corley", "Sam Dee", "Leeds", "2021", "9", "5", "180", "200", "300"],
    ["Dunmore", "Eve Fox", "Hull", "2009", "3", "50", "60", "70", "80"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # Questions of the other columns are read as before (a review found them read the Total).
        ("Which branches are in Leeds?", ["Ashby", "Corley"]),
        ("How many staff does Corley have?", ["9"]),
        ("Which branch has the most staff?", ["Corley"]),
        ("Which branch is the oldest?", ["Dunmore"]),
    ],
)
def test_a_question_of_other_columns_reads_no_total(question, values) -> None:
    branches = grid(table_from_rows(BRANCHES[0], BRANCHES[1:]), "branches.xlsx › Branches")
    assert followed(question, branches)[0].result.values == values


@pytest.mark.parametrize(
    "question",
    [
        "Which branch had the most visits in July?",  # a month with no column
        "Which branch had the most visits last month?",
        "What was the highest number of visits in a month?",
        "Which branch was busiest in Q1?",
    ],
)
def test_a_question_that_says_a_month_reads_no_total(question) -> None:
    branches = grid(table_from_rows(BRANCHES[0], BRANCHES[1:]), "branches.xlsx › Branches")
    assert all(c.program.key != 9 and c.program.target != 9 for c in followed(question, branches))


@pytest.mark.parametrize(
    ("label", "header"),
    [("prices.csv › Egg prices by month", "Item"), ("temps.csv › Temperature (°C)", "City")],
)
def test_amounts_that_do_not_add_up_get_no_total(label, header) -> None:
    rows = [[header, "Jan", "Feb", "Mar"], ["Eggs", "2.10", "2.40", "2.30"]]
    assert len(grid(table_from_rows(rows[0], rows[1:]), label).columns) == 4
