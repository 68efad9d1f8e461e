"""The days between two dates of a row (knowledge/tables/between.py): which tables get the
column, what it holds, and the questions it answers."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.rules import explained

TICKETS = (
    ["Ticket", "Customer", "Opened", "Closed", "Agent"],
    [
        ["T-101", "Acme", "2 Jan 2025", "3 Jan 2025", "Jonas Weber"],
        ["T-102", "Bolt", "5 Jan 2025", "15 Jan 2025", "Mia Lund"],
        ["T-103", "Cora", "1 Feb 2025", "4 Feb 2025", "Jonas Weber"],
        ["T-104", "Dane", "3 Feb 2025", "", "Mia Lund"],
    ],
)


def _grid(headers, rows):
    return grid(table_from_rows(headers, rows), "support.xlsx")


def _answer(question: str, table) -> list:
    best = explained(question, followed(question, table))
    return best.result.values


def test_a_start_and_an_end_date_give_the_days_between() -> None:
    table = _grid(*TICKETS)
    added = table.columns[-1]
    assert added.name == "Duration (Opened to Closed)"
    assert added.texts == ["1 day", "10 days", "3 days", ""]  # T-104 is still open


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Which ticket took the longest to close?", ["T-102"]),
        ("Which ticket took the shortest time to close?", ["T-101"]),
        ("How long did T-102 take to close?", ["10 days"]),
        # Questions of the dates themselves still read them.
        ("Which ticket was opened first?", ["T-101"]),
        ("How many tickets did Jonas Weber close?", [2.0]),
    ],
)
def test_questions_of_how_long_read_the_days_between(question, answer) -> None:
    assert _answer(question, _grid(*TICKETS)) == answer


def test_dates_out_of_order_or_a_length_of_its_own_add_nothing() -> None:
    headers, rows = TICKETS
    # A second date before the first in some row: no start and end ("Born", "Died" of a
    # list is one thing; a "Reviewed" before "Signed" another).
    swapped = [[*row[:2], row[3] or "1 Jan 2025", row[2], row[4]] for row in rows]
    swapped[1][3] = "1 Jan 2026"
    assert [c.name for c in _grid(headers, swapped).columns] == headers
    # A table that says how long already: its own column answers.
    nights = [["B1", "Anna Berg", "1 Mar 2025", "8 Mar 2025", "7"],
              ["B2", "Ola Nord", "2 Mar 2025", "4 Mar 2025", "2"]]  # fmt: skip
    booked = _grid(["Booking", "Guest", "Check-in", "Check-out", "Nights"], nights)
    assert [c.name for c in booked.columns][-1] == "Nights"
    # One row with both dates says nothing of the others.
    one = [rows[0], [*rows[1][:3], "", rows[1][4]]]
    assert len(_grid(headers, one).columns) == len(headers)


def test_a_date_with_no_day_adds_nothing() -> None:
    rows = [["Alpha", "2024", "2025"], ["Beta", "2023", "2026"]]
    assert len(_grid(["Project", "Started", "Ended"], rows).columns) == 3


def test_each_date_starts_one_span_to_the_next_that_follows_it() -> None:
    rows = [
        ["S-1", "2025-03-01", "2025-03-03", "2025-03-07"],
        ["S-2", "2025-03-02", "2025-03-02", "2025-03-04"],
    ]
    table = _grid(["Shipment", "Ordered", "Shipped", "Delivered"], rows)
    assert [c.name for c in table.columns[4:]] == [
        "Duration (Ordered to Shipped)",
        "Duration (Shipped to Delivered)",
    ]
    assert table.columns[5].texts == ["4 days", "2 days"]
    assert _answer("Which shipment took the longest to be delivered after it shipped?", table) == [
        "S-1"
    ]


def test_a_row_total_over_months_stays_the_last_column() -> None:
    rows = [
        ["Mill", "2025-01-01", "2025-03-01", "10", "20", "30"],
        ["Quay", "2025-01-05", "2025-02-01", "5", "5", "5"],
    ]
    table = _grid(["Site", "Start", "End", "Jan", "Feb", "Mar"], rows)
    assert [c.name for c in table.columns[6:]] == ["Duration (Start to End)", "Total"]


def test_the_days_between_answer_only_a_question_of_how_long() -> None:
    from knowledge.tables.between import reads_only_when_asked
    from knowledge.tables.programs import Condition, Program, fold

    table = _grid(*TICKETS)
    days = len(table.columns) - 1
    read = Program("values", target=days, conditions=(Condition(0, "eq", "t-102"),))
    assert reads_only_when_asked(fold("How long did T-102 take?").split(), table, read)
    # "The day rate", a phone number, a customer: no day between two dates.
    for question in ("What is the day rate for T-102?", "Who is the customer of T-102?"):
        assert not reads_only_when_asked(fold(question).split(), table, read)
    # A row with no end is one whose days are empty: a condition may read them.
    still_open = Program("values", target=0, conditions=(Condition(days, "blank", ""),))
    assert reads_only_when_asked(fold("Which tickets are still open?").split(), table, still_open)
    assert _answer("Which tickets are still open?", table) == ["T-104"]
    assert _answer("Which customer raised T-102?", table) == ["Bolt"]


def test_the_longest_route_is_its_distance_not_its_days() -> None:
    rows = [
        ["S-1", "2025-03-01", "2025-03-09", "120"],
        ["S-2", "2025-03-02", "2025-03-04", "900"],
        ["S-3", "2025-03-03", "2025-03-05", "450"],
    ]
    table = _grid(["Shipment", "Shipped", "Delivered", "Distance (km)"], rows)
    assert _answer("Which is the longest route?", table) == ["S-2"]
    assert _answer("Which shipment took the longest?", table) == ["S-1"]


def test_a_plan_or_a_birth_is_no_start_or_end() -> None:
    # An invoice is paid, not due: its days run from the invoice to the payment.
    invoices = [
        ["Acme", "2025-01-01", "2025-01-31", "2025-01-20", "400"],
        ["Bolt", "2025-01-05", "2025-02-04", "2025-03-01", "250"],
    ]
    table = _grid(["Customer", "Invoice date", "Due date", "Paid date", "Amount"], invoices)
    assert [c.name for c in table.columns][-1] == "Duration (Invoice date to Paid date)"
    assert _answer("How long did Bolt take to pay?", table) == ["55 days"]
    staff = [["Ana", "1980-05-01", "2010-01-04", "2020-06-30"],
             ["Ben", "1990-02-11", "2015-03-02", "2016-09-01"]]  # fmt: skip
    headers = ["Name", "Born", "Joined", "Left"]
    assert [c.name for c in _grid(headers, staff).columns][4:] == ["Duration (Joined to Left)"]
