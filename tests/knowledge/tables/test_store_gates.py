"""When the table store's program answers, and when it leaves the question to the passages
(knowledge/tables/rules.py): the checks that need no database."""

from __future__ import annotations

import pytest

from knowledge.tables.asked_time import follows_the_asked_time, follows_the_named_order
from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.choice import TableChoice
from knowledge.tables.follows import (
    follows_the_asked_amount,
    follows_the_asked_direction,
    follows_the_asked_total,
    follows_the_named_doer,
    reads_each_word_once,
)
from knowledge.tables.parser import Candidate, ranked
from knowledge.tables.programs import Program, Result, fold
from knowledge.tables.question import read_question
from knowledge.tables.rules import (
    holds_what_it_orders_by,
    is_lookup,
    relevance,
    unaccounted,
)

HEADERS = ["Site", "Staff", "Opened", "Lead"]
ROWS = [
    ["Bergen", "212", "1998", "Kari Nilsen"],
    ["Gdansk", "64", "2015", "Piotr Nowak"],
    ["Vigo", "38", "2021", "Lucia Vidal"],
]


@pytest.fixture(scope="module")
def sites():
    table = table_from_rows(HEADERS, ROWS)
    return grid(table, "sites.xlsx › Sites")


@pytest.mark.parametrize(
    ("question", "holds"),
    [
        ("Which site has the most staff?", True),
        ("Which site has the highest energy use?", False),  # no energy in the table
        ("Which site is the newest?", True),  # nothing named after the cue
        ("Who leads the site with the fewest staff?", True),
    ],
)
def test_the_table_must_hold_what_the_question_orders_by(sites, question, holds) -> None:
    assert holds_what_it_orders_by(question, sites) is holds


def test_the_first_row_does_not_answer_a_question_that_names_another_order(sites) -> None:
    first = next(c for c in ranked("Which site opened first?", sites) if c.program.op == "first")
    assert not follows_the_named_order("Which site opened first?", sites, first)
    listed = next(
        c for c in ranked("Which site is listed first?", sites) if c.program.op == "first"
    )
    assert follows_the_named_order("Which site is listed first?", sites, listed)


def _choice(sites, program: Program, rows: list[int]) -> TableChoice:
    result = Result(values=[sites.columns[program.target].texts[r] for r in rows], rows=rows)
    from knowledge.tables.parser import Candidate

    return TableChoice(0, 0, "sites.xlsx", sites, Candidate(program, result, {}, 0.5), 1.0)


@pytest.mark.parametrize(
    ("question", "left"),
    [
        ("Who is the lead of the Vigo site?", []),
        ("When was the Vigo site renovated?", ["renovated"]),
        ("Who signed the Vigo lease?", ["signed", "lease"]),
    ],
)
def test_a_lookup_is_read_from_the_table_only_when_it_accounts_for_every_word(
    sites, question, left
) -> None:
    from knowledge.tables.programs import Condition

    program = Program("values", target=3, conditions=(Condition(0, "eq", "vigo", "Vigo"),))
    choice = _choice(sites, program, [2])
    assert is_lookup(choice)
    assert unaccounted(question, choice) == left


MEDALS = grid(
    table_from_rows(
        ["Rank", "Nation", "Gold", "Silver", "Bronze", "Total"],
        [["1", "Kenya", "4", "2", "1", "7"], ["2", "Peru", "1", "3", "0", "4"]],
    ),
    "results.csv",
)


def test_a_word_near_a_header_makes_the_question_the_tables(settings) -> None:
    # "country" is no word of the table, but it means nearly what its header Nation says.
    assert relevance("Which country won the most medals?", MEDALS) >= 0.5
    settings.TABLE_HEADER_COSINE = 1.01  # words of the table only
    assert relevance("Which country won the most medals?", MEDALS) < 0.5


def test_a_name_is_not_near_a_header_nor_another_name(sites) -> None:
    # Names are compared with headers only: "Berlin" is near "Bergen" in meaning, not in the
    # table's words, so a question about the Berlin office is not this table's.
    assert relevance("How many people work in Berlin?", sites) < 0.5
    assert relevance("What is the parental leave policy?", sites) < 0.5


