"""One named column over a whole table: its total for "what did … come to", "over the 2025-26
year" or "across the whole season", its average when one is asked (knowledge/tables/whole.py);
a span of years is no comparison ("over the 2025-26 year" is no year over 2025); a quarter
written as its months ("Apr-Jun") is a period. Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.question import read_question

POWER = [
    ["Month", "Electricity", "Gas", "Water"],
    ["Sep 2025", "410", "120", "80"],
    ["Oct 2025", "455", "190", "82"],
    ["Nov 2025", "470", "260", "79"],
    ["Dec 2025", "505", "330", "85"],
]
SHOWS = [
    ["Show", "Venue hire", "Printing", "Travel"],
    ["Hamlet", "1200", "340", "610"],
    ["Oliver", "950", "410", "380"],
    ["Cabaret", "1100", "290", "520"],
]
COSTS = [
    ["Cost line", "Apr-Jun", "Jul-Sep", "Oct-Dec", "Jan-Mar"],
    ["Rent", "4500", "4500", "4500", "4500"],
    ["Insurance", "600", "0", "0", "650"],
]


@pytest.fixture(scope="module")
def power():
    return grid(table_from_rows(POWER[0], POWER[1:]), "bills.pdf › Utility bills, autumn 2025")


@pytest.fixture(scope="module")
def shows():
    return grid(table_from_rows(SHOWS[0], SHOWS[1:]), "shows.xlsx › Show costs 2025-26 season")


@pytest.fixture(scope="module")
def costs():
    return grid(table_from_rows(COSTS[0], COSTS[1:]), "costs.pdf › Running costs, 2025-26")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("What did gas come to?", [900.0]),
        ("What did the electricity come to, all told?", [1840.0]),
        ("What was our average monthly water bill?", [81.5]),
        # An order asks for one row.
        ("Which month had the highest gas bill?", ["Dec 2025"]),
    ],
)
def test_a_named_column_over_every_month(power, question, values) -> None:
    found = followed(question, power)
    assert found[0].result.values == values, found[0].program


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("What did we spend on printing across the whole 2025-26 season?", [1040.0]),
        ("What did travel come to over the season?", [1510.0]),
        ("On average, what did we spend on venue hire per show last season?", [1083.333333]),
        # A show named: its own cell.
        ("What did we spend on printing for Oliver?", ["410"]),
    ],
)
def test_a_named_column_over_every_row_of_a_season(shows, question, values) -> None:
    found = followed(question, shows)
    assert found[0].result.values == values, found[0].program


def test_a_number_said_keeps_some_rows_not_every_one(power) -> None:
    found = followed("What did gas come to in the first two months?", power)
    assert found[0].result.values != [900.0], found[0].program


def test_a_span_of_years_is_no_comparison() -> None:
    assert read_question("What did rent come to over the 2025-26 year?").numbers == [(2025.0, "")]
    assert read_question("Sales over 2025 and 2026?").numbers == [(2025.0, "gt"), (2026.0, "")]


def test_a_quarter_written_as_its_months_is_a_period(costs) -> None:
    found = followed("What did we spend on insurance over the 2025-26 year?", costs)
    assert found[0].result.values == [1250.0], found[0].program


CLAIMS = [
    ["Ref", "Insurer", "Claimed", "Paid", "Paid on"],
    ["C-1", "Petplan", "£1,200", "£1,100", "2026-01-10"],
    ["C-2", "Agria", "£640", "£640", "2026-02-02"],
    ["C-3", "Petplan", "£2,050", "", ""],
]


def test_what_was_paid_so_far_is_the_paid_column_added_not_its_date() -> None:
    claims = _table(CLAIMS, "claims.csv")
    for question in (
        "How much have the insurers paid us so far, all told?",
        "How much have we been paid to date?",
    ):
        found = followed(question, claims)
        assert found[0].result.values == [1740.0], (question, found[0].program)
    # One insurer named: its own rows, the parser's sum over them.
    found = followed("How much has Agria paid us so far?", claims)
    assert found[0].result.values in (["£640"], [640.0]), found[0].program


def test_so_far_and_all_told_are_no_words_a_table_must_hold() -> None:
    from knowledge.tables.content import content_words

    assert content_words("How much have the insurers paid us so far, all told?") == [
        "insurers",
        "paid",
    ]
    # A question that asks leave keeps its modal: it is prose, not a table's.
    assert content_words("Can we park at Millbrook?") == ["can", "park", "millbrook"]
    # Nor are the pronouns and the modal of "can … hold between them".
    assert content_words("How many litres can our fermenters hold between them?") == [
        "litres",
        "fermenters",
        "hold",
    ]


def _table(rows, label: str):
    return grid(table_from_rows(rows[0], rows[1:]), label)


INVOICES = [
    ["Invoice", "Client", "Amount", "Due"],
    ["INV-101", "Ash", "100", "2025-11-30"],
    ["INV-102", "Birch", "200", "2025-12-15"],
    ["INV-103", "Cedar", "300", "2026-01-31"],
    ["INV-104", "Damson", "400", "2026-02-28"],
]
BILLS = [
    ["Month", "Gas", "Balance", "Satisfaction (%)"],
    ["Jan 2025", "330", "5000", "81"],
    ["Feb 2025", "260", "3500", "79"],
    ["Mar 2025", "180", "2000", "84"],
]
QUARTERS = [
    ["Line", "Jan-Mar", "Apr-Jun", "Jul-Sep", "Oct-Dec", "Jan-Dec"],
    ["Heating", "2000", "900", "300", "1300", "4500"],
]
SEASONS = [
    ["Show", "Season", "Box office"],
    ["Hamlet", "2024-25", "9000"],
    ["Oliver", "2025-26", "10800"],
]


def test_a_date_is_no_span_of_years() -> None:
    invoices = _table(INVOICES, "invoices.csv")
    found = followed("Which invoices are due after 2025-12-31?", invoices)
    assert found[0].result.values == ["INV-103", "INV-104"], found[0].program
    assert read_question("due after 2025-12-31").numbers[0][1] == "gt"


@pytest.mark.parametrize(
    "question",
    [
        "What did the gas bill fall to over the year?",  # a level, not a total
        "What did gas come to in Q1?",  # a part of the time
        "What did gas come to since February?",
        "What has the balance come to so far?",  # a balance adds up to nothing
        "What was the satisfaction over the whole year?",
        "What did we spend on gas per year, on average?",  # per year, of months
    ],
)
def test_no_total_of_every_row_where_the_question_asks_for_another(question) -> None:
    bills = _table(BILLS, "bills.pdf › Utility bills 2025")
    found = followed(question, bills)
    assert not found or found[0].program.op not in ("sum", "avg") or found[0].program.conditions


def test_a_year_of_months_is_no_quarter() -> None:
    quarters = _table(QUARTERS, "costs.pdf › Running costs 2025")
    found = followed("Which quarter had the highest heating cost?", quarters)
    assert found[0].result.values == ["Jan-Mar"], found[0].program


def test_last_season_over_a_table_of_seasons_is_no_total() -> None:
    seasons = _table(SEASONS, "shows.xlsx › Shows")
    found = followed("What did box office come to last season?", seasons)
    assert not found or found[0].result.values != [19800.0], found[0].program


def test_a_year_the_table_never_says_gets_no_total_of_every_row() -> None:
    from knowledge.tables.said import says_a_year_it_lacks
    from knowledge.tables.whole import whole_column

    # The bills are of 2025 only: a total of them answers no question about 2024.
    bills = _table(BILLS, "bills.pdf › Utility bills 2025")
    assert whole_column("What did gas come to, all told, over the 2025-26 year?", bills) is None
    assert whole_column("What did gas come to, all told?", bills).result.values == [770.0]
    assert says_a_year_it_lacks("What did gas come to in 2024?", bills)
    assert not says_a_year_it_lacks("What did gas come to in 2025?", bills)
    # A span of years a label says holds both of its years.
    seasons = _table(SHOWS_ONE_SEASON, "shows.xlsx › Show costs 2025-26 season")
    assert not says_a_year_it_lacks("What did printing cost in 2026?", seasons)
    assert whole_column("What did printing come to over 2024-25?", seasons) is None


SHOWS_ONE_SEASON = [["Show", "Printing"], ["Hamlet", "340"], ["Oliver", "410"]]
