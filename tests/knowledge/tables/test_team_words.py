"""Words a team says of its tables that the cells say otherwise: a plural of a cell ("the
engineers"), a yes/no column said as an adjective ("urgent tickets"), a status that is still
awaited ("Pending"), an amount of time compared ("within an hour"), the fastest of a time, a
quarter said in words ("the third quarter"), a table's year ("in 2024" of "Visits 2024"), a
compound noun ("which delivery partner") and an aggregate said by name ("the average mark").
Each is asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.cells import DATE
from knowledge.tables.change import period_total
from knowledge.tables.choice import TableChoice
from knowledge.tables.follows import followed, follows_the_asked_direction
from knowledge.tables.parser import Candidate
from knowledge.tables.programs import Program, run
from knowledge.tables.rules import (
    asks_for_its_operation,
    explained,
    is_lookup,
    relevance,
    standing,
    table_words,
    unaccounted,
)
from knowledge.tables.steps import joined_step
from knowledge.tables.wording import in_words

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


def test_a_hyphened_flag_is_said_with_a_space_too() -> None:
    staff = _table(
        [["Name", "Full-time", "Hours"], ["Ana", "Yes", "37"], ["Ben", "No", "20"],
         ["Cleo", "Yes", "37"]],
        "staff.csv",
    )  # fmt: skip
    assert followed("How many people work full time?", staff)[0].result.values == [2.0]
    assert followed("Who is not full time?", staff)[0].result.values == ["Ben"]


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


JOBS = [
    ["Job", "Site", "Priority", "Certified fitter", "Reported"],
    ["J-1", "Quay", "High", "Yes", "2025-01-09"],
    ["J-2", "Mill", "Low", "Yes", "2025-02-03"],
    ["J-3", "Quay", "High", "No", "2025-02-20"],
    ["J-4", "Dock", "Medium", "Yes", "2025-03-14"],
    ["J-5", "Mill", "High", "Yes", "2025-03-30"],
]


def _first(question: str, table) -> TableChoice:
    best = followed(question, table)[0]
    return TableChoice(0, 0, "jobs.xlsx", table, best, relevance(question, table))


def test_a_cell_said_with_its_column_s_name_as_one_word_keeps_its_rows() -> None:
    jobs = _table(JOBS, "jobs.xlsx › Jobs")
    assert followed("How many high-priority jobs are there?", jobs)[0].result.values == [3.0]
    best = followed("Which high-priority jobs were reported in March?", jobs)[0]
    assert best.result.values == ["J-5"]
    best = followed("Which jobs are not high-priority?", jobs)[0]
    assert best.result.values == ["J-2", "J-4"]
    # Only of the column the second word names: "high-speed" is no Priority.
    conditions = followed("Which high-speed jobs are at Quay?", jobs)[0].program.conditions
    assert all(condition.said != "high-speed" for condition in conditions)


def test_the_rows_a_yes_or_no_column_keeps_are_no_lookup_however_few() -> None:
    jobs = _table(JOBS, "jobs.xlsx › Jobs")
    flagged = _first("Which jobs did not have a certified fitter?", jobs)
    assert flagged.best.result.values == ["J-3"] and not is_lookup(flagged)
    # A row named by its own cell still is.
    assert is_lookup(_first("When was J-4 reported?", jobs))


def test_a_team_speaking_of_itself_says_nothing_of_a_table() -> None:
    jobs = _table(JOBS, "jobs.xlsx › Jobs")
    assert relevance("How many jobs do we have at Mill?", jobs) == 1.0
    assert "our" not in unaccounted(
        "When was our job J-2 reported?", _first("When was J-2 reported?", jobs)
    )


MEMBERS = [
    ["Member", "Joined", "Contract end"],
    ["Ada", "2019-04-01", "2026-03-31"],
    ["Ben", "2015-09-15", "2025-12-31"],
    ["Cas", "2022-01-10", "ongoing"],
    ["Dee", "2020-06-30", "2027-06-30"],
]


@pytest.mark.parametrize(
    ("question", "key", "op"),
    [
        ("Which member has been with us the longest?", 1, "argmin"),  # the earliest Joined
        ("Which member joined the shortest time ago?", 1, "argmax"),
        ("Whose contract runs the longest?", 2, "argmax"),  # the latest Contract end
    ],
)
def test_the_longest_since_a_date_is_its_earliest_and_to_an_end_its_latest(
    question, key, op
) -> None:
    members = _table(MEMBERS, "members.csv")
    # An end not set yet ("ongoing") holds no date: the column is still one of dates.
    assert members.columns[2].type == DATE
    for asked in ("argmax", "argmin"):
        program = Program(asked, target=0, key=key)
        candidate = Candidate(program, run(program, members), {}, 0.5)
        assert follows_the_asked_direction(question, members, candidate) is (asked == op)
    # A date that neither begins nor ends anything says no direction of its own.
    left = _table([["Member", "Left"], ["Ada", "2020-01-01"], ["Ben", "2024-05-01"]], "left.csv")
    program = Program("argmin", target=0, key=1)
    candidate = Candidate(program, run(program, left), {}, 0.5)
    assert not follows_the_asked_direction("Who stayed the longest?", left, candidate)


def test_an_open_end_is_a_value_in_a_column_that_is_no_column_of_dates() -> None:
    projects = _table(
        [["Project", "Status"], ["A", "Ongoing"], ["B", "Completed"], ["C", "Completed"]],
        "projects.csv",
    )
    assert followed("What is the status of project A?", projects)[0].result.values == ["Ongoing"]


def test_a_join_is_asked_only_by_a_word_this_table_does_not_account_for() -> None:
    visits = _table(VISITS, "clinics.xlsx › Visits 2024")
    staff = _table(
        [["Clinic", "Visits per nurse", "Head nurse"], ["North", "40", "Rui"],
         ["South", "35", "Lia"], ["East", "52", "Tom"]],
        "clinics.xlsx › Staff 2024",
    )  # fmt: skip

    def joined(question: str):
        choice = TableChoice(0, 0, "clinics.xlsx", visits, followed(question, visits)[0], 1.0)
        choice.others = [(1, staff)]
        step = joined_step(question, choice)
        return step.header if step else None

    assert joined("Who is the head nurse of the clinic with the most visits in Q2?") == "Head nurse"
    # "Visits" and "2024" are this table's (a header, its label): no Visits per nurse.
    assert joined("Which clinic had the most visits in 2024?") is None
    # "Which clinic" read from Clinic asks for the clinic, whatever other words the question says.
    assert joined("Which clinic had the most visits in Q2 under its head nurse?") is None
    assert joined("Which head nurse runs the clinic with the most visits in Q2?") == "Head nurse"
    assert joined("Which clinic's head nurse had the most visits in Q2?") == "Head nurse"


def test_the_total_of_the_column_a_how_many_names_stands_before_a_count_of_rows() -> None:
    # The costs' caption names the practice: its rows are no vets, whatever the ranker's count.
    clinics = _table(
        [["Clinic", "Town", "Vets"], ["North", "Ashby", "4"], ["South", "Dunmore", "2"],
         ["East", "Ashby", "3"]],
        "clinics.xlsx › Clinics",
    )  # fmt: skip
    costs = _table(
        [["Clinic", "Rent", "Energy"], ["North", "12000", "3100"], ["South", "9000", "2800"],
         ["East", "8000", "2500"]],
        "costs.pdf › Harbour Vets - Running costs 2025 (GBP)",
    )  # fmt: skip

    def stands(question: str, program: Program, table, confidence: float, vote: float):
        return standing(_chosen(question, program, table, confidence, vote), question)

    added = Program("sum", key=2)
    counted = Program("count")
    question = "How many vets do we employ in total?"
    assert stands(question, added, clinics, 0.3, 0.4) > stands(question, counted, costs, 0.9, 0.6)
    # A count of what the rows are is no total of a column.
    question = "How many clinics are in Ashby?"
    assert stands(question, added, clinics, 0.3, 0.4) < stands(question, counted, costs, 0.9, 0.6)


def _chosen(question: str, program: Program, table, confidence: float, vote: float):
    """A table's choice of this program, with the judge's confidence and the table's vote."""
    found = Candidate(program, run(program, table), {}, 0.5)
    choice = TableChoice(0, 0, "", table, found, relevance(question, table))
    choice.confidence, choice.vote = confidence, vote
    return choice


