"""Rows that have a thing a header names: "which branches have a generator?" keeps the rows whose
Generator cell holds a value, where some cells say "n/a"; "without", "have no" and "don't have"
keep the others. A column every row fills says nothing of having, and an order by the thing had
is never its answer. Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.question import mentions, read_question
from knowledge.tables.rules import explained

BRANCHES = [
    ["Branch", "City", "Staff", "Opened", "Generator (kVA)", "Manager"],
    ["North", "Leeds", "14", "2015-03-01", "20", "Ada Moss"],
    ["Quay", "Hull", "9", "2017-06-12", "n/a", "Ben Ruiz"],
    ["Park", "York", "22", "2019-01-20", "45", "Cara Lim"],
    ["Mill", "Bradford", "6", "2021-09-09", "", "Dev Shah"],
    ["Dock", "Leeds", "11", "2023-02-02", "30", "Eve Tan"],
]
MEMBERS = [
    ["Member", "Joined", "Email", "Newsletter"],
    ["R. Patel", "2022-04-01", "rp@example.org", "Yes"],
    ["J. Owusu", "2023-01-15", "-", "No"],
    ["L. Berg", "2023-07-30", "lb@example.org", "Yes"],
]


def chosen(question, table):
    """The program the table store answers with."""
    return explained(question, followed(question, table))


@pytest.fixture(scope="module")
def branches():
    return grid(table_from_rows(BRANCHES[0], BRANCHES[1:]), "branches.xlsx › Branches")


@pytest.fixture(scope="module")
def members():
    return grid(table_from_rows(MEMBERS[0], MEMBERS[1:]), "members.md")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Which branches have a generator?", ["North", "Park", "Dock"]),
        ("Which branches have generators?", ["North", "Park", "Dock"]),
        ("Which branches had a generator?", ["North", "Park", "Dock"]),
        ("How many branches have a generator?", [3.0]),
        ("Which branches lack a generator?", ["Quay", "Mill"]),
        ("Which branches are without a generator?", ["Quay", "Mill"]),
        ("How many branches have no generator?", [2.0]),
        ("Which branches don't have a generator?", ["Quay", "Mill"]),
        # A negation of another clause denies nothing had.
        ("Which branches not in Leeds have a generator?", ["Park"]),
        ("What is the total staff of the branches with a generator?", [47.0]),
        # A question of one row it names reads its cell.
        ("Does the Park branch have a generator?", ["45"]),
        # An order or a comparison said: the parser reads it as before.
        ("Which is the newest branch with a generator?", ["Dock"]),
    ],
)
def test_having_a_thing_keeps_the_rows_that_hold_it(branches, question, values) -> None:
    assert chosen(question, branches).result.values == values


def test_a_thing_a_plural_names_in_ies(members) -> None:
    assert chosen("Which members have an email?", members).result.values == [
        "R. Patel",
        "L. Berg",
    ]


def test_having_is_never_an_order_by_the_thing_had(branches) -> None:
    found = followed("Which branches have a generator?", branches)
    assert not [c for c in found if c.program.op in ("argmax", "argmin") and c.program.key == 4]
    # "The biggest generator" orders, and says no having.
    assert chosen("Which branch has the biggest generator?", branches).result.values == ["Park"]


@pytest.mark.parametrize(
    "question",
    [
        "Which branches have a manager?",  # every row has one
        "Which branch has the biggest generator?",  # "has the", no thing had
        "Which branches opened with Ada Moss as manager?",  # a name, not a header
        "Which branches have a generator of 45 kVA?",  # a value said after the thing
    ],
)
def test_no_having_without_a_column_some_rows_leave_empty(branches, question) -> None:
    said = mentions(read_question(question), branches)
    assert not [c for c in said if c.op in ("has", "lacks")]


def test_a_value_of_the_thing_had_is_its_own_condition(branches) -> None:
    best = followed("Who manages the branch with a 45 kVA generator?", branches)[0]
    assert best.result.values == ["Cara Lim"]


PLAYERS = [
    ["Player", "Position", "Work phone", "Mobile phone", "Goals", "Assists"],
    ["Tom Reid", "Forward", "0113 400", "", "12", "3"],
    ["Joe Bell", "Defence", "", "0771 200", "-", "5"],
    ["Sam Cole", "Midfield", "0113 401", "0772 300", "0", "-"],
    ["Al Finn", "Forward", "", "", "7", "2"],
]


@pytest.fixture(scope="module")
def players():
    return grid(table_from_rows(PLAYERS[0], PLAYERS[1:]), "squad.csv")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # An amount of 0 is none of it, as a dash is.
        ("How many players have goals?", [2.0]),
        ("How many players have no goals?", [2.0]),
        ("Which players have assists but no goals?", ["Joe Bell"]),
    ],
)
def test_none_of_an_amount_is_a_dash_or_a_zero(players, question, values) -> None:
    assert chosen(question, players).result.values == values


def test_a_thing_two_columns_name_says_no_having(players) -> None:
    said = mentions(read_question("Which players have a phone?"), players)
    assert not [c for c in said if c.op in ("has", "lacks")]


def test_a_flag_s_no_is_lacking(members) -> None:
    flats = grid(
        table_from_rows(
            ["Flat", "Rent", "Garden"], [["A", "900", "Yes"], ["B", "850", "No"], ["C", "990", ""]]
        ),
        "flats.md",
    )
    assert chosen("Which flats have a garden?", flats).result.values == ["A"]
    # An empty cell of a column of Yes and No says No, as often as not.
    assert chosen("Which flats don't have a garden?", flats).result.values == ["B", "C"]


def test_a_flag_s_n_a_is_neither_had_nor_lacked() -> None:
    venues = grid(
        table_from_rows(
            ["Venue", "Seats", "Lighting rig"],
            [["Assembly Rooms", "280", "Yes"], ["Town Hall", "120", "No"],
             ["Mayfair Centre", "200", "No"], ["Priory Gardens", "350", "n/a"]],
        ),
        "venues.md › Tour venues",
    )  # fmt: skip
    question = "Which of the tour venues don't have a lighting rig of their own?"
    assert chosen(question, venues).result.values == ["Town Hall", "Mayfair Centre"]
    assert chosen("Which venues have a lighting rig?", venues).result.values == ["Assembly Rooms"]
    # A column of amounts that says "n/a" says none of it (Kestrel's Battery (kWh)).
    sites = grid(
        table_from_rows(
            ["Site", "Battery (kWh)"], [["Park", "13.5"], ["Depot", "n/a"], ["School", "27"]]
        ),
        "sites.csv",
    )
    assert chosen("Which sites don't have a battery?", sites).result.values == ["Depot"]
