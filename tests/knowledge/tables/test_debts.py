"""What a team is still owed: "still owe" or "owing" keeps the rows a Paid flag says no of, and
"how much does <client> still owe us?" names the table's one amount of money. Not "outstanding"
(also "excellent"), "overdue" (of a loan's Returned), a debt denied, a debt in the past, a
number that is no money. Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.choice import TableChoice
from knowledge.tables.follows import followed
from knowledge.tables.rules import names_what_it_reads

INVOICES = [
    ["Invoice", "Client", "Sent", "Amount", "Paid"],
    ["N-1", "Northwind", "2026-01-10", "1,200", "Yes"],
    ["N-2", "Harbour Co", "2026-01-20", "800", "No"],
    ["N-3", "Northwind", "2026-02-05", "950", "No"],
    ["N-4", "Harbour Co", "2026-02-18", "400", "Yes"],
]


@pytest.fixture(scope="module")
def invoices():
    return grid(table_from_rows(INVOICES[0], INVOICES[1:]), "invoices.pdf › Invoices")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("How much does Northwind still owe us?", ["950"]),
        ("Which clients are still owing us?", ["Harbour Co", "Northwind"]),
        # No debt said: every Northwind invoice.
        ("How many invoices did we send Northwind?", [2.0]),
    ],
)
def test_a_debt_said_keeps_the_unpaid_rows(invoices, question, values) -> None:
    assert followed(question, invoices)[0].result.values == values


def _choice(question, table):
    return TableChoice(0, 0, "invoices.pdf", table, followed(question, table)[0], 1.0)


def test_how_much_is_owed_names_the_one_amount(invoices) -> None:
    question = "How much does Northwind still owe us?"
    assert names_what_it_reads(question, _choice(question, invoices))


def test_how_much_names_no_amount_of_a_table_with_two(invoices) -> None:
    rows = [[*row, fee] for row, fee in zip(INVOICES, ["Fee", "20", "10", "15", "5"], strict=True)]
    table = grid(table_from_rows(rows[0], rows[1:]), "invoices.pdf › Invoices")
    question = "How much does Northwind still owe us?"
    assert not names_what_it_reads(question, _choice(question, table))


@pytest.mark.parametrize(
    "question",
    [
        "Which clients owe nothing?",
        "How much did Northwind owe in January?",
        "Which invoices are outstanding?",
        "How many invoices are overdue?",
    ],
)
def test_no_debt_said_keeps_every_row_paid_or_not(invoices, question) -> None:
    best = followed(question, invoices)[0]
    assert not any(condition.column == 4 for condition in best.program.conditions)


def _table(rows):
    return grid(table_from_rows(rows[0], rows[1:]), "sheet.xlsx › Sheet1")


@pytest.mark.parametrize(
    ("rows", "question"),
    [
        # The one number is a rank, a count of items, a weight asked of a price.
        (
            [["Rank", "Film", "Director"], ["1", "Avatar", "Cameron"], ["2", "Titanic", "Cameron"]],
            "How much did Titanic cost to make?",
        ),
        (
            [["Order", "Customer", "Items"], ["A-17", "Bob", "5"], ["A-18", "Ann", "3"]],
            "How much did order A-18 cost?",
        ),
        (
            [
                ["Item", "Supplier", "Price"],
                ["Chair", "Oak & Co", "45"],
                ["Desk", "Oak & Co", "180"],
            ],
            "How much does a chair weigh?",
        ),
        # Acme's invoices are paid: what it still owes is no invoice's amount.
        (
            INVOICES + [["N-5", "Acme", "2026-03-01", "400", "Yes"]],
            "How much does Acme still owe us?",
        ),
    ],
)
def test_how_much_names_no_amount_that_is_not_what_is_owed(rows, question) -> None:
    table = _table(rows)
    assert not names_what_it_reads(question, _choice(question, table))


JOBS = [
    ["Date", "Site", "Work", "Contractor", "Cost"],
    ["2026-01-10", "Depot", "Boiler service", "Acme Plumbing", "£120"],
    ["2026-02-03", "Office", "Leak fix", "Brightline", "£310"],
    ["2026-03-15", "Depot", "Radiator swap", "Acme Plumbing", "£95"],
    ["2026-04-02", "Office", "Window seal", "Brightline", "£60"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # What a named one charged in total: the money column over its rows.
        ("What has Acme Plumbing charged us in total?", [215.0]),
        ("What have we paid Brightline altogether?", [370.0]),
    ],
)
def test_what_a_named_one_charged_in_total(question, values) -> None:
    jobs = grid(table_from_rows(JOBS[0], JOBS[1:]), "jobs.html › Maintenance log")
    assert followed(question, jobs)[0].result.values == values


def test_a_total_of_a_named_one_with_more_said_is_the_parser_s() -> None:
    from knowledge.tables.money import money_total

    jobs = grid(table_from_rows(JOBS[0], JOBS[1:]), "jobs.html › Maintenance log")
    # Rows kept by more than the name (a site too), or nothing totalled: no rule-made sum.
    assert money_total("What has Acme Plumbing charged us in total at the Depot?", jobs) is None
    assert money_total("What did Acme Plumbing charge for the boiler service?", jobs) is None
    # Another operation asked: a count, the most, an average.
    for question in (
        "How many times has Acme Plumbing charged us in total?",
        "What was the most Acme Plumbing charged overall?",
        "What is the average Acme Plumbing has charged per job overall?",
        # A month of a log of several months: its rows, which this rule does not keep.
        "What has Acme Plumbing charged us in total this month?",
    ):
        assert money_total(question, jobs) is None, question
    # "This year" of a log of one year is every row of the one named.
    assert money_total("What has Acme Plumbing charged us in total this year?", jobs) is not None
    # A price per unit adds up to no total paid.
    orders = grid(
        table_from_rows(["Supplier", "Item", "Quantity", "Unit price (£)"],
                        [["Acme", "Bolts", "10", "0.30"], ["Acme", "Nuts", "20", "0.20"]]),
        "orders.csv",
    )  # fmt: skip
    assert money_total("What have we spent with Acme in total?", orders) is None


CLAIMS = [
    ["Ref", "Insurer", "Submitted", "Claimed", "Paid", "Paid on"],
    ["C-1", "Petwise", "2026-01-08", "£1,200", "£1,100", "2026-02-01"],
    ["C-2", "Furcover", "2026-01-20", "£640", "£640", "2026-02-19"],
    ["C-3", "Petwise", "2026-02-11", "£2,050", "", ""],
    ["C-4", "Tailsafe", "2026-03-02", "£310", "£280", "2026-03-30"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # Of two columns of money, the one the question says; "so far" asks for the whole.
        ("How much have the insurers paid out on our claims so far?", [2020.0]),
        ("How much have we claimed from insurers in total?", [4200.0]),
    ],
)
def test_the_total_of_the_column_of_money_the_question_names(question, values) -> None:
    claims = grid(table_from_rows(CLAIMS[0], CLAIMS[1:]), "claims.csv › claims")
    assert followed(question, claims)[0].result.values == values
