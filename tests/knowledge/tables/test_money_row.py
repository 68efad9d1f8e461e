"""What one row cost altogether: its amounts of money added up along the row. Asked over tables
no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.content import content_words
from knowledge.tables.follows import followed
from knowledge.tables.rules import relevance

COSTS = [
    ["Event", "Venue", "Catering", "Staff", "Printing"],
    ["Spring fair", "£1,200", "£800", "£450", "£120"],
    ["Gala dinner", "£3,000", "£2,400", "£900", "£300"],
]


@pytest.fixture(scope="module")
def costs():
    return grid(table_from_rows(COSTS[0], COSTS[1:]), "events.xlsx › Event costs")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("What did the Gala dinner cost us altogether?", [6600.0]),
        ("How much did the Spring fair cost in total?", [2570.0]),
        # An amount named is read: "cost" names no column here (nor Costumes elsewhere).
        ("What did we spend on catering in total?", [3200.0]),
        ("How much did the catering for the Gala dinner cost?", ["£2,400"]),
    ],
)
def test_a_row_s_money_is_added_up_along_it(costs, question, values) -> None:
    assert followed(question, costs)[0].result.values == values


def test_counts_or_two_amounts_of_money_are_no_parts_of_one_cost() -> None:
    shows = grid(
        table_from_rows(
            ["Show", "Performances", "Cast", "Seats sold"],
            [["Hamlet", "14", "11", "2860"], ["Cats", "12", "7", "2410"]],
        ),
        "shows.xlsx › Shows",
    )
    flats = grid(
        table_from_rows(
            ["Flat", "Rent", "Deposit"], [["A", "£900", "£1,800"], ["B", "£850", "£1,700"]]
        ),
        "flats.csv › Flats",
    )
    for table, question in (
        (shows, "How many did Hamlet have altogether?"),
        (flats, "What does Flat A cost altogether?"),
    ):
        assert all(c.program.op != "row_sum" for c in followed(question, table))


@pytest.mark.parametrize(
    ("header", "label"),
    [
        (["Project", "Budget", "Actual", "Forecast"], "capex.xlsx › Refit"),
        (["Event", "Venue", "Catering", "Total"], "events.xlsx › Costs"),
        (["Project", "Spent to Mar", "Spent to Jun", "Spent to Sep"], "capex.xlsx › Spend"),
        (["Hotel", "Single", "Double", "Suite"], "hotels.xlsx › Room rates"),
    ],
)
def test_totals_budgets_so_far_and_prices_are_no_parts_of_one_cost(header, label) -> None:
    # A review found each of these added up.
    table = grid(table_from_rows(header, [["Refit", "£5,000", "£6,000", "£7,000"]]), label)
    found = followed("What did the Refit cost us altogether?", table)
    assert all(c.program.op != "row_sum" for c in found)


def test_the_two_rows_a_question_counts_are_added_up_between_them() -> None:
    contracts = grid(
        table_from_rows(
            ["Ref", "Client", "Value", "Paid"],
            [["C1", "Castlebridge Council", "£7,250", "£7,250"], ["C2", "St Mary's", "£1,480", ""],
             ["C3", "Castlebridge Council", "£9,400", "£0"]],
        ),
        "contracts.csv",
    )  # fmt: skip
    question = "What are the two Castlebridge Council contracts worth between them?"
    best = followed(question, contracts)[0]
    assert best.program.op == "sum" and best.result.values == [16650.0]


@pytest.mark.parametrize(
    "question",
    [
        "Which years were the Castlebridge Council contracts signed in total?",  # no amounts
        "What is the larger value of the two Castlebridge Council contracts overall?",  # an order
        "What was each Castlebridge Council contract worth in total?",  # each one's
    ],
)
def test_years_an_order_or_each_one_are_no_sum_between_them(question) -> None:
    # A review found these added up.
    contracts = grid(
        table_from_rows(
            ["Ref", "Client", "Year", "Value"],
            [["C1", "Castlebridge Council", "2021", "£7,250"], ["C2", "St Mary's", "2022", "£1,480"],
             ["C3", "Castlebridge Council", "2023", "£9,400"]],
        ),
        "contracts.csv",
    )  # fmt: skip
    assert followed(question, contracts)[0].program.op != "sum"


CONTRACTS = [
    ["Ref", "Client", "Value", "Paid"],
    ["C1", "Northgate School", "£3,600", "£3,600"],
    ["C2", "Riverside Housing Trust", "£12,900", "£6,450"],
    ["C3", "Abbey Tennis Club", "£2,200", ""],
]


def test_what_a_named_row_still_owes_is_its_amount_less_what_it_paid() -> None:
    contracts = grid(table_from_rows(CONTRACTS[0], CONTRACTS[1:]), "contracts.csv")
    best = followed("How much does Riverside Housing Trust still owe us?", contracts)[0]
    assert best.program.op == "change" and best.result.values == [6450.0]
    # A Balance says it already: read as it is.
    balance = grid(
        table_from_rows(
            ["Ref", "Client", "Value", "Paid", "Balance"],
            [["C2", "Riverside Housing Trust", "£12,900", "£6,450", "£6,450"],
             ["C3", "Abbey Tennis Club", "£2,200", "£0", "£2,200"]],
        ),
        "contracts.csv",
    )  # fmt: skip
    found = followed("How much does Abbey Tennis Club still owe us?", balance)
    assert all(c.program.op != "change" for c in found)


def test_words_that_say_nothing_of_a_table_leave_it_as_relevant() -> None:
    contracts = grid(table_from_rows(CONTRACTS[0], CONTRACTS[1:]), "contracts.csv")
    question = "How many contracts haven't paid us anything yet?"
    assert relevance(question, contracts) >= 0.5
    assert followed(question, contracts)[0].result.values == [1.0]


def test_a_name_like_don_or_a_still_is_a_word_of_the_question() -> None:
    # Only the verb before a "n't" goes ("haven t"): "Don" of Don Smith and "still" stay.
    assert content_words("What did Don Smith sell?") == ["don", "smith", "sell"]
    assert "still" in content_words("How many bottles of still water did we sell?")
    assert content_words("How many contracts haven't paid us anything yet?") == [
        "contracts",
        "paid",
    ]


@pytest.mark.parametrize(
    ("header", "question"),
    [
        (["Client", "Paid", "Unpaid amount"], "How much does Acme Ltd still owe?"),  # left, as is
        (["Client", "Amount due", "Paid"], "How much does Acme Ltd still owe?"),  # due, as is
        (["Client", "Loan", "Interest paid"], "How much does Acme Ltd still owe?"),  # no repaying
        (["Client", "Value", "Paid"], "What percentage of its contract does Acme Ltd still owe?"),
    ],
)
def test_what_is_left_said_otherwise_or_asked_otherwise_is_no_subtraction(header, question) -> None:
    # A review found each of these subtracted.
    table = grid(
        table_from_rows(header, [["Acme Ltd", "£400", "£600"], ["Bolt plc", "£900", "£300"]]),
        "accounts.csv",
    )
    assert all(c.program.op != "change" for c in followed(question, table))
