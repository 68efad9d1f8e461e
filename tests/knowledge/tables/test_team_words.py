"""Words a team says of its tables that the cells say otherwise: a plural of a cell ("the
engineers"), a yes/no column said as an adjective ("urgent tickets"), a status that is still
awaited ("Pending"), an amount of time compared ("within an hour"), the fastest of a time, a
quarter said in words ("the third quarter"), a table's year ("in 2024" of "Visits 2024"), a
compound noun ("which delivery partner") and an aggregate said by name ("the average mark").
Each is asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.rules import explained, relevance

TICKETS = [
    ["Ticket", "Team", "Owner role", "Urgent", "Status", "Hours"],
    ["T1", "Alpha", "Engineer", "Yes", "Closed", "5"],
    ["T2", "Beta", "Analyst", "No", "Pending", "3"],
    ["T3", "Alpha", "Engineer", "No", "Closed", "8"],
    ["T4", "Gamma", "Designer", "Yes", "Open", "2"],
    ["T5", "Beta", "Engineer", "No", "Closed", "4"],
]
COURIERS = [
    ["Courier", "Vehicle", "Typical delivery"],
    ["Ana", "Bike", "45 min"],
    ["Ben", "Van", "2 hours"],
    ["Cleo", "Scooter", "30 min"],
    ["Dev", "Car", "1 hour"],
]
VISITS = [
    ["Clinic", "Q1", "Q2", "Q3", "Q4"],
    ["North", "100", "150", "130", "110"],
    ["South", "120", "110", "140", "100"],
    ["East", "130", "160", "120", "95"],
]
PARTNERS = [
    ["Partner", "Delivery time (min)", "Orders"],
    ["Swift", "34", "900"],
    ["Parcelo", "27", "400"],
    ["Roadrun", "41", "1,200"],
]
EXAMS = [
    ["Exam", "Student", "Mark"],
    ["E-1", "Ines", "71"],
    ["E-2", "Jon", "58"],
    ["E-3", "Kai", "85"],
    ["E-4", "Lea", "66"],
]


def _table(rows, label):
    return grid(table_from_rows(rows[0], rows[1:]), label)


@pytest.fixture(scope="module")
def tickets():
    return _table(TICKETS, "tickets.csv")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # A yes/no column said as an adjective keeps its yes rows; "not" or "non-" its no rows.
        ("How many urgent tickets are there?", [2.0]),
        ("Which tickets are not urgent?", ["T2", "T3", "T5"]),
        ("How many non-urgent tickets were logged?", [3.0]),
        # The plural of a cell: "the engineers" are the rows whose Owner role is Engineer.
        ("How many hours did the engineers log in total?", [17.0]),
        # A status still awaited: "Pending" answers "still awaiting".
        ("Which ticket is still awaiting a decision?", ["T2"]),
    ],
)
def test_a_team_s_words_for_its_cells_keep_their_rows(tickets, question, values) -> None:
    assert followed(question, tickets)[0].result.values == values


def test_a_word_is_matched_to_its_singular_not_to_a_longer_word() -> None:
    # "bill" is no "Billing": the total of the month, not the Billing row's.
    costs = _table([["Service", "Jan"], ["Billing", "20"], ["Search", "30"]], "costs.xlsx")
    best = followed("What was the total cloud bill in January?", costs)[0]
    assert best.program.op == "sum" and best.result.values == [50.0]


@pytest.fixture(scope="module")
def couriers():
    return _table(COURIERS, "couriers.docx › Couriers")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # An amount of time compared with a column of durations, in one unit whatever each says.
        ("Which couriers deliver within an hour?", ["Ana", "Cleo", "Dev"]),
        ("Which couriers take more than 50 minutes?", ["Ben", "Dev"]),
        ("Which couriers deliver in under two hours?", ["Ana", "Cleo", "Dev"]),
    ],
)
def test_an_amount_of_time_compared_keeps_every_row_within_it(couriers, question, values) -> None:
    best = followed(question, couriers)[0]
    assert best.program.op == "values" and best.result.values == values
    # The words of the amount are the table's: a column holds amounts of time.
    assert relevance(question, couriers) >= 0.5


def test_the_fastest_of_a_time_is_its_smallest_and_a_compound_names_its_last_word() -> None:
    partners = _table(PARTNERS, "delivery.pptx › Delivery partners")
    for question, values in (
        ("Which delivery partner is the quickest on average?", ["Parcelo"]),
        ("Which delivery partner is the slowest?", ["Roadrun"]),
    ):
        best = followed(question, partners)[0]
        assert best.program.target == 0 and best.result.values == values, question
    # Only when the first noun names no column of names: "which supplier contracts" are Suppliers.
    contracts = _table(
        [["Supplier", "Contract end", "Owner"], ["Kora", "2027-01-31", "Ana"],
         ["Lumo", "2026-06-30", "Ben"], ["Mira", "2026-09-30", "Ana"]],
        "contracts.csv",
    )  # fmt: skip
    best = followed("Which supplier contracts does Ana own?", contracts)[0]
    assert best.result.values == ["Kora", "Mira"]


@pytest.fixture(scope="module")
def visits():
    return _table(VISITS, "clinics.xlsx › Visits 2024")


@pytest.mark.parametrize(
    ("question", "column", "values"),
    [
        ("Which clinic had the most visits in the third quarter?", 3, ["South"]),
        ("Which clinic had the fewest visits in the second quarter?", 2, ["South"]),
    ],
)
def test_a_quarter_said_in_words_names_its_column(visits, question, column, values) -> None:
    best = followed(question, visits)[0]
    assert best.program.key == column and best.result.values == values
    assert relevance(question, visits) >= 0.5


def test_a_year_the_table_is_of_asks_for_the_row_s_total(visits) -> None:
    best = followed("How many visits did South have in 2024?", visits)[0]
    assert best.program.op == "row_sum" and best.result.values == [470.0]
    # Another year is not this table's: no total along the row.
    other = followed("How many visits did South have in 2023?", visits)
    assert all(c.program.op != "row_sum" for c in other)


def test_an_aggregate_said_by_name_is_computed_not_the_row_with_the_least() -> None:
    exams = _table(EXAMS, "exams.csv")
    found = followed("What was the average exam mark?", exams)
    assert all(c.program.op not in ("argmax", "argmin") for c in found)
    assert explained("What was the average exam mark?", found).result.values == [70.0]
