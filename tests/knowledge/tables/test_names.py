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