@pytest.mark.parametrize(
    "question",
    [
        "Which site is older, Bergen or Vigo?",
        "How many sites have staff above 50?",
        "How many consecutive sites opened after 2000?",
        "Which site has the largest staff, and is Gdansk bigger than Vigo?",
    ],
)
def test_words_that_compare_or_order_are_asked_not_looked_for_in_the_table(sites, question) -> None:
    # What a program computes is no word the table must hold: "older", "above", "consecutive",
    # "bigger" leave the question as much the table's as its names do.
    assert relevance(question, sites) == 1.0


@pytest.mark.parametrize(
    ("question", "direction"),
    [
        ("Which line had the longest outage?", 1),
        ("Which has more staff, Leeds or York?", 1),
        ("Which site has the fewest staff?", -1),
        ("How many sites have more than 50 staff?", 0),  # a condition, not an order
        ("Which sites have at least 3 leads?", 0),
        ("Which site has the most staff and the least budget?", 0),  # both: left to the ranker
        ("Who leads Bergen?", 0),
    ],
)
def test_the_direction_a_question_asks_for(question, direction) -> None:
    assert read_question(question).direction == direction


def test_a_program_taking_the_smaller_amount_does_not_answer_the_most(sites) -> None:
    found = ranked("Which site has the most staff?", sites)
    smallest = next(c for c in found if c.program.op == "argmin" and c.program.key == 1)
    largest = next(c for c in found if c.program.op == "argmax" and c.program.key == 1)
    assert not follows_the_asked_direction("Which site has the most staff?", sites, smallest)
    assert follows_the_asked_direction("Which site has the most staff?", sites, largest)


def test_a_rank_column_is_left_to_the_ranker() -> None:
    placed = grid(table_from_rows(["Place", "Team"], [["1", "Oslo"], ["2", "Bergen"]]), "cup.csv")
    found = ranked("Which team placed highest?", placed)
    best = next(c for c in found if c.program.op == "argmin" and c.program.key == 0)
    assert follows_the_asked_direction("Which team placed highest?", placed, best)


def _program(question: str, table, op: str, key: int | None):
    return next(c for c in ranked(question, table) if c.program.op == op and c.program.key == key)


@pytest.mark.parametrize(
    ("question", "op", "key", "follows"),
    [
        ("Which plant is the newest?", "argmax", 2, True),  # the latest Opened
        ("Which plant is the newest?", "argmin", 2, False),  # the earliest
        ("Which plant is the newest?", "argmin", 1, False),  # Workers is no time
        ("Which plant is the oldest?", "argmin", 2, True),
        ("Which plant has the most workers?", "argmax", 1, True),  # no time asked
        ("Which plant opened first?", "argmin", 2, True),  # the earliest Opened
        ("Which plant opened first?", "argmax", 2, False),
        ("Which plant opened last?", "argmax", 2, True),
        ("Which plant is first by workers?", "argmax", 1, True),  # Workers is no time
    ],
)
def test_a_time_order_orders_by_a_date_or_a_year(question, op, key, follows) -> None:
    plants = grid(
        table_from_rows(["Plant", "Workers", "Opened"], [["Aveiro", "120", "1998"],
                        ["Braga", "45", "2019"], ["Setubal", "80", "2007"]]),
        "plants.csv",
    )  # fmt: skip
    words = question.lower().rstrip("?").split()
    assert follows_the_asked_time(words, plants, _program(question, plants, op, key)) is follows


def test_a_total_of_an_amount_adds_that_column() -> None:
    offices = grid(
        table_from_rows(["Office", "Budget", "Opened"], [["Oslo", "400", "2001"],
                        ["Riga", "250", "2010"]]),
        "offices.csv",
    )  # fmt: skip
    question = "What is the total budget of the offices?"
    words = question.lower().rstrip("?").split()
    total = next(c for c in ranked(question, offices) if c.program.op == "sum")
    counted = next(c for c in ranked(question, offices) if c.program.op == "count")

    assert total.result.values == [650.0] and follows_the_asked_total(words, offices, total)
    assert not follows_the_asked_total(words, offices, counted)
    # "the total number of offices" names no amount: a count may answer it.
    assert follows_the_asked_total("what is the total number of offices".split(), offices, counted)