def test_a_total_that_leaves_a_word_of_another_table_gives_way_to_its_count() -> None:
    departments = _table(
        [["Department", "Employees"], ["Sales", "12"], ["Support", "8"]], "hr.xlsx › Departments"
    )
    staff = _table(
        [["Name", "Department", "Joined"], ["Ana", "Sales", "2023"], ["Ben", "Support", "2021"],
         ["Cleo", "Sales", "2023"]],
        "hr.xlsx › Staff",
    )  # fmt: skip
    question = "How many employees joined in 2023?"
    total = _chosen(question, Program("sum", key=1), departments, 0.3, 0.3)
    count = TableChoice(1, 0, "", staff, followed(question, staff)[0], relevance(question, staff))
    count.confidence, count.vote = 0.9, 0.7
    assert count.best.result.values == [2.0]
    # "joined" is the staff sheet's header: the departments' total leaves it unsaid.
    assert standing(total, question, table_words(staff)) < standing(count, question)
    assert standing(total, question) > standing(count, question)  # without the other's words


def test_a_table_ordered_on_the_amount_the_question_names_stands_before_a_likelier_one() -> None:
    question = "Who is the head nurse of the clinic with the most visits?"
    clinics = _table(
        [["Clinic", "Visits", "Beds"], ["North", "490", "12"], ["South", "470", "30"],
         ["East", "505", "18"]],
        "clinics.xlsx › Clinics",
    )  # fmt: skip
    nurses = _table(
        [["Clinic", "Head nurse", "Nurses"], ["North", "Rui", "9"], ["South", "Lia", "12"],
         ["East", "Tom", "7"]],
        "nurses.docx › Head nurses",
    )  # fmt: skip
    ordered = TableChoice(0, 0, "clinics.xlsx", clinics, followed(question, clinics)[0], 1.0)
    ordered.confidence, ordered.vote = 0.5, 0.1
    other = TableChoice(1, 1, "nurses.docx", nurses, followed(question, nurses)[0], 1.0)
    other.confidence, other.vote = 0.9, 0.9
    assert ordered.best.result.values == ["East"]
    assert standing(ordered, question) > standing(other, question)


