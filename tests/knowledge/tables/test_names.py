"""A "which" question whose noun names a column of identifiers ("which members …" of Member
no.) asks for the names beside them, unless it says the identifier itself ("which member
number …"). Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.rules import explained

MEMBERS = [
    ["Member no.", "Name", "Village", "Newsletter by post"],
    ["M-001", "Ruth", "Ashby", "No"],
    ["M-014", "Alan", "Ashby", "Yes"],
    ["M-027", "Priya", "Kestrel", "Yes"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Which members get the newsletter posted to them?", ["Alan", "Priya"]),
        ("Which members live in Ashby?", ["Ruth", "Alan"]),
        ("Which member number belongs to Alan?", ["M-014"]),
    ],
)
def test_which_members_are_their_names(question, values) -> None:
    members = grid(table_from_rows(MEMBERS[0], MEMBERS[1:]), "members.md › Members")
    assert explained(question, followed(question, members)).result.values == values


@pytest.mark.parametrize(
    ("rows", "question", "values"),
    [
        # A name beside them that names other things (suppliers, customers).
        ([["Product no.", "Supplier name", "Price"], ["P-100", "Acme", "5"],
          ["P-200", "Borg", "9"], ["P-300", "Acme", "12"]],
         "Which products cost more than 8?", ["P-200", "P-300"]),
        ([["Order ID", "Customer name", "Total"], ["A1", "Ruth", "40"], ["A2", "Alan", "15"],
          ["A3", "Ruth", "22"]],
         "Which orders did Ruth place?", ["A1", "A3"]),
        # An identifier word said in the plural.
        ([["Number", "Name", "Builder"], ["4001", "Ivanhoe", "Swindon"],
          ["4002", "Hector", "Derby"], ["4003", "Lorna", "Swindon"]],
         "Which numbers were built at Swindon?", ["4001", "4003"]),
    ],
)  # fmt: skip
def test_identifiers_asked_for_or_beside_other_names_stay(rows, question, values) -> None:
    table = grid(table_from_rows(rows[0], rows[1:]), "sheet.xlsx › Sheet")
    assert explained(question, followed(question, table)).result.values == values