COURSES = grid(
    table_from_rows(["Course", "Hours", "Seats"], [["Welding", "40", "12"],
                    ["First aid", "16", "20"], ["Radar", "24", "8"]]),
    "training.md",
)  # fmt: skip


@pytest.mark.parametrize(
    ("question", "op", "follows"),
    [
        ("How many seats are there in all courses together?", "sum", True),
        ("How many seats are there in all courses together?", "count", False),
        ("How many seats do the courses have in total?", "first", False),  # no one cell
        ("How many hours do all courses take combined?", "sum", True),
        # No word adds the rows up: "how many courses" and a condition on an amount count.
        ("How many courses have more than 10 seats?", "count", True),
        ("How many seats does Welding have?", "values", True),
    ],
)
def test_how_many_of_an_amount_in_total_adds_that_column(question, op, follows) -> None:
    words = question.lower().rstrip("?").split()
    candidate = next(c for c in ranked(question, COURSES) if c.program.op == op)
    assert follows_the_asked_amount(words, COURSES, candidate) is follows


@pytest.mark.parametrize(("confidence", "admitted"), [(0.6, True), (0.3, False)])
def test_a_program_no_word_asks_for_stands_in_for_the_passages_when_the_judge_is_sure(
    sites, confidence, admitted
) -> None:
    from knowledge.tables.parser import Candidate
    from knowledge.tables.programs import Condition
    from knowledge.tables.store import _admitted

    # No word of the question asks for a count: the program is never the answer first, but
    # when the judge gives it TABLE_ANSWER_MIN it answers, hedged, if the passages find nothing.
    question = "Sites with more than 50 staff?"
    program = Program("count", conditions=(Condition(1, "gt", 50.0, "50"),))
    choice = TableChoice(
        0, 0, "sites.xlsx", sites, Candidate(program, Result([2.0], [0, 1]), {}, 0.9), 1.0
    )
    choice.confidence = confidence
    assert _admitted([], question, None, question, "", choice) is admitted
    assert choice.tentative


def test_a_number_said_once_feeds_one_condition() -> None:
    from knowledge.tables.parser import Candidate
    from knowledge.tables.programs import Condition

    def program(*conditions, op="values", anchors=()):
        return Candidate(Program(op, target=0, conditions=conditions, anchors=anchors),
                         Result([1.0], [0]), {}, 0.5)  # fmt: skip

    question = "Which offices opened before 2014?"
    opened, staff = Condition(2, "lt", 2014.0, "lt 2014"), Condition(1, "lt", 2014.0, "lt 2014")
    assert reads_each_word_once(question, program(opened))
    assert not reads_each_word_once(question, program(Condition(2, "eq", "2014", "2014"), staff))
    # A number the question writes in words, or a version, is left to the ranker.
    assert reads_each_word_once("Which teams won more than ten games?", program(
        Condition(1, "gt", 10.0, "gt 10"), Condition(2, "gt", 10.0, "gt 10")))  # fmt: skip
    assert reads_each_word_once("What changed in Dispatch v3.1.0?", program())


def test_the_two_rows_a_comparison_names_are_two_names_not_one() -> None:
    from knowledge.tables.parser import Candidate
    from knowledge.tables.programs import Condition

    def compared(question, one, other):
        anchors = (Condition(0, "contains", one, one), Condition(0, "contains", other, other))
        candidate = Candidate(Program("diff", key=1, anchors=anchors), Result([1.0], [0, 1]), {}, 1)
        return reads_each_word_once(question, candidate)

    assert not compared("What is the first step of requesting annual leave?", "annual", "leave")
    assert compared("What is the difference in staff between Oslo and Bergen?", "oslo", "bergen")
    assert compared("Which has more staff, Oslo, Bergen?", "oslo", "bergen")


