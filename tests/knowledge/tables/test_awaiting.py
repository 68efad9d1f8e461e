"""A thing awaiting its answer is a row whose cell of the answer is empty ("which applications
are we still waiting to hear back on?": no Decision yet). Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed

GRANTS = [
    ["Ref", "Funder", "Submitted", "Requested", "Awarded", "Decision"],
    ["A1", "Arts Fund", "2025-02-10", "£14,800", "£14,800", "2025-04-22"],
    ["A2", "Wrekin Trust", "2025-03-03", "£3,500", "£2,500", "2025-05-06"],
    ["A3", "Kings Trust", "2025-03-28", "£6,000", "£0", "2025-06-02"],
    ["A4", "Wrekin Trust", "2026-03-02", "£3,800", "", ""],
    ["A5", "Arts Fund", "2026-05-11", "£15,500", "", ""],
]


@pytest.fixture(scope="module")
def grants():
    return grid(table_from_rows(GRANTS[0], GRANTS[1:]), "grants.csv › grants")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("How many grant applications are we still waiting to hear back on?", [2.0]),
        ("Which applications are pending?", ["A4", "A5"]),
        ("Which applications are still awaiting a decision?", ["A4", "A5"]),
        ("How many applications are undecided?", [2.0]),
    ],
)
def test_a_thing_awaiting_its_answer_has_none_yet(grants, question, values) -> None:
    assert followed(question, grants)[0].result.values == values


def test_waiting_said_otherwise_or_a_cell_that_says_pending_is_no_empty_cell(grants) -> None:
    best = followed("What did Wrekin Trust award A2 after the waiting time?", grants)[0]
    assert all(c.op != "blank" for c in best.program.conditions)
    orders = grid(
        table_from_rows(
            ["Order", "Status", "Shipped"],
            [["O1", "Pending", ""], ["O2", "Shipped", "2026-01-02"], ["O3", "Pending", ""]],
        ),
        "orders.csv",
    )
    best = followed("Which orders are pending?", orders)[0]
    assert best.result.values == ["O1", "O3"]
    assert [c.op for c in best.program.conditions] == ["eq"]


def test_still_open_reads_no_decision_and_awaiting_reads_the_column_it_names() -> None:
    # A review found these read the last column of a decision instead.
    orders = grid(
        table_from_rows(
            ["Order", "Opened", "Closed", "Delivered", "Decision"],
            [["O1", "2026-01-02", "2026-01-05", "2026-01-04", "2026-01-06"],
             ["O2", "2026-01-03", "", "", "2026-01-07"],
             ["O3", "2026-01-04", "", "2026-01-08", ""]],
        ),
        "orders.csv",
    )  # fmt: skip
    assert followed("Which orders are still open?", orders)[0].result.values == ["O2", "O3"]
    best = followed("How many orders are pending delivery?", orders)[0]
    assert best.result.values == [1.0]
    # An empty cell of a Yes/No flag says No, not "pending".
    tickets = grid(
        table_from_rows(
            ["Ticket", "Closed", "Approved"],
            [["T1", "2026-01-05", "Yes"], ["T2", "", "No"], ["T3", "", ""]],
        ),
        "tickets.csv",
    )
    found = followed("Which tickets are pending?", tickets)
    assert all(c.column != 2 for c in found[0].program.conditions)