def test_a_quarter_or_a_half_of_a_sheet_by_month_adds_its_months() -> None:
    sales = _table(
        [["Region", "January", "February", "March", "April", "May", "June"],
         ["North", "10", "12", "11", "9", "14", "13"],
         ["South", "20", "18", "22", "25", "19", "21"]],
        "sales.xlsx › Sales by month",
    )  # fmt: skip
    for question, values in (
        ("How much did North sell in the second quarter?", [36.0]),
        ("How many units did South sell in the first quarter?", [60.0]),
        ("How much did North sell in the first half?", [69.0]),
        ("How much did South sell in Q1?", [60.0]),
    ):
        best = followed(question, sales)[0]
        assert best.program.op == "row_sum" and best.result.values == values, question
    # A quarter whose months the sheet does not hold is no span of it.
    assert all(
        c.program.op != "row_sum"
        for c in followed("How much did North sell in the third quarter?", sales)
    )


CLASSES = [
    ["Class", "Level", "Fee", "Status", "Saturday", "Places"],
    ["Pottery", "Beginner", "Free", "Running", "10:00–12:00", "12"],
    ["Life drawing", "Advanced", "£8", "Running", "Closed", "10"],
    ["Printmaking", "Beginner", "£5", "Cancelled", "14:00–16:00", "8"],
    ["Weaving", "Beginner", "Free", "Running", "Closed", "6"],
    ["Sculpture", "Advanced", "Free", "Cancelled", "Closed", "9"],
]


