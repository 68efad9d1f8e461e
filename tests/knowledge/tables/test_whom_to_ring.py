"""Whom to ring: "ring whoever looks after the kiln - what's their number?" reads the person
in charge of a row (a header of "in charge", "looked after by", "lead") and then their phone
on the staff sheet (Mobile, Extension, Phone); knowledge/tables/vocabulary.py's phrases. Asked
over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.choice import TableChoice
from knowledge.tables.follows import followed
from knowledge.tables.steps import joined_step

KILNS = [
    ["Kiln", "Site", "Fired in 2025", "Technician in charge"],
    ["Big electric", "Studio", "48", "Ros Achebe"],
    ["Raku", "Yard", "12", "Dev Patel"],
    ["Test kiln", "Studio", "30", "Ros Achebe"],
]
TEAM = [
    ["Name", "Role", "Extension", "Mobile"],
    ["Ros Achebe", "Technician", "214", "07700 900 111"],
    ["Dev Patel", "Technician", "237", "07700 900 222"],
]


def _table(rows, label: str):
    return grid(table_from_rows(rows[0], rows[1:]), label)


def _answer(question: str) -> tuple[list, str | None]:
    kilns = _table(KILNS, "studio.xlsx › Kilns")
    best = followed(question, kilns)[0]
    choice = TableChoice(0, 0, "studio.xlsx", kilns, best, 1.0)
    choice.others = [(1, _table(TEAM, "studio.xlsx › Team"))]
    step = joined_step(question, choice)
    return best.result.values, step.value if step else None


@pytest.mark.parametrize(
    ("question", "person", "phone"),
    [
        ("I need to ring whoever looks after the raku kiln - what's their number?",
         "Dev Patel", "07700 900 222"),
        ("Who is in charge of the big electric kiln, and which extension do I dial?",
         "Ros Achebe", "214"),
        ("Who looks after the raku kiln? Which extension do I call?", "Dev Patel", "237"),
        ("Who's in charge of the raku kiln? I'll text them.", "Dev Patel", "07700 900 222"),
    ],
)  # fmt: skip
def test_whom_to_ring_is_the_person_in_charge_then_their_phone(question, person, phone) -> None:
    assert _answer(question) == ([person], phone)


def test_a_number_of_things_is_no_phone() -> None:
    # "Number" alone asks for no phone: the kilns fired are counted, nobody is rung.
    assert _answer("What number of firings did the raku kiln do in 2025?")[1] is None


AGENTS = [
    ["Agent", "Calls taken", "Call duration (mins)", "Extension"],
    ["Sam", "120", "6.2", "201"],
    ["Priya", "95", "8.4", "202"],
]
SQUAD = [
    ["Player", "Position", "Squad number", "Mobile"],
    ["Ellis", "Forward", "9", "07700 900 333"],
    ["Moss", "Keeper", "1", "07700 900 444"],
]
LEGS = [["Leg", "Runner"], ["1", "Ben"], ["2", "Cleo"], ["3", "Dan"]]


@pytest.mark.parametrize(
    ("rows", "question", "values"),
    [
        # A call is no phone: a call's duration, a squad number, the leg after Ben.
        (AGENTS, "What is Sam's call duration?", ["6.2"]),
        (SQUAD, "Ellis plays up front - what's his number?", ["9"]),
        (LEGS, "Who took after Ben?", ["Cleo"]),
    ],
)
def test_words_of_calling_and_after_that_ask_for_no_phone(rows, question, values) -> None:
    found = followed(question, _table(rows, "team.xlsx › Sheet"))
    assert found[0].result.values == values, found[0].program


COURSES = [["Course", "School", "Children", "Instructor"], ["Level 1", "Northgate", "24", "Ros Achebe"],
           ["Level 2", "Castle", "12", "Dev Patel"]]  # fmt: skip


def test_kids_are_children() -> None:
    found = followed(
        "How many kids are on the course Dev Patel teaches?", _table(COURSES, "c.docx")
    )
    assert found[0].result.values == ["12"], found[0].program
