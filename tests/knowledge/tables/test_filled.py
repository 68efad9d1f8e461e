"""What is full reaches the column it is filled up to: "fully booked" is Booked at Places, "paid
in full" Paid at the Amount. Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed

WORKSHOPS = [
    ["Workshop", "Ages", "Places", "Booked", "Fee per term"],
    ["Junior Drama", "7-10", "20", "18", "£60"],
    ["Youth Theatre", "11-14", "24", "24", "£75"],
    ["Stage Combat", "14+", "12", "9", "£90"],
]
INVOICES = [
    ["Invoice", "Client", "Amount", "Paid"],
    ["I1", "Acme", "£500", "£500"],
    ["I2", "Bolt", "£900", "£400"],
    ["I3", "Crane", "£250", "£250"],
]


@pytest.mark.parametrize(
    ("rows", "question", "values"),
    [
        # Ages is a number too ("7-10"), but no place to fill.
        (WORKSHOPS, "Which workshops are fully booked?", ["Youth Theatre"]),
        (WORKSHOPS, "How many workshops are fully booked?", [1.0]),
        (WORKSHOPS, "Which workshops are not fully booked?", ["Junior Drama", "Stage Combat"]),
        (INVOICES, "Which invoices were paid in full?", ["I1", "I3"]),
        (INVOICES, "How many invoices have been paid in full?", [2.0]),
    ],
)
def test_what_is_full_reaches_what_it_is_filled_up_to(rows, question, values) -> None:
    table = grid(table_from_rows(rows[0], rows[1:]), "sheet.xlsx")
    assert followed(question, table)[0].result.values == values


def test_full_said_of_no_column_is_no_comparison() -> None:
    staff = grid(
        table_from_rows(
            ["Name", "Hours", "Contract"],
            [["Ann", "37", "Full time"], ["Bo", "20", "Part time"], ["Cy", "37", "Full time"]],
        ),
        "staff.csv",
    )
    best = followed("Which staff work full time?", staff)[0]
    assert best.result.values == ["Ann", "Cy"]


def test_one_row_named_or_the_thing_paid_for_is_no_column_filled() -> None:
    # A review found these read the wrong rows or the wrong column.
    rent = grid(
        table_from_rows(
            ["Tenant", "Rent", "Paid"], [["Ann", "£900", "£900"], ["Bo", "£800", "£400"]]
        ),
        "rent.csv",
    )
    best = followed("Has Bo paid in full?", rent)[0]
    assert all(c.op != "reaches" for c in best.program.conditions)
    best = followed("Which tenants have not paid their rent in full?", rent)[0]
    assert best.result.values == ["Bo"]


def test_the_one_row_a_comparison_keeps_is_no_lookup_left_to_its_passage() -> None:
    from knowledge.tables.choice import TableChoice
    from knowledge.tables.rules import left_to_its_row

    rows = [
        [*WORKSHOPS[0], "Day"],
        *[[*row, day] for row, day in zip(WORKSHOPS[1:], "Sat Sat Sun".split())],
    ]
    workshops = grid(table_from_rows(rows[0], rows[1:]), "workshops.html")

    def left(question: str) -> bool:
        best = followed(question, workshops)[0]
        return left_to_its_row(question, TableChoice(0, 0, "w.html", workshops, best, 1.0), "")

    # One row kept by a comparison names no row: read from the table.
    assert not left("Which workshops are fully booked?")
    # A word of a cell the program does not read ("Sun"): left to the passage.
    assert left("Which workshops on Sun cost more than £80?")