@pytest.fixture(scope="module")
def classes():
    return _table(CLASSES, "classes.csv")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # Every cell named whole keeps its rows: the free classes that are running.
        ("How many free classes are running?", [2.0]),
        # "Open" on a day the table has a column for: any cell but Closed.
        ("Which classes are open on Saturdays?", ["Pottery", "Printmaking"]),
        # "How many <amount>" naming no row: the amount of every row, not one row's.
        ("How many places do the classes offer?", [45.0]),
    ],
)
def test_a_team_s_question_keeps_the_rows_it_names(classes, question, values) -> None:
    assert followed(question, classes)[0].result.values == values


def test_cells_offered_one_or_the_other_are_not_kept_together(classes) -> None:
    # "Free or running" is no count of the free classes that are running (2).
    best = followed("How many classes are free or running?", classes)[0]
    assert best.program.op == "count" and len(best.program.conditions) < 2


def test_an_amount_per_something_is_what_its_first_words_measure() -> None:
    rota = _table(
        [["Volunteer", "Hours per week"], ["Ana", "6"], ["Ben", "4"], ["Cy", "9"]], "rota.md"
    )
    best = followed("How many hours do the volunteers give?", rota)[0]
    assert best.program.op == "sum" and best.result.values == [19.0]


def test_a_quarter_of_a_sheet_by_month_is_the_table_s() -> None:
    sales = _table(
        [["Region", "Apr", "May", "Jun"], ["North", "9", "14", "13"], ["South", "25", "19", "21"]],
        "sales.xlsx › Sales",
    )
    assert relevance("How much did North sell in the second quarter?", sales) == 1.0
    assert relevance("How much did North sell in the third quarter?", sales) < 1.0


def test_among_many_tables_a_named_order_stands_only_with_a_share_of_the_votes() -> None:
    # The ordering on the named amount stands before a better fit only for a table with some
    # share of the votes: among hundreds, some table's header says what "most" names.
    question = "Who is the head nurse of the clinic with the most visits?"
    clinics = _table([["Clinic", "Visits"], ["North", "490"], ["East", "505"]], "clinics.xlsx")
    nurses = _table(
        [["Clinic", "Head nurse", "Nurses"], ["North", "Rui", "12"], ["East", "Tom", "30"]],
        "nurses.docx",
    )
    ordered = TableChoice(0, 0, "clinics.xlsx", clinics, followed(question, clinics)[0], 1.0)
    other = TableChoice(1, 1, "nurses.docx", nurses, followed(question, nurses)[0], 1.0)
    ordered.confidence, other.confidence, other.vote = 0.5, 0.9, 0.9
    ordered.vote = 0.1
    assert standing(ordered, question) > standing(other, question)
    ordered.vote = 0.01
    assert standing(ordered, question) < standing(other, question)


SALES_BY_MONTH = [
    ["Region", "January", "February", "March", "April", "May", "June"],
    ["North", "10", "12", "11", "9", "14", "13"],
    ["South", "20", "18", "22", "25", "19", "21"],
    ["West", "7", "9", "9", "6", "8", "8"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Which month did North sell the most?", ["May"]),
        ("In which month were South's sales lowest?", ["February"]),
        ("When was South busiest?", ["April"]),
        ("Which month of the first quarter was busiest for North?", ["February"]),
    ],
)
def test_the_period_with_the_most_of_a_named_row_is_its_column(question, values) -> None:
    sales = _table(SALES_BY_MONTH, "sales.xlsx › Sales by month")
    best = followed(question, sales)[0]
    assert best.program.op in ("row_argmax", "row_argmin"), question
    assert best.result.values == values, question


