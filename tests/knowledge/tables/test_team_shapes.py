"""Shapes of a team's tables that WikiTableQuestions, on which the parser was trained, seldom
has: one column per period ("Jan", "Q3"), a plan beside what happened ("Target", "Achieved"),
an empty cell for what is not done yet, a rota by day, and a table named for its rows
("releases.md" headed Version, Released, ...). Each is asked in more than one phrasing, over
tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.wording import in_words

SALES = [
    ["Region", "Jan", "Feb", "Mar", "Apr", "Notes"],
    ["North", "120", "135", "150", "70", "new rep in March"],
    ["South", "90", "240", "95", "105", ""],
    ["West", "200", "210", "190", "230", "largest account"],
]


@pytest.fixture(scope="module")
def sales():
    return grid(table_from_rows(SALES[0], SALES[1:]), "sales.xlsx › Units")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # A month said in full names the column headed by its first three letters.
        ("Which region sold the most in February?", ["South"]),
        ("Which region had the lowest sales in April?", ["North"]),
        ("How many units did North sell in March?", ["150"]),
    ],
)
def test_a_month_said_in_full_names_its_shortened_column(sales, question, values) -> None:
    assert followed(question, sales)[0].result.values == values


@pytest.mark.parametrize(
    ("question", "op", "values"),
    [
        # Along the named row over the periods it names, first to last, or over every period.
        ("How many units did West sell in total from February to April?", "row_sum", [630.0]),
        ("What were North's total sales altogether?", "row_sum", [475.0]),
        ("What did South sell on average per month?", "row_avg", [132.5]),
    ],
)
def test_a_total_or_an_average_along_a_row_adds_its_period_columns(
    sales, question, op, values
) -> None:
    best = followed(question, sales)[0]
    assert best.program.op == op and best.result.values == values


def test_a_total_of_one_period_or_of_no_named_row_adds_a_column(sales) -> None:
    # One month named: that column's total over the rows; no row named: no row's span.
    best = followed("What were the total sales in January?", sales)[0]
    assert best.program.op == "sum" and best.result.values == [410.0]
    for question in (
        "What were the total sales from January to March?",
        "How many regions are there?",
    ):
        assert all(c.program.op not in ("row_sum", "row_avg") for c in followed(question, sales))


def test_a_span_is_read_in_words(sales) -> None:
    best = followed("How many units did West sell in total from February to April?", sales)[0]
    assert in_words(best.program, sales, best.result) == (
        "Added Feb to Apr of 1 row of sales.xlsx › Units where Region is West"
    )


PROJECTS = [
    ["Project", "Budget (EUR)", "Spent (EUR)", "Staff", "Target (%)", "Done (%)"],
    ["Atlas", "50,000", "62,000", "4", "100", "100"],
    ["Borealis", "80,000", "71,500", "6", "100", "85"],
    ["Cirrus", "30,000", "30,000", "2", "100", "60"],
    ["Delta", "45,000", "47,200", "3", "100", "100"],
]


@pytest.fixture(scope="module")
def projects():
    return grid(table_from_rows(PROJECTS[0], PROJECTS[1:]), "projects.md")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # What happened against the plan the question names, in the plan's unit.
        ("Which projects went over budget?", ["Atlas", "Delta"]),
        ("Which projects exceeded their budget?", ["Atlas", "Delta"]),
        ("Which projects did not exceed the budget?", ["Borealis", "Cirrus"]),
        ("How many projects stayed under budget?", [1.0]),
        ("Which projects missed the target?", ["Borealis", "Cirrus"]),
        ("How many projects met their target?", [2.0]),
    ],
)
def test_a_row_s_amount_is_compared_with_the_plan_beside_it(projects, question, values) -> None:
    best = followed(question, projects)[0]
    assert best.result.values == values, best.program


def test_the_plan_is_compared_only_with_a_column_in_its_unit(projects) -> None:
    best = followed("Which projects went over budget?", projects)[0]
    assert in_words(best.program, projects, best.result) == (
        "Read Project of 2 rows of projects.md where Spent (EUR) > Budget (EUR)"
    )
    # Staff has no unit of its own: no column measures it against the budget.
    assert all(
        c.program.conditions[:1] == () or c.program.conditions[0].op not in ("above", "below")
        for c in followed("Which projects have more staff than budget?", projects)
    )


TICKETS = [
    ["Ticket", "Opened", "Closed", "Agent"],
    ["T-1", "2026-03-02", "2026-03-04", "Lena"],
    ["T-2", "2026-03-05", "", "Omar"],
    ["T-3", "2026-03-09", "2026-03-09", "Lena"],
    ["T-4", "2026-03-12", "-", "Ravi"],
]


@pytest.fixture(scope="module")
def tickets():
    return grid(table_from_rows(TICKETS[0], TICKETS[1:]), "tickets.csv")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # Not done yet: the rows whose cell for it is empty (or says no value).
        ("Which tickets have not been closed yet?", ["T-2", "T-4"]),
        ("Which tickets haven't been closed?", ["T-2", "T-4"]),
        ("How many tickets are still not closed?", [2.0]),
    ],
)
def test_what_is_not_done_yet_is_the_rows_with_an_empty_cell(tickets, question, values) -> None:
    best = followed(question, tickets)[0]
    assert best.result.values == values, best.program
    assert "Closed is empty" in in_words(best.program, tickets, best.result)


ROTA = [
    ["Week of", "Lead", "Backup"],
    ["2 Mar 2026", "Ines", "Tomas"],
    ["9 Mar 2026", "Tomas", "Greta"],
    ["16 Mar 2026", "Greta", "Ines"],
]


@pytest.mark.parametrize(
    "question",
    [
        "Who leads the week of 9 March?",
        "Who is the lead on March 9th?",
        "Who leads on the 9th of March?",
    ],
)
def test_a_day_said_without_its_year_finds_the_row_of_that_day(question) -> None:
    rota = grid(table_from_rows(ROTA[0], ROTA[1:]), "rota.docx")
    best = followed(question, rota)[0]
    assert best.result.values == ["Tomas"], best.program
    assert any(c.op == "day" for c in best.program.conditions)


RELEASES = [
    ["Version", "Released", "Fixes", "Owner"],
    ["1.8.0", "2026-01-20", "12", "Mara"],
    ["1.9.0", "2026-02-24", "31", "Jonas"],
    ["2.0.0", "2026-03-30", "8", "Mara"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # The rows are releases (the table's name says so): the first column names each.
        ("Which release had the most fixes?", ["1.9.0"]),
        ("Which release had the fewest fixes?", ["2.0.0"]),
    ],
)
def test_a_question_naming_the_table_s_rows_is_answered_by_its_first_column(
    question, values
) -> None:
    releases = grid(table_from_rows(RELEASES[0], RELEASES[1:]), "releases.md › Releases")
    assert followed(question, releases)[0].result.values == values


def test_of_programs_computing_one_answer_the_one_the_question_asks_for_explains_it() -> None:
    from knowledge.tables.parser import Candidate
    from knowledge.tables.programs import Condition, Program, run
    from knowledge.tables.rules import explained

    rota = grid(table_from_rows(ROTA[0], ROTA[1:]), "rota.docx")
    on_day = (Condition(0, "day", 309, "9 march"),)
    first = Program("first", target=1, conditions=on_day)
    lookup = Program("values", target=1, conditions=on_day)
    found = [Candidate(p, run(p, rota), {}, score) for p, score in ((first, 0.6), (lookup, 0.3))]
    # No word asks for the first of the rows: the lookup reads the same cell and explains it.
    assert explained("Who leads the week of 9 March?", found).program.op == "values"
    # "First" is asked: the likeliest program stands.
    assert explained("Who led first in the week of 9 March?", found).program.op == "first"


def test_a_thing_asked_that_only_another_table_names_is_not_this_table_s_to_answer() -> None:
    from knowledge.tables.asked import asked_of_another_table

    depots = grid(
        table_from_rows(["Depot", "Manager", "Staff"], [["Leeds", "Ana Reis", "40"]]), "depots.csv"
    )
    suppliers = grid(
        table_from_rows(["Supplier", "Service", "Depot"], [["Brightclean", "Cleaning", "York"]]),
        "suppliers.csv",
    )
    # The depots' table has no supplier; the suppliers' table is headed Supplier.
    assert asked_of_another_table("Which supplier cleans the Leeds depot?", depots, [suppliers])
    assert asked_of_another_table("What supplier serves Leeds?", depots, [depots, suppliers])
    # A thing this table names (a column, or its rows), or that no table names, is its own.
    assert not asked_of_another_table("Which manager runs Leeds?", depots, [suppliers])
    assert not asked_of_another_table("Which depot has the most staff?", depots, [suppliers])
    assert not asked_of_another_table("Which vendor cleans Leeds?", depots, [suppliers])
    assert not asked_of_another_table("Which supplier cleans Leeds?", suppliers, [depots])
