"""A yes/no column said by its words in another form or order ("which staff get their payslip
posted?" of Payslip by post), a flag with cells of no value ("n/a") still a flag, and a flag's
words said after a negation ("not posted") asking for its no. Asked over tables no benchmark
holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.question import mentions, read_question
from knowledge.tables.rules import explained

STAFF = [
    ["Name", "Team", "Payslip by post", "Parking permit"],
    ["Ines Roy", "Sales", "Yes", "No"],
    ["Kofi Mensah", "Support", "No", "Yes"],
    ["Lea Vogt", "Sales", "n/a", "Yes"],
    ["Omar Haddad", "Finance", "Yes", "No"],
]


@pytest.fixture(scope="module")
def staff():
    return grid(table_from_rows(STAFF[0], STAFF[1:]), "staff.xlsx › Staff")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Which staff get their payslip posted?", ["Ines Roy", "Omar Haddad"]),
        ("How many people have their payslips posted to them?", [2.0]),
        ("Which staff don't get their payslip posted?", ["Kofi Mensah"]),
    ],
)
def test_a_flag_said_by_its_words(staff, question, values) -> None:
    assert explained(question, followed(question, staff)).result.values == values


def test_one_word_of_a_flag_s_header_says_no_flag(staff) -> None:
    said = mentions(read_question("Which staff work in the post room?"), staff)
    assert not [c for c in said if c.column == 2]