def test_the_period_with_the_most_is_read_in_words() -> None:
    sales = _table(SALES_BY_MONTH, "sales.xlsx › Sales by month")
    best = followed("Which month did North sell the most?", sales)[0]
    assert in_words(best.program, sales, best.result) == (
        "Compared January to June of 1 row of sales.xlsx › Sales by month where Region is "
        "North: the column with the most"
    )


def test_no_period_is_the_most_of_a_row_without_one_row_or_one_most() -> None:
    sales = _table(SALES_BY_MONTH, "sales.xlsx › Sales by month")
    # No row named: the months of every region are no one row's.
    found = followed("Which month had the most sales?", sales)
    assert all(c.program.op not in ("row_argmax", "row_argmin") for c in found)
    # Two months hold West's most: neither is the month.
    found = followed("Which month did West sell the most?", sales)
    assert all(c.program.op not in ("row_argmax", "row_argmin") for c in found)


def test_an_amount_is_compared_with_the_column_of_its_own_unit() -> None:
    # "Price" is in pounds, "On hand" and "Minimum" are counts: the stock below its minimum.
    stock = _table(
        [["Item", "On hand", "Minimum", "Price"], ["Gloves", "40", "50", "£2.50"],
         ["Masks", "120", "100", "£0.30"], ["Gowns", "8", "10", "£4.00"]],
        "stock.html",
    )  # fmt: skip
    best = followed("Which items are below their minimum?", stock)[0]
    assert best.result.values == ["Gloves", "Gowns"]


def test_the_first_of_its_kind_to_do_something_is_the_earliest_in_time() -> None:
    # "The first student to enrol" is the earliest Enrolled, not the fewest Credits.
    students = _table(
        [["Student", "Course", "Enrolled", "Credits"], ["Ines", "Art", "2019-04-02", "30"],
         ["Jon", "Law", "2016-09-12", "60"], ["Kai", "Art", "2021-01-20", "20"],
         ["Lea", "Law", "2018-06-30", "45"]],
        "students.csv",
    )  # fmt: skip
    best = followed("Who was the first student to enrol?", students)[0]
    assert best.result.values == ["Jon"]


@pytest.mark.parametrize(
    "question",
    [
        "Which month was busier for North, January or March?",  # two offered: no span of months
        "In which months did North sell 12 or more?",  # several asked for
        "What is the most North sold in a month?",  # an amount, not a month
        "Which year did North sell the most?",  # the columns are months
        "Which month before May was busiest for North?",  # one period named: no span
    ],
)
def test_a_period_is_the_most_of_a_row_only_when_one_is_asked_for(question) -> None:
    sales = _table(SALES_BY_MONTH, "sales.xlsx › Sales by month")
    assert all(c.program.op not in ("row_argmax", "row_argmin") for c in followed(question, sales))


def test_a_quarter_that_totals_months_is_no_month() -> None:
    sales = _table(
        [["Region", "Jan", "Feb", "Mar", "Q1", "Apr", "May", "Jun", "Q2", "Total"],
         ["North", "10", "12", "11", "33", "9", "14", "13", "36", "69"],
         ["South", "20", "18", "22", "60", "25", "19", "21", "65", "125"]],
        "sales.xlsx › Sales",
    )  # fmt: skip
    # The months and the quarters that total them are no one span: North's Total answers.
    best = followed("What did North sell in total?", sales)[0]
    assert best.result.values == ["69"]
    found = followed("Which month was busiest for North?", sales)
    assert all(c.result.values != ["Q2"] for c in found)


def test_a_column_of_periods_makes_its_kind_the_table_s_word() -> None:
    quarters = _table([["Hotel", "Q1", "Q2", "Q3"], ["Quay", "64%", "78%", "91%"]], "occupancy")
    assert relevance("In which quarter was Quay fullest?", quarters) > relevance(
        "In which week was Quay fullest?", quarters
    )


