"""A row named in part: "St Luke's" is the row "St Luke's Hospital" when a word of it keeps that
row alone. The program reads the name when the kept row's cell holds it whole; "Kings Cross" is
no "Kings Road Depot". Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.choice import TableChoice
from knowledge.tables.follows import followed
from knowledge.tables.rules import explained, uses_its_names

SITES = [
    ["Hospital", "Beds", "Opened", "Jan", "Mar"],
    ["St Luke's Hospital", "240", "1962", "1200", "1500"],
    ["St Mary's Clinic", "80", "1998", "400", "380"],
    ["Kings Road Depot", "0", "2004", "30", "35"],
]


@pytest.fixture(scope="module")
def sites():
    return grid(table_from_rows(SITES[0], SITES[1:]), "sites.xlsx › Patients")


def _chosen(question, table) -> TableChoice:
    best = explained(question, followed(question, table))
    return TableChoice(0, 0, "sites.xlsx", table, best, 1.0)


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("How many beds does St Luke's have?", ["240"]),
        ("When did St Mary's open?", ["1998"]),
        # A change along the row a name says in part.
        ("How many more patients did St Luke's see in March than in January?", [300.0]),
        ("How many fewer patients did St Mary's see in March than in January?", [20.0]),
    ],
)
def test_a_name_said_in_part_reads_its_row(sites, question, values) -> None:
    choice = _chosen(question, sites)
    assert choice.best.result.values == values
    assert uses_its_names(question, choice)


def test_a_name_the_kept_row_does_not_hold_is_not_read(sites) -> None:
    # "kings" keeps the depot, whose cell does not say "Kings Cross".
    question = "How many beds does Kings Cross have?"
    assert not uses_its_names(question, _chosen(question, sites))
