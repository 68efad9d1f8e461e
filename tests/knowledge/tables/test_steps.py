"""The steps after a table's program that need no database: the word a question offers for a
comparison of two named rows, the yes or no a question asks of one, and the one of several rows
a question asks for."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.choice import TableChoice
from knowledge.tables.parser import Candidate, ranked
from knowledge.tables.programs import Condition, Program, Result, fold, run
from knowledge.tables.steps import (
    offered_word_step,
    one_of_them_step,
    same_yes_or_no_step,
    threshold_question,
    threshold_step,
    years_apart_step,
    yes_or_no_step,
)

SITES = grid(
    table_from_rows(
        ["Site", "Staff", "Opened", "Lead"],
        [
            ["Bergen", "212", "1998", "Kari Nilsen"],
            ["Gdansk", "64", "2015", "Piotr Nowak"],
            ["Vigo", "38", "2021", "Lucia Vidal"],
            ["Bergen North", "64", "2017", "Ola Berg"],
        ],
    ),
    "sites.xlsx › Sites",
)
GOLF = grid(
    table_from_rows(["Player", "Score"], [["Sam Snead", "280"], ["Ben Hogan", "284"]]),
    "open.csv",
)
STANDINGS = grid(
    table_from_rows(
        ["Rank", "Team", "Points"],
        [["1", "Harriers", "40"], ["2", "Otters", "35"], ["3", "Comets", "31"]],
    ),
    "league.csv",
)


def _compared(question: str, table, key: str) -> TableChoice:
    """The choice of the program comparing the two rows the question names on `key`."""
    index = [column.name for column in table.columns].index(key)
    best = next(
        candidate
        for candidate in ranked(question, table)
        if candidate.program.op in ("more", "less")
        and len(candidate.program.anchors) == 2
        and candidate.program.key == index
    )
    return TableChoice(1, 1, table.label, table, best, relevance=1.0)


@pytest.mark.parametrize(
    ("question", "table", "key", "word"),
    [
        ("Does Vigo have more or less staff than Bergen?", SITES, "Staff", "less"),
        ("Does Bergen have fewer or more staff than Vigo?", SITES, "Staff", "more"),
        ("Did Vigo open before or after Gdansk?", SITES, "Opened", "after"),
        ("Did Bergen open earlier or later than Gdansk?", SITES, "Opened", "earlier"),
        # A place: above is where a table ordered by the key lists first.
        ("Did the Otters finish above or below the Comets?", STANDINGS, "Points", "above"),
        ("Did the Comets rank above or below the Otters?", STANDINGS, "Rank", "below"),
        ("Did the Comets rank higher or lower than the Otters?", STANDINGS, "Rank", "lower"),
        ("Did Ben Hogan place above or below Sam Snead?", GOLF, "Score", "below"),
        # Not a place: above is the larger number, whatever the table's order.
        ("Was Ben Hogan's score above or below Sam Snead's?", GOLF, "Score", "above"),
        # In a list: above is the earlier row, whatever the numbers.
        ("Is Vigo listed above or below Gdansk?", SITES, "Opened", "below"),
        # One name inside the other: each is found as itself.
        ("Does Bergen North have more or less staff than Bergen?", SITES, "Staff", "less"),
        ("Does Bergen have more or less staff than Bergen North?", SITES, "Staff", "more"),
    ],
)
def test_a_comparison_offered_as_two_words_is_answered_with_one_of_them(
    question, table, key, word
) -> None:
    step = offered_word_step(question, _compared(question, table, key))
    assert step is not None and step.kind == "word"
    assert step.value == word
    assert word in step.words


def test_a_comparison_that_offers_no_words_keeps_the_row_that_wins() -> None:
    question = "Which site has more staff, Bergen or Vigo?"
    assert offered_word_step(question, _compared(question, SITES, "Staff")) is None


def test_a_number_after_than_is_no_row_to_compare_with() -> None:
    # "more or less than 64 staff" asks of a number, not of the row whose Staff cell is 64.
    question = "Does Vigo have more or less than 64 staff?"
    program = Program(
        op="more",
        key=1,
        anchors=(Condition(0, "eq", "vigo", "vigo"), Condition(1, "eq", "64", "64")),
    )
    result = run(program, SITES)
    assert result is not None and len(result.rows) == 2  # the rows of Vigo and of Gdansk
    candidate = Candidate(program, result, features={})
    choice = TableChoice(1, 1, SITES.label, SITES, candidate, relevance=1.0)
    assert offered_word_step(question, choice) is None


def test_rows_named_by_numbers_are_compared() -> None:
    # "week 3 ... week 6": numbers that name rows, not a quantity after "than".
    weeks = grid(
        table_from_rows(["Week", "Attendance"], [["3", "61,000"], ["6", "58,500"]]), "season.csv"
    )
    question = "Was the attendance in week 3 above or below the attendance in week 6?"
    program = Program(
        op="more", key=1, anchors=(Condition(0, "eq", "3", "3"), Condition(0, "eq", "6", "6"))
    )
    result = run(program, weeks)
    assert result is not None
    choice = TableChoice(1, 1, weeks.label, weeks, Candidate(program, result, {}), relevance=1.0)
    step = offered_word_step(question, choice)
    assert step is not None and step.value == "above"


def _pair(op: str, key: int, first: str, second: str) -> TableChoice:
    """The choice of a comparison of two named sites on column `key`, as the parser builds it."""
    anchors = (Condition(0, "eq", fold(first), first), Condition(0, "eq", fold(second), second))
    program = Program(op=op, key=key, anchors=anchors)
    result = run(program, SITES)
    assert result is not None
    return TableChoice(1, 1, SITES.label, SITES, Candidate(program, result, {}), relevance=1.0)


@pytest.mark.parametrize(
    ("question", "op", "key", "word"),
    [
        ("Does Bergen have more staff than Vigo?", "more", 1, "yes"),
        ("Does Vigo have more staff than Bergen?", "more", 1, "no"),
        # The row said first is asked about, whichever the parser anchored first.
        ("Is Vigo's staff larger than Bergen's?", "more", 1, "no"),
        ("Did Vigo open before Gdansk?", "less", 2, "no"),
        ("Was Gdansk opened earlier than Vigo?", "less", 2, "yes"),
    ],
)
def test_a_comparison_asked_yes_or_no_is_answered_yes_or_no(question, op, key, word) -> None:
    choice = _pair(op, key, "Vigo", "Bergen") if key == 1 else _pair(op, key, "Vigo", "Gdansk")
    step = yes_or_no_step(question, choice)
    assert step is not None and step.kind == "word"
    assert step.value == word
    assert step.words.endswith(f": {word}")


@pytest.mark.parametrize(
    "question",
    [
        "Which site has more staff, Bergen or Vigo?",  # asks which, not whether
        "Does Bergen or Vigo have more staff?",  # offers two answers: the row is the answer
    ],
)
def test_a_comparison_not_asked_yes_or_no_keeps_the_row_that_wins(question) -> None:
    assert yes_or_no_step(question, _pair("more", 1, "Bergen", "Vigo")) is None


@pytest.mark.parametrize(
    ("question", "key", "said"),
    [
        ("What is the difference in opening year between Bergen and Gdansk?", 2, "17 years"),
        # "How many years" asks for the number alone.
        ("How many years after Bergen did Gdansk open?", 2, None),
        # Staff are no years.
        ("What is the difference in staff between Bergen and Gdansk?", 1, None),
    ],
)
def test_a_difference_of_years_is_said_in_years(question, key, said) -> None:
    anchors = (Condition(0, "eq", "bergen", "Bergen"), Condition(0, "eq", "gdansk", "Gdansk"))
    program = Program(op="diff", key=key, anchors=anchors)
    result = run(program, SITES)
    choice = TableChoice(1, 1, SITES.label, SITES, Candidate(program, result, {}), relevance=1.0)
    step = years_apart_step(question, choice)
    assert (step.value if step else None) == said


LEADS = grid(
    table_from_rows(
        ["Site", "Lead"],
        [["Bergen", "Kari Nilsen"], ["Gdansk", "Piotr Nowak"], ["Vigo", "Kari Nilsen"]],
    ),
    "sites.xlsx › Leads",
)


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("Does Vigo have the same lead as Bergen?", "yes"),
        ("Does Gdansk have the same lead as Bergen?", "no"),
        ("Which site has the same lead as Bergen?", None),  # asks which, not whether
    ],
)
def test_the_same_as_asked_yes_or_no_is_answered_yes_or_no(question, word) -> None:
    program = Program("same", target=0, key=1, anchors=(Condition(0, "eq", "bergen", "Bergen"),))
    result = run(program, LEADS)
    assert result is not None and result.values == ["Vigo"]
    choice = TableChoice(1, 1, LEADS.label, LEADS, Candidate(program, result, {}), relevance=1.0)
    step = same_yes_or_no_step(question, choice)
    assert (step.value if step else None) == word


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("Name a site with 64 staff.", "Gdansk"),
        ("What is one site with 64 staff?", "Gdansk"),
        ("Which sites have 64 staff?", None),  # every one of them is asked for
        ("Name the sites with 64 staff.", None),
    ],
)
def test_one_of_several_rows_asked_for_is_the_first(question, named) -> None:
    program = Program("values", target=0, conditions=(Condition(1, "eq", "64"),))
    result = run(program, SITES)
    assert result.values == ["Gdansk", "Bergen North"]
    choice = TableChoice(1, 1, SITES.label, SITES, Candidate(program, result, {}, 0.9), 1.0)
    step = one_of_them_step(question, choice)
    if named is None:
        assert step is None
        return
    assert step.value == named and step.row_number == SITES.row_numbers[1]
    assert step.words == "then named the first of them: Gdansk"
    from knowledge.tables.wording import computed_text, step_values

    choice.steps.append(step)
    assert computed_text(choice)[0] == "Gdansk" and step_values(choice) == ["Gdansk"]
    # A count is one number already.
    counted = Candidate(Program("count", conditions=program.conditions), run(Program(
        "count", conditions=program.conditions), SITES), {}, 0.9)  # fmt: skip
    assert one_of_them_step(question, TableChoice(1, 1, "", SITES, counted, 1.0)) is None


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("Are there at least 4 sites?", "yes"),
        ("Are there more than 4 sites?", "no"),
        ("Are there more or less than 3 sites?", "more"),
        ("Does Bergen have more than 200 staff?", "yes"),
        ("Does Vigo have above or below 40 staff?", "below"),
        ("Did Gdansk have fewer than 50 staff?", "no"),
    ],
)
def test_a_yes_or_no_measured_against_a_number_asks_its_amount_first(question, word) -> None:
    from knowledge.tables.follows import followed

    first, words, number = threshold_question(question)
    assert str(int(number)) not in first  # the number measures the answer, keeps no rows
    best = followed(first, SITES)[0]
    step = threshold_step(words, number, TableChoice(1, 1, SITES.label, SITES, best, 1.0))
    assert step is not None and step.value == word, (first, best.program, best.result)
    assert step.words.startswith("then compared ")


def test_no_number_to_measure_against_asks_nothing_first() -> None:
    assert threshold_question("Is K2 taller than Kangchenjunga?") is None
    assert threshold_question("How many sites have more than 50 staff?") is None  # no yes or no
    # Equal to the number: neither of two offered words is said.
    best = Candidate(Program("count"), Result([4.0], [0, 1, 2, 3], computed=True), {}, 0.9)
    choice = TableChoice(1, 1, SITES.label, SITES, best, 1.0)
    assert threshold_step("more or less", 4.0, choice) is None
    assert threshold_step("at least", 4.0, choice).value == "yes"