def test_a_rank_is_no_thing_done_first() -> None:
    # "The first pick" is Pick 1, whatever the table's dates; "the first player to sign" is the
    # earliest Signed.
    draft = _table(
        [["Pick", "Player", "Team", "Signed"], ["3", "Ana", "Reds", "2020-05-01"],
         ["1", "Ben", "Blues", "2020-06-11"], ["2", "Cal", "Greens", "2020-04-02"]],
        "draft.xlsx",
    )  # fmt: skip
    assert followed("Who was the first pick?", draft)[0].result.values == ["Ben"]
    assert followed("Which team had the first pick?", draft)[0].result.values == ["Blues"]
    assert followed("Who was the first player to sign?", draft)[0].result.values == ["Cal"]


def test_an_amount_without_a_unit_is_compared_with_the_one_that_has_one() -> None:
    reps = _table(
        [["Rep", "Sales", "Quota"], ["Ana", "52,000", "$50,000"], ["Ben", "41,000", "$45,000"],
         ["Cal", "60,000", "$55,000"]],
        "reps.xlsx",
    )  # fmt: skip
    assert followed("Which reps exceeded their quota?", reps)[0].result.values == ["Ana", "Cal"]


def test_a_job_not_done_is_still_open() -> None:
    jobs = _table(
        [["Job", "Area", "Reported", "Fixed"], ["J-1", "Lift", "2025-02-03", "2025-02-05"],
         ["J-2", "Boiler", "2025-11-02", ""], ["J-3", "Roof", "2025-04-09", "2025-04-30"],
         ["J-4", "Lights", "2025-07-21", ""]],
        "jobs.md",
    )  # fmt: skip
    best = followed("Which jobs are still open?", jobs)[0]
    assert best.result.values == ["J-2", "J-4"]
    assert followed("How many jobs are outstanding?", jobs)[0].result.values == [2.0]


def test_how_much_is_an_amount_never_a_number_of_rows() -> None:
    contracts = _table(
        [["Supplier", "Service", "Annual fee"], ["Kettle Co", "Catering", "€12,500"],
         ["Brightline", "Cleaning", "€8,000"], ["Porta", "Security", "€20,000"]],
        "contracts.docx",
    )  # fmt: skip
    question = "How much do we pay our suppliers every year in total?"
    best = explained(question, followed(question, contracts))
    assert best.program.op == "sum" and best.result.values == [40500.0]


def test_the_period_asked_for_stands_before_a_likelier_table_s_lookup() -> None:
    question = "In which quarter was Quay busiest?"
    occupancy = _table([["Hotel", "Q1", "Q2", "Q3"], ["Quay", "64", "78", "91"],
                        ["Dunes", "38", "74", "96"]], "hotels.xlsx › Occupancy")  # fmt: skip
    revenue = _table([["Hotel", "Budget", "Actual"], ["Quay", "4200", "4450"],
                      ["Dunes", "5100", "4880"]], "revenue.pdf")  # fmt: skip
    period = TableChoice(0, 0, "hotels.xlsx", occupancy, followed(question, occupancy)[0], 1.0)
    lookup = TableChoice(1, 1, "revenue.pdf", revenue, followed(question, revenue)[0], 1.0)
    period.confidence, period.vote, lookup.confidence, lookup.vote = 0.5, 0.15, 0.4, 0.6
    assert period.best.result.values == ["Q3"]
    assert standing(period, question) > standing(lookup, question)


def test_how_much_in_total_of_a_table_s_only_money_is_its_sum() -> None:
    repairs = _table(
        [["Job", "Area", "Hours", "Cost (€)"], ["R-1", "Roof", "12", "1,200"],
         ["R-2", "Lift", "3", "450"], ["R-3", "Roof", "6", "800"]],
        "repairs.md",
    )  # fmt: skip
    best = followed("How much did we spend on repairs altogether?", repairs)[0]
    assert best.program.op == "sum" and best.result.values == [2450.0]
    # Another amount asked for, or one row named: not the money's total.
    best = followed("How much time did the repairs take in total?", repairs)[0]
    assert best.program.key != 3
    best = followed("How much did we spend in total on the Roof?", repairs)[0]
    assert best.result.values != [2450.0]


