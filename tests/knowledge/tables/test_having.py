"""Rows that have a thing a header names: "which branches have a generator?" keeps the rows whose
Generator cell holds a value, where some cells say "n/a"; "without", "have no" and "don't have"
keep the others. A column every row fills says nothing of having, and an order by the thing had
is never its answer. Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.question import mentions, read_question

BRANCHES = [
    ["Branch", "City", "Staff", "Opened", "Generator (kVA)", "Manager"],
    ["North", "Leeds", "14", "2015-03-01", "20", "Ada Moss"],
    ["Quay", "Hull", "9", "2017-06-12", "n/a", "Ben Ruiz"],
    ["Park", "York", "22", "2019-01-20", "45", "Cara Lim"],
    ["Mill", "Bradford", "6", "2021-09-09", "", "Dev Shah"],
]
MEMBERS = [
    ["Member", "Joined", "Email", "Newsletter"],
    ["R. Patel", "2022-04-01", "rp@example.org", "Yes"],
    ["J. Owusu", "2023-01-15", "-", "No"],
    ["L. Berg", "2023-07-30", "lb@example.org", "Yes"],
]


@pytest.fixture(scope="module")
def branches():
    return grid(table_from_rows(BRANCHES[0], BRANCHES[1:]), "branches.xlsx › Branches")


@pytest.fixture(scope="module")
def members():
    return grid(table_from_rows(MEMBERS[0], MEMBERS[1:]), "members.md")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Which branches have a generator?", ["North", "Park"]),
        ("Which branches have generators?", ["North", "Park"]),
        ("How many branches have a generator?", [2.0]),
        ("Which branches are without a generator?", ["Quay", "Mill"]),
        ("How many branches have no generator?", [2.0]),
        ("Which branches don't have a generator?", ["Quay", "Mill"]),
        # An order by another column among the rows that have it.
        ("Which branch with a generator has the most staff?", ["Park"]),
    ],
)
def test_having_a_thing_keeps_the_rows_that_hold_it(branches, question, values) -> None:
    assert followed(question, branches)[0].result.values == values


def test_a_thing_a_plural_names_in_ies(members) -> None:
    assert followed("Which members have an email?", members)[0].result.values == [
        "R. Patel",
        "L. Berg",
    ]


def test_having_is_never_an_order_by_the_thing_had(branches) -> None:
    found = followed("Which branches have a generator?", branches)
    assert not [c for c in found if c.program.op in ("argmax", "argmin") and c.program.key == 4]
    # "The biggest generator" orders, and says no having.
    assert followed("Which branch has the biggest generator?", branches)[0].result.values == [
        "Park"
    ]


@pytest.mark.parametrize(
    "question",
    [
        "Which branches have a manager?",  # every row has one
        "Which branch has the biggest generator?",  # "has the", no thing had
        "Which branches opened with Ada Moss as manager?",  # a name, not a header
    ],
)
def test_no_having_without_a_column_some_rows_leave_empty(branches, question) -> None:
    said = mentions(read_question(question), branches)
    assert not [c for c in said if c.op in ("filled", "blank")]


def test_a_value_of_the_thing_had_is_its_own_condition(branches) -> None:
    best = followed("Who manages the branch with a 45 kVA generator?", branches)[0]
    assert best.result.values == ["Cara Lim"]