def test_first_orders_by_time_only_over_a_column_of_times() -> None:
    # "first round" over an Attendance of whole numbers in 1000-2100 is no time order.
    games = grid(
        table_from_rows(["Team", "Attendance"], [["Oslo", "1200"], ["Riga", "1800"],
                        ["Lund", "1500"]]),
        "games.csv",
    )  # fmt: skip
    question = "Which team had the highest attendance in the first round?"
    words = question.lower().rstrip("?").split()
    assert follows_the_asked_time(words, games, _program(question, games, "argmax", 1))


def test_how_many_of_an_amount_in_total_is_no_order() -> None:
    question = "How many seats are there altogether?"
    words = question.lower().rstrip("?").split()
    for candidate in ranked(question, COURSES):
        follows = follows_the_asked_amount(words, COURSES, candidate)
        assert follows is (candidate.program.op == "sum" and candidate.program.key == 2)


@pytest.mark.parametrize("between", [" & ", " + ", ". ", " — ", ", "])
def test_two_names_apart_by_any_mark_are_two_names(between) -> None:
    from knowledge.tables.programs import Condition

    anchors = (Condition(0, "eq", "oslo", "oslo"), Condition(0, "eq", "bergen", "bergen"))
    candidate = ranked("x", MEDALS)[0]
    candidate.program = Program("diff", key=1, anchors=anchors)
    assert reads_each_word_once(f"Staff difference, Oslo{between}Bergen?", candidate)


def test_a_question_that_offers_two_answers_is_answered_with_one_of_them(sites) -> None:
    """ "Which site has more staff, Gdansk or Vigo?" admits Gdansk or Vigo: a program answering
    Bergen (the most staff of all) or a count does not follow it. Options the table does not
    hold ("more or less") set no such bound."""
    from knowledge.tables.follows import picks_a_named_option

    def answering(values):
        return Candidate(Program("argmax", target=0, key=1), Result(values, [0]), {}, 0.5)

    question = "Which site has more staff, Gdansk or Vigo?"
    assert picks_a_named_option(question, sites, answering(["Gdansk"]))
    assert not picks_a_named_option(question, sites, answering(["Bergen"]))
    assert not picks_a_named_option(question, sites, answering([2.0]))
    assert not picks_a_named_option(question, sites, answering(["Gdansk", "Vigo"]))
    assert picks_a_named_option("Who leads the Vigo site: Lucia Vidal or someone else?", sites,
                                answering(["Kari Nilsen"]))  # fmt: skip
    assert picks_a_named_option("Did Vigo open earlier, yes or no?", sites, answering(["2021"]))


PROJECTS = grid(
    table_from_rows(["Project", "Owner", "Due", "Score", "Finish"], [["Hull sensors",
                    "Sofie Aas", "2026-03-01", "7", "late"], ["Dock cameras", "Jonas Berg",
                    "2026-02-01", "9", "on time"]]),
    "projects.pptx › Projects",
)  # fmt: skip


@pytest.mark.parametrize(
    ("question", "target", "follows"),
    [
        ("Who owns the project that is due first?", 1, True),  # the Owner
        ("Who owns the project that is due first?", 0, False),  # not the project
        ("In 2026, who owns the project with the best score?", 0, False),
        ("Who scored the highest?", 0, True),  # Score is numeric: no doer named
        ("Who is due first?", 0, True),  # no header is a doer of "is"
        ("Who finished first?", 0, True),  # Finish is no doer (it holds "late", "on time")
        ("Which project is due first?", 0, True),  # no "who"
        # "Who is the <noun>", "who's our <noun>": the noun names the column.
        ("Who is the owner of the project that is due first?", 1, True),
        ("Who is the owner of the project that is due first?", 0, False),
        ("who's our owner on the project due first?", 0, False),
        ("Who is the project due first?", 0, True),  # the noun names the rows' own column
        # The role's last word before what it is of: "project owner" is the Owner.
        ("Who is the project owner of the one due first?", 1, True),
        ("Who is the project owner of the one due first?", 0, False),
    ],
)
def test_who_does_something_is_answered_by_the_column_named_for_the_doer(
    question, target, follows
) -> None:
    words = fold(question).split()
    candidate = Candidate(Program("argmin", target=target, key=2), Result(["x"], [1]), {}, 0.5)
    assert follows_the_named_doer(words, PROJECTS, candidate) is follows