HOURS_BY_MONTH = [
    ["Project", "Jan", "Feb", "Mar", "Apr"],
    ["Harbour", "420", "460", "510", "480"],
    ["Ledger", "300", "340", "360", "290"],
    ["Fleet", "120", "260", "310", "350"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # What the sheet measures (its label), in one month over every row: that month's total.
        ("How many hours did we log across all projects in February?", [1060.0]),
        # A span of one row's months asked with "how many ... from ... to": their total.
        ("How many hours did we log on Ledger from January to April?", [1290.0]),
        # Or with a verb of the amount: "what did ... take from ... through ...".
        ("What did Ledger take us from January through April?", [1290.0]),
    ],
)
def test_how_many_of_what_a_sheet_by_month_measures_adds_it(question, values) -> None:
    hours = _table(HOURS_BY_MONTH, "projects.xlsx › Hours 2026")
    assert explained(question, followed(question, hours)).result.values == values


def test_how_much_of_what_the_rows_name_in_a_month_is_that_month_s_total() -> None:
    roasted = _table(
        [["Coffee", "Jan", "Feb", "Mar"], ["Huila", "410", "380", "450"],
         ["Sidamo", "220", "260", "240"], ["Cerrado", "300", "310", "0"]],
        "roastery.pptx › Kilos roasted per month",
    )  # fmt: skip
    # The month's total over every row, though Coffee, the rows' names, is what is measured.
    question = "How much coffee did we roast in February, all coffees together?"
    assert period_total(question, roasted).result.values == [950.0]
    assert explained(question, followed(question, roasted)).result.values == [950.0]
    # "How many" coffees is a count of rows, not kilos.
    assert period_total("How many coffees did we roast in February, all together?", roasted) is None


def test_the_first_quarter_asks_for_no_first_row() -> None:
    costs = _table(
        [["Month", "Energy", "Water"], ["January", "2640", "410"], ["February", "2510", "380"],
         ["March", "2290", "450"], ["April", "1980", "470"]],
        "costs.pdf",
    )  # fmt: skip
    first = Program("first", target=1)
    choice = TableChoice(0, 0, "", costs, Candidate(first, run(first, costs), {}, 0.5), 1.0)
    assert not asks_for_its_operation("What did energy cost us over the first quarter?", choice)
    assert asks_for_its_operation("What did energy cost us in the first month?", choice)


def test_unpaid_keeps_the_rows_a_paid_column_says_no_of() -> None:
    invoices = _table(
        [["Invoice", "Client", "Amount", "Paid"], ["I-1", "Vigo", "300", "Yes"],
         ["I-2", "Norte", "200", "No"], ["I-3", "Vigo", "100", "No"]],
        "invoices.pdf",
    )  # fmt: skip
    assert followed("How many invoices are unpaid?", invoices)[0].result.values == [2.0]


def test_which_thing_is_no_date_of_it() -> None:
    releases = _table(
        [["Version", "Released", "Bug fixes"], ["4.0", "2026-01-20", "14"],
         ["4.1", "2026-02-17", "21"], ["4.2", "2026-03-24", "8"]],
        "releases.pptx",
    )  # fmt: skip
    found = followed("Which release had the most bug fixes?", releases)
    assert found[0].result.values != ["2026-02-17"]
    found = followed("On which date was the release with the most bug fixes?", releases)
    assert any(c.result.values == ["2026-02-17"] for c in found)


