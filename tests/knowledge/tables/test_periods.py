"""Periods and amounts as a team says them: "how much … all <rows> together" of a sheet by month
adds the month up, and nothing else does; "the first quarter" asks for no first row unless the
table's rows are quarters; orders "still waiting to be delivered" have no Delivered date; dates
are never added up; an average is read only when asked for. Asked over tables no benchmark
holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.change import period_total, quarter_of_rows
from knowledge.tables.choice import TableChoice
from knowledge.tables.follows import followed
from knowledge.tables.parser import Candidate, ranked
from knowledge.tables.programs import Condition, Program, run
from knowledge.tables.rules import asks_for_its_operation
from knowledge.tables.wording import in_words


def _table(rows, label: str):
    return grid(table_from_rows(rows[0], rows[1:]), label)


JOBS = [["Site", "Jan", "Feb", "Mar"], ["Quay", "400", "520", "950"],
        ["Mill", "610", "300", "300"], ["Dock", "220", "480", "1800"]]  # fmt: skip
LEDGER = [["Line", "Jan", "Feb", "Mar"], ["Income", "9800", "9900", "10200"],
          ["Expenses", "7100", "7300", "7600"], ["Profit", "2700", "2600", "2600"]]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "rows", "total"),
    [
        ("How much did we spend in March, all sites together?", JOBS, [3050.0]),
        # An average, one row or each row's amount is asked for, not the month's total.
        ("How much did we spend on average in March across all sites?", JOBS, None),
        ("How much did the largest job cost in March across all sites?", JOBS, None),
        ("How much did each site cost in March, all sites together?", JOBS, None),
        # The rows are no things of one kind to add up: income and profit are not summed.
        ("How much did we earn in total in March?", LEDGER, None),
    ],
)
def test_how_much_adds_a_month_up_only_over_all_the_rows_it_names(question, rows, total) -> None:
    found = period_total(question, _table(rows, "costs.xlsx › Costs by month 2026"))
    assert (found.result.values if found else None) == total


def _first(table, target: int) -> TableChoice:
    program = Program("first", target=target, conditions=(Condition(1, "gt", 1000.0),))
    return TableChoice(0, 0, "", table, Candidate(program, run(program, table), {}, 0.5), 1.0)


def test_the_first_quarter_is_a_first_row_only_of_a_table_of_quarters() -> None:
    quarters = _table([["Quarter", "Revenue"], ["Q1", "820"], ["Q2", "1040"], ["Q3", "1300"]],
                      "revenue.pptx")  # fmt: skip
    question = "Which was the first quarter with revenue above 1000?"
    assert asks_for_its_operation(question, _first(quarters, 0))
    months = _table([["Month", "Revenue"], ["January", "820"], ["February", "1040"]], "rev.csv")
    assert not asks_for_its_operation("What was revenue in the first quarter?", _first(months, 1))


ORDERS = [["Order", "Ordered", "Customer", "Kegs", "Delivered"],
          ["O-1", "2026-03-03", "Plough", "6", "2026-03-05"],
          ["O-2", "2026-04-16", "Crown", "4", ""],
          ["O-3", "2026-04-23", "Bay Horse", "3", ""]]  # fmt: skip


def test_orders_still_waiting_are_the_orders_with_no_delivered_date() -> None:
    orders = _table(ORDERS, "orders.csv")
    # "Which orders" is the Order, not the Ordered date; "waiting to be delivered": no Delivered.
    best = followed("Which orders are still waiting to be delivered?", orders)[0]
    assert best.result.values == ["O-2", "O-3"]


def test_waiting_said_of_a_header_about_waiting_asks_for_no_empty_cell() -> None:
    patients = _table(
        [["Patient", "Waiting time (days)", "Seen"], ["P1", "14", "2026-03-02"],
         ["P2", "12", "2026-03-04"], ["P3", "", ""], ["P4", "4", "2026-03-06"]],
        "clinic.csv",
    )  # fmt: skip
    best = followed("Which patients had a waiting time over 10 days?", patients)[0]
    assert best.result.values == ["P1", "P2"]
    assert followed("Which patients are still waiting to be seen?", patients)[0].result.values == [
        "P3"
    ]


def test_a_plural_in_ers_counts_the_rows_of_its_singular() -> None:
    staff = _table(
        [["Worker", "Team", "Hours worked"], ["Ana", "Ops", "40"], ["Ben", "Ops", "38"],
         ["Cy", "Web", "20"]],
        "staff.csv",
    )  # fmt: skip
    assert followed("How many workers are in the Ops team?", staff)[0].result.values == [2.0]


def test_dates_are_never_added_up_nor_averaged() -> None:
    orders = _table(ORDERS, "orders.csv")
    for candidate in ranked("What is the total of the orders still waiting?", orders):
        assert not (candidate.program.op in ("sum", "avg") and candidate.program.key in (1, 4))


def test_an_average_is_read_only_when_a_word_asks_for_one() -> None:
    rota = _table([["Volunteer", "Hours"], ["Ana", "6"], ["Ben", "4"], ["Cy", "8"]], "rota.md")
    for question in ("How many hours do the volunteers give?", "How many hours did Ana give?"):
        assert all(c.program.op != "avg" for c in followed(question, rota))
    best = followed("How many hours does a volunteer give on average?", rota)[0]
    assert best.program.op == "avg" and best.result.values == [6.0]


def test_a_number_said_of_a_thing_asks_for_no_count() -> None:
    orders = _table(ORDERS, "orders.csv")
    count = Program("count", conditions=(Condition(2, "eq", "crown"),))
    choice = TableChoice(0, 0, "", orders, Candidate(count, run(count, orders), {}, 0.5), 1.0)
    assert not asks_for_its_operation("What is the Crown's phone number?", choice)
    assert not asks_for_its_operation(
        "What's the mobile number for whoever runs the Crown?", choice
    )
    assert asks_for_its_operation("What is the number of orders from the Crown?", choice)
    assert asks_for_its_operation("Number of orders from the Crown?", choice)
    assert asks_for_its_operation("What is the Crown's number of orders?", choice)


BILLS = [["Month", "Power", "Water"], ["January", "310", "40"], ["February", "290", "42"],
         ["March", "250", "45"], ["April", "200", "50"], ["May", "180", "52"],
         ["June", "170", "60"], ["Total", "1400", "289"]]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # The rows of the quarter's months, the Total row not among them.
        ("How much did we pay for water in the second quarter?", [162.0]),
        ("What was our average power bill in the first quarter?", [850.0 / 3]),
        ("What did power cost us in the first half?", [1400.0]),
    ],
)
def test_a_quarter_of_rows_by_month_adds_up_its_months(question, values) -> None:
    bills = _table(BILLS, "bills.xlsx › Utilities 2026")
    found = followed(question, bills)[0]
    assert found.result.values == pytest.approx(values)
    assert "Month is in the" in in_words(found.program, bills, found.result)


def test_a_quarter_of_rows_asks_for_no_total_of_a_row_nor_of_a_table_of_quarters() -> None:
    bills = _table(BILLS, "bills.xlsx › Utilities 2026")
    words = "which month of the first quarter had the highest power bill?".split()
    assert quarter_of_rows(" ".join(words), words, bills) is None
    quarters = _table([["Quarter", "Revenue"], ["Q1", "820"], ["Q2", "1040"]], "revenue.pptx")
    words = "what was the revenue in the first quarter?".split()
    assert quarter_of_rows(" ".join(words), words, quarters) is None