LEADS = grid(
    table_from_rows(
        ["Site", "Staff", "Opened", "Lead"],
        [
            ["Bergen", "212", "1998", "Kari Nilsen"],
            ["Gdansk", "64", "2015", "Piotr Nowak"],
            ["Vigo", "38", "2021", "Kari Nilsen"],
            ["Braga", "64", "2017", "Ola Berg"],
        ],
    ),
    "sites.xlsx › Sites",
)


@pytest.mark.parametrize(
    ("question", "target", "follows"),
    [
        ("Who leads the site with the most staff?", 3, True),  # the noun the verb is made of
        ("Who leads the site with the most staff?", 0, False),
        ("Who opened the site with the most staff?", 0, True),  # Opened is no doer
    ],
)
def test_who_does_what_a_header_names_is_answered_by_that_column(question, target, follows):
    candidate = Candidate(Program("argmax", target=target, key=1), Result(["x"], [0]), {}, 0.5)
    assert follows_the_named_doer(fold(question).split(), LEADS, candidate) is follows


@pytest.mark.parametrize(
    ("question", "column", "value", "left"),
    [
        # A word the program does not account for ("runs"): the row's chunk answers.
        ("Which site does Piotr Nowak run?", 3, "piotr nowak", True),
        # The only one: that no other row holds it is the table's to say.
        ("Which is the only site Piotr Nowak runs?", 3, "piotr nowak", False),
    ],
)
def test_the_only_row_a_condition_keeps_is_read_from_the_table(
    question, column, value, left
) -> None:
    from knowledge.tables.programs import Condition, kept_rows
    from knowledge.tables.rules import left_to_its_row

    program = Program("values", target=0, conditions=(Condition(column, "eq", value, value),))
    rows = kept_rows(LEADS, program.conditions)
    result = Result([LEADS.columns[0].texts[row] for row in rows], rows)
    choice = TableChoice(0, 0, LEADS.label, LEADS, Candidate(program, result, {}, 0.5), 1.0)
    assert left_to_its_row(question, choice, "") is left


def test_no_only_row_when_the_condition_keeps_two() -> None:
    from knowledge.tables.kept import asks_for_the_only_row
    from knowledge.tables.programs import Condition

    program = Program("values", target=0, conditions=(Condition(1, "eq", "64", "64"),))
    result = Result(["Gdansk", "Braga"], [1, 3])
    choice = TableChoice(0, 0, LEADS.label, LEADS, Candidate(program, result, {}, 0.5), 1.0)
    assert not asks_for_the_only_row("Which is the only site that employs 64?", choice)
    one = Program("values", target=0, conditions=(Condition(1, "eq", "212", "212"),))
    choice.best = Candidate(one, Result(["Bergen"], [0]), {}, 0.5)
    assert asks_for_the_only_row("Which is the only site that employs 212?", choice)


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Which lead is listed twice?", True),
        ("Which lead runs more sites than the others?", True),
        ("Which lead is named most often?", True),
        ("Which lead runs Vigo?", False),
    ],
)
def test_how_often_a_cell_comes_asks_for_the_most_frequent(question, asks) -> None:
    from knowledge.tables.rules import asks_for_its_operation

    program = Program("mode", target=3)
    result = Result(["Kari Nilsen"], [0, 2])
    choice = TableChoice(0, 0, LEADS.label, LEADS, Candidate(program, result, {}, 0.5), 1.0)
    assert asks_for_its_operation(question, choice) is asks


@pytest.mark.parametrize(
    ("question", "site"),
    [("Which site is the newest?", "Vigo"), ("Which site is the oldest?", "Bergen")],
)
def test_the_newest_is_the_latest_time_not_the_first_row(question, site) -> None:
    """Sites listed in no order of opening: "the newest" is the row with the latest Opened, not
    the first (or last) row the table lists."""
    from knowledge.tables.follows import followed

    rows = [["Gdansk", "64", "2015"], ["Bergen", "212", "1998"], ["Vigo", "38", "2021"]]
    rows += [["Esbjerg", "51", "2018"], ["Aberdeen", "148", "2004"]]
    sites = grid(table_from_rows(["Site", "Staff", "Opened"], rows), "sites.xlsx › Sites")
    assert followed(question, sites)[0].result.values == [site]


