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
