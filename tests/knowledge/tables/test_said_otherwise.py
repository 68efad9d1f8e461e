"""A column said otherwise than its header: a unit said in words where the header gives its
symbol ("per kilo" of "Price per kg"), what one pays or charges for a thing (its Price or Fee),
what it is worth (its Value), how strong a drink is (its ABV). And what these words do not
name: a one-letter column (H for hits), a battery's charge, a loan's interest rate. Each is
asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.question import header_overlap, read_question
from knowledge.tables.rules import explained


def _table(rows, label):
    return grid(table_from_rows(rows[0], rows[1:]), label)


@pytest.mark.parametrize(
    ("header", "question"),
    [
        ("Price per kg", "What are we paying per kilo for basmati rice?"),
        ("Volume (ltr)", "How many litres is the big tank?"),
        ("Length (km)", "How many kilometres is the Coast route?"),
        ("Duration (hrs)", "How many hours does the first-aid course take?"),
        ("Fee", "What do we charge for a site visit?"),
        ("Value", "What is the Lisbon contract worth?"),
        ("ABV", "How strong is the house cider?"),
        ("Win pct", "Which coach has the best winning percentage?"),
    ],
)
def test_a_column_said_otherwise_is_named_by_the_question(header, question) -> None:
    assert header_overlap(header, read_question(question)) >= 0.5


@pytest.mark.parametrize(
    ("header", "question"),
    [
        # The words name nothing of these headers: no unit, no price.
        ("Price per kg", "Who supplies basmati rice?"),
        ("Value", "Who signed the Lisbon contract?"),
        # A one-letter or short column is no unit: H is hits, HR home runs, L losses, Min a
        # minimum.
        ("H", "How many hours did Ruiz train?"),
        ("HR", "How many hours did Ruiz train?"),
        ("L", "How many litres did the team drink?"),
        ("Min", "How many minutes did it rain?"),
        # A battery's charge is no price.
        ("Price", "How long does the Zoe take to charge?"),
    ],
)
def test_a_header_the_question_does_not_say_stays_unsaid(header, question) -> None:
    assert header_overlap(header, read_question(question)) < 0.5


INGREDIENTS = [
    ["Ingredient", "Supplier", "Price per kg", "In stock (kg)"],
    ["Basmati rice", "Eastern Foods", "£2.10", "40"],
    ["Arborio rice", "Casa Verde", "£3.40", "25"],
    ["Red lentils", "Eastern Foods", "£1.80", "60"],
]
CARS = [
    ["Model", "Range (km)", "Charging time (h)", "Price (€)"],
    ["Zoe", "390", "9", "31,000"],
    ["Leaf", "270", "7.5", "29,000"],
    ["Kona", "480", "6", "38,000"],
]
LOANS = [
    ["Loan", "Lender", "Interest rate", "Monthly payment"],
    ["Car loan", "Northbank", "6.9%", "410"],
    ["Van loan", "Eastbank", "5.4%", "520"],
]
BEERS = [
    ["Beer", "Style", "ABV"],
    ["Stout", "Stout", "4.1"],
    ["Copper", "Bitter", "3.8"],
    ["Hop Tower", "IPA", "6.2"],
]


@pytest.mark.parametrize(
    ("rows", "question", "column", "values"),
    [
        (INGREDIENTS, "What are we paying per kilo for arborio rice?", 2, ["£3.40"]),
        (CARS, "How long does the Zoe take to charge?", 2, ["9"]),
        (LOANS, "How much do we pay each month for the car loan?", 3, ["410"]),
        (BEERS, "Which is the strongest beer?", 0, ["Hop Tower"]),
    ],
)
def test_the_column_a_question_says_otherwise_is_the_one_read(rows, question, column, values):
    best = followed(question, _table(rows, "sheet.xlsx › Sheet1"))[0]
    assert best.program.target == column and best.result.values == values


@pytest.mark.parametrize(
    ("header", "question"),
    [
        ("Site", "Which of our sites have batteries?"),  # "sites" stems to "sit"
        ("Battery", "Which of our sites have batteries?"),
        ("City", "How many cities have a depot?"),
        ("Box", "How many boxes were shipped?"),
    ],
)
def test_a_header_said_in_the_plural_is_said(header, question) -> None:
    assert header_overlap(header, read_question(question)) == 1.0


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # What runs out or expires ends.
        ("When does the Amo Ltd lease run out?", ["1 May 2028"]),
        ("When does the lease of U2 expire?", ["14 January 2029"]),
        ("When was the Amo Ltd lease signed?", ["2 May 2018"]),
    ],
)
def test_a_lease_that_runs_out_ends(question, values) -> None:
    leases = grid(
        table_from_rows(
            ["Unit", "Tenant", "Lease signed", "Lease ends", "Rent"],
            [["U1", "Amo Ltd", "2 May 2018", "1 May 2028", "£150"],
             ["U2", "Bex", "15 January 2019", "14 January 2029", "£200"]],
        ),
        "leases.docx › Leases",
    )  # fmt: skip
    assert explained(question, followed(question, leases)).result.values == values


def test_a_supply_that_runs_out_of_something_names_no_end() -> None:
    said = read_question("How long before battery B runs out of charge?").stems
    assert "end" not in said
    assert "end" in read_question("When does the lease run out?").stems