def test_a_program_does_not_keep_the_rows_the_question_excludes() -> None:
    """ "How many channels are not ABC channels?" counts no rows that hold "abc": the rows it
    keeps are the ones the question excludes. Without "not", they are the ones it asks for."""
    from knowledge.tables.follows import followed

    rows = [["ABC News", "News"], ["ABC Sports", "Sports"], ["CNN", "News"], ["Fox", "Sports"]]
    rows += [["ESPN", "Sports"]]
    channels = grid(table_from_rows(["Channel", "Genre"], rows), "channels.csv")

    def keeps_abc(question: str) -> bool:
        return any(
            condition.op in ("eq", "contains") and "abc" in str(condition.value)
            for candidate in followed(question, channels)
            for condition in candidate.program.conditions
        )

    assert keeps_abc("How many channels are ABC channels?")
    assert not keeps_abc("How many channels are not ABC channels?")
    assert not keeps_abc("How many channels are there other than the ABC ones?")


@pytest.mark.parametrize(
    ("question", "ferry"),
    [
        ("Which ferry leaves first?", "Tern"),
        ("Which ferry was launched last, and who is its master?", "Gull"),
        ("Which ferry is listed first?", "Puffin"),
    ],
)
def test_what_is_done_first_is_the_earliest_time_not_the_first_row(question, ferry) -> None:
    """Ferries listed in no order of time: what is done first ("leaves first", "was launched
    last") is the row with the earliest (latest) time, not the first row nor the least of
    another number; what is listed first is the first row."""
    from knowledge.tables.follows import followed
    from knowledge.tables.store import split_two_step

    rows = [["Puffin", "900", "2026-04-02"], ["Tern", "2100", "2026-03-18"]]
    rows += [["Gull", "1500", "2026-06-03"], ["Skua", "600", "2026-05-09"]]
    ferries = grid(table_from_rows(["Ferry", "Tonnage", "Leaves"], rows), "ferries.csv")
    first, _ = split_two_step(question)
    assert followed(first, ferries)[0].result.values == [ferry]


@pytest.mark.parametrize(
    ("question", "coach"),
    [
        ("Who was the first coach of the club?", "Ruud Smit"),
        ("Who was the last coach of the club?", "Ana Vidal"),
        ("Which coach is listed first in the table?", "Ana Vidal"),
    ],
)
def test_the_first_of_its_kind_is_the_earliest_when_rows_run_back_in_time(question, coach):
    """Coaches listed newest first: the first coach is the earliest, not the first row; the
    coach listed first is the first row."""
    from knowledge.tables.follows import followed

    rows = [["Ana Vidal", "2024", "31"], ["Kees Bos", "2019", "58"]]
    rows += [["Lena Berg", "2012", "44"], ["Ruud Smit", "2005", "20"]]
    coaches = grid(table_from_rows(["Coach", "Year", "Wins"], rows), "coaches.csv")
    assert followed(question, coaches)[0].result.values == [coach]


@pytest.mark.parametrize(
    ("question", "asks_different"),
    [
        ("How many times did Kari Nes win?", False),
        ("How many races were run?", False),
        ("How many different venues hosted a race?", True),
    ],
)
def test_the_number_of_different_cells_answers_only_a_question_that_asks_for_them(
    question, asks_different
) -> None:
    """Races held at a few venues: "how many times" and "the total number" count rows; only
    "different" (distinct, unique) asks how many different cells a column holds."""
    from knowledge.tables.asked import counts_what_it_names

    rows = [["Oslo", "Kari Nes"], ["Bergen", "Kari Nes"], ["Oslo", "Kari Nes"]]
    rows += [["Bergen", "Ola Dahl"], ["Oslo", "Siv Berg"]]
    races = grid(table_from_rows(["Venue", "Winner"], rows), "races.csv")
    program = Program("distinct", target=0)
    candidate = Candidate(program, Result([2.0], [0, 1, 2, 3, 4]), {}, 0.5)
    assert counts_what_it_names(question, races, candidate) is asks_different
