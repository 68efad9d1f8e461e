"""A join on the answer: the row of another table that a program's answer names ("the day rate
of the lead of Harbour app": the lead is a name of the team's table, under another header).
Asked over tables no benchmark holds."""

from __future__ import annotations

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.choice import TableChoice
from knowledge.tables.follows import followed
from knowledge.tables.steps import joined_step


def _table(rows, label: str):
    return grid(table_from_rows(rows[0], rows[1:]), label)


PROJECTS = [
    ["Project", "Client", "Lead", "Budget"],
    ["Harbour app", "Port of Vigo", "Elena Ruiz", "120000"],
    ["Ledger sync", "Banco Norte", "Marc Dubois", "80000"],
]


def _joined(question: str, other_rows) -> str | None:
    projects = _table(PROJECTS, "projects.xlsx › Projects")
    other = _table(other_rows, "team.md › Team")
    choice = TableChoice(0, 0, "projects.xlsx", projects, followed(question, projects)[0], 1.0)
    choice.others = [(1, other)]
    step = joined_step(question, choice)
    return step.value if step else None


def test_the_answer_of_a_program_names_the_row_of_another_table_it_is_joined_to() -> None:
    team = [["Name", "Role", "Day rate"], ["Elena Ruiz", "Tech lead", "950"],
            ["Marc Dubois", "Tech lead", "900"]]  # fmt: skip
    assert _joined("What is the day rate of the lead of Harbour app?", team) == "950"
    assert _joined("What is the day rate of the lead of Ledger sync?", team) == "900"
    # A name that is in two rows names neither.
    twice = [*team, ["Elena Ruiz", "Designer", "600"]]
    assert _joined("What is the day rate of the lead of Harbour app?", twice) is None
    # Nor is a number any row's name (the budget is no Day rate's row).
    rates = [["Day rate", "Band"], ["120000", "A"], ["80000", "B"]]
    assert _joined("What is the band of the budget of Harbour app?", rates) is None
