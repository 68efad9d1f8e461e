""" "Which of the …" and "which of our …": what is asked is the noun after them, and a plural
asks for every row kept. Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.asked import asked_column
from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.rules import holds_what_it_orders_by

HALLS = [
    ["Hall", "Town", "Our share of the takings", "Seats", "Step-free"],
    ["Corn Exchange", "Ludlow", "70%", "280", "Yes"],
    ["Guildhall", "Ludlow", "65%", "150", "No"],
    ["Market Hall", "Tenbury", "80%", "120", "Yes"],
]


@pytest.fixture(scope="module")
def halls():
    return grid(table_from_rows(HALLS[0], HALLS[1:]), "halls.md › Touring halls")


@pytest.mark.parametrize(
    "question",
    [
        "Which of the touring halls are in Ludlow?",
        "Which of our halls are in Ludlow?",
        "What of the halls in Ludlow?",
    ],
)
def test_of_and_our_are_no_noun_asked_for(halls, question) -> None:
    # "of" and "our" are no header word of "Our share of the takings".
    assert asked_column(question, halls) in (0, None)


def test_which_of_the_plural_names_every_kept_row(halls) -> None:
    # (A program that reads no Ludlow is set aside by the store: rules.uses_its_names.)
    found = followed("Which of the touring halls are in Ludlow?", halls)
    kept = [c for c in found if c.program.conditions]
    assert kept[0].result.values == ["Corn Exchange", "Guildhall"]
    # An order asked for takes one row.
    found = followed("Which of the touring halls in Ludlow has the most seats?", halls)
    assert [c for c in found if c.program.conditions][0].result.values == ["Corn Exchange"]


def test_which_of_the_plural_with_a_superlative_asks_for_one_row() -> None:
    hotels = grid(
        table_from_rows(
            ["Hotel", "City", "Price", "Rooms"],
            [["Grand", "York", "120", "80"], ["Minster Inn", "York", "95", "30"],
             ["Ouse View", "York", "140", "55"], ["Docks Lodge", "Hull", "70", "25"]],
        ),
        "hotels.md › Crew hotels",
    )  # fmt: skip
    found = followed("Which of the hotels in York is the cheapest?", hotels)
    assert [c for c in found if c.program.conditions][0].result.values == ["Minster Inn"]


def test_the_noun_the_rows_are_is_asked_for_and_time_is_hours() -> None:
    # "Refurbished" is a header word (Refurbished by) and an adjective of the rows: the noun
    # asked for is the one the table's label names, last; the least time is the least Hours.
    refurbs = grid(
        table_from_rows(
            ["Stock no.", "Bike", "Refurbished by", "Hours", "Price"],
            [["R-301", "Dawes Galaxy", "Ellen Doyle", "9", "£240"],
             ["R-302", "Islabikes Beinn", "Joe Whitlock", "3", "£150"],
             ["R-303", "Raleigh Pioneer", "Rhys Calloway", "6", "£95"]],
        ),
        "refurbished-bikes.html › Refurbished bikes",
    )  # fmt: skip
    question = "Which of the refurbished bikes took the least time to do up?"
    assert asked_column(question, refurbs) == 1
    assert followed(question, refurbs)[0].result.values == ["Islabikes Beinn"]
    # The table holds what it orders by (Hours), so the program answers by its words.
    assert holds_what_it_orders_by(question, refurbs)