def test_still_open_is_no_negation_nor_a_cell() -> None:
    jobs = _table(
        [["Job", "Status", "Fixed"], ["J-1", "Open", "2025-02-05"], ["J-2", "Closed", ""],
         ["J-3", "Open", ""], ["J-4", "Closed", "2025-04-30"]],
        "jobs.md",
    )  # fmt: skip
    # "Open" is a Status here: the rows that say so, not the empty Fixed dates.
    assert followed("Which jobs are open?", jobs)[0].result.values == ["J-1", "J-3"]
    repairs = _table(
        [["Job", "Fixed"], ["J-1", "2025-02-05"], ["J-2", ""], ["J-3", "2025-04-30"]], "jobs.md"
    )
    found = followed("Which jobs are not outstanding?", repairs)
    assert all(c.result.values != ["J-2"] for c in found)


def test_the_first_of_something_is_the_earliest_not_the_least_amount() -> None:
    managers = _table(
        [["Manager", "Hotel", "Started", "Staff"], ["Ana", "Quay", "2015", "40"],
         ["Ben", "Quay", "2012", "55"], ["Cal", "Dunes", "2018", "20"],
         ["Dee", "Quay", "2020", "35"]],
        "managers.xlsx",
    )  # fmt: skip
    assert followed("Who was the first manager of Quay?", managers)[0].result.values == ["Ben"]


def test_how_much_in_total_with_a_condition_is_no_total_of_every_row() -> None:
    invoices = _table(
        [["Invoice", "Issued", "Amount"], ["I-1", "2025-03-02", "€1,000"],
         ["I-2", "2025-03-20", "€2,500"], ["I-3", "2025-04-11", "€400"]],
        "invoices.csv",
    )  # fmt: skip
    question = "How much did we invoice in March in total?"
    assert explained(question, followed(question, invoices)).result.values != [3900.0]


def test_still_open_reads_any_column_of_being_done_the_last_of_several() -> None:
    bugs = _table(
        [["Bug", "Fixed in", "Closed"], ["B1", "4.1", "2026-03-01"], ["B2", "4.2", ""],
         ["B3", "", ""], ["B4", "4.2", "2026-03-09"]],
        "bugs.csv",
    )  # fmt: skip
    assert followed("Which bugs are still open?", bugs)[0].result.values == ["B2", "B3"]
    assert followed("How many bugs are unfixed?", bugs)[0].result.values == [1.0]


def test_two_periods_said_apart_are_no_span() -> None:
    visitors = _table(
        [["Country", "Jan", "Feb", "Mar"], ["Spain", "200", "450", "310"],
         ["Italy", "150", "120", "180"]],
        "visitors.xlsx › Visitors 2025",
    )  # fmt: skip
    found = followed("How many visitors came from Spain in January and March?", visitors)
    assert all(c.program.op != "row_sum" for c in found)


def test_rows_named_by_their_dates_answer_which_with_a_date() -> None:
    sessions = _table(
        [["Session", "Room", "Attendees"], ["2026-01-12", "A", "20"],
         ["2026-02-09", "B", "35"], ["2026-03-16", "A", "28"]],
        "sessions.md",
    )  # fmt: skip
    best = followed("Which session had the most attendees?", sessions)[0]
    assert best.result.values == ["2026-02-09"]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("How many staff are not unpaid?", [1.0]),  # a negation turns "unpaid" back
        ("How many items cost under 5?", [2.0]),  # "under" is no "un" of a column Der
    ],
)
def test_un_is_the_no_of_a_yes_or_no_column_of_four_letters_or_more(question, values) -> None:
    items = _table(
        [["Item", "Paid", "Der", "Cost"], ["A", "Yes", "Yes", "3"], ["B", "No", "No", "4"],
         ["C", "No", "Yes", "9"]],
        "items.csv",
    )  # fmt: skip
    assert followed(question, items)[0].result.values == values


def test_the_first_priority_is_no_time() -> None:
    tasks = _table(
        [["Task", "Priority", "Due"], ["Alpha", "2", "2026-03-01"], ["Beta", "1", "2026-05-01"],
         ["Gamma", "3", "2026-02-01"]],
        "tasks.md",
    )  # fmt: skip
    assert followed("Which task is the first priority?", tasks)[0].result.values == ["Beta"]
