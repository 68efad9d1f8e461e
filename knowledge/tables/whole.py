"""What one column comes to over a whole table: its total or its average over every row.

A team asks "what did lab fees come to over the 2025-26 financial year?" of a sheet of running
costs by month, "what did we spend on costumes across the whole season?" of one row per show,
and "what was our average monthly drugs bill?": one amount the question names, over every row,
with no row named and no condition said. The parser, trained on questions that mostly read one
cell, puts a first or a least of the column before its sum. `whole_column` makes the sum (the
average when the question says one) when the question asks "what …" or "how much …", names one
numeric column and nothing of the rows, says a word of totalling or of the whole period
("come to", "all told", "over the 2025-26 year", "across the whole season") or an average, and
asks for no order, no count and no one row.
"""

from __future__ import annotations

import re

from knowledge.tables.asked import is_a_time
from knowledge.tables.cells import DATE, DURATION
from knowledge.tables.change import named_amount_columns
from knowledge.tables.parser import Candidate
from knowledge.tables.programs import Grid, Program, fold, run
from knowledge.tables.question import (
    MONTH_STEMS,
    asked_direction,
    mentions,
    read_question,
)
from knowledge.tables.said import WHOLE, says_a_superlative, says_a_year_it_lacks, years_said

_AVERAGE = re.compile(r"\b(?:average|on average|mean)\b")
# Words that ask for something else of the rows: how many, an order, a share, which one.
_ASKS_OTHERWISE = frozenset(
    "many number count times which who when where first last per cent percent percentage share "
    "each every".split()
)
_NAMED_TIME = re.compile(r"\b(?:last|this) (?:season|year)\b")
# Words of a change, a level or a statistic other than a total or a mean.
_NO_TOTAL = frozenset(
    "fall falls fell drop drops dropped rise rises rose change changed median typical typically "
    "usual usually range peak peaked reach reached grow grew increase increased decrease "
    "decreased level".split()
)
# A part of the time the table covers: a quarter, a half, a season of the year, this or last
# month or week, a time from or until.
_PART_OF_THE_TIME = re.compile(
    r"\b(?:q[1-4]|h[12]|quarter|half|winter|spring|summer|autumn|since|until|till|up to|by the)\b"
    r"|\b(?:this|last|next) (?:month|week|day)\b"
)
# Headers of amounts that do not add up over rows.
_NOT_ADDED = frozenset(
    "average avg mean rate rating price per balance cumulative ytd level stock score scores age "
    "year percent percentage share".split()
)
# The units of time an average may be asked per, and the month's stems rows may be headed by.
_UNITS = {
    "month": "month", "monthly": "month", "week": "week", "weekly": "week", "day": "day",
    "daily": "day", "year": "year", "yearly": "year", "annual": "year", "annually": "year",
    "quarter": "quarter", "quarterly": "quarter",
}  # fmt: skip
_OPENINGS = ("what", "whats", "how much", "on average")
# How likely the total is right when it is made: a question naming one amount and no row,
# with a word of the whole, asks for little else.
WHOLE_SCORE = 0.8


def whole_column(question: str, grid: Grid) -> Candidate | None:
    """Return the total (or the average) of the one numeric column a question names over every
    row, or None."""
    folded = fold(question)
    words = folded.split()
    averaged = bool(_AVERAGE.search(folded))
    if not folded.startswith(_OPENINGS) or not (averaged or WHOLE.search(folded)):
        return None
    asked = set(_NAMED_TIME.sub(" ", folded).split())  # "last season" asks for no last row
    if asked & _ASKS_OTHERWISE - ({"per", "each"} if averaged else set()):
        return None  # "average … per production" asks per row; "each" too
    if asked_direction(words) or says_a_superlative(words) or asked & _NO_TOTAL:
        return None  # an order; a change, a level or another statistic ("fell to", "median")
    if _PART_OF_THE_TIME.search(folded) or averaged and not _per_its_rows(words, grid):
        return None  # "in Q1", "this month", "since May"; "per year, on average" of months
    if not _covers_the_time_said(folded, words, grid) or says_a_year_it_lacks(question, grid):
        return None
    if mentions(read_question(question), grid):
        return None  # a row named or kept: the parser's sum over those rows
    named = [i for i in named_amount_columns(words, grid) if not is_a_time(grid.columns[i])]
    if len(named) != 1:
        return None  # (a date is no amount: "paid" names Paid, not Paid on)
    numbers = [n for n, _ in read_question(question).numbers if not 1900 <= n < 2100]
    if grid.columns[named[0]].type == DURATION or numbers:
        return None  # an average of times; a number said keeps rows ("the first three")
    column = grid.columns[named[0]]
    if set(fold(column.name).split()) & _NOT_ADDED or "%" in column.unit + column.name:
        return None  # an average's average, a price's or a balance's total: nothing adds up
    program = Program("avg" if averaged else "sum", key=named[0])
    result = run(program, grid)
    return None if result is None else Candidate(program, result, {}, WHOLE_SCORE)


def _per_its_rows(words: list[str], grid: Grid) -> bool:
    """Whether an average asked per a unit of time ("monthly", "per year") is one per row:
    rows of months for "monthly"; any rows when no unit of time is said ("per production")."""
    units = {_UNITS[word] for word in words if word in _UNITS}
    first = grid.columns[0].folded if grid.columns else []
    months = bool(first) and all(
        text.split()[:1] and text.split()[0] in MONTH_STEMS for text in first
    )
    return not units or units == {"month"} and months


def _covers_the_time_said(folded: str, words: list[str], grid: Grid) -> bool:
    """Whether every row is of the time the question says: no month said ("in March" keeps
    rows), "last season" or "this year" only of rows that are no times (a season's shows), and
    the years of rows that are times within those said ("over the 2025-26 year" of Apr 2025 to
    Mar 2026)."""
    if any(word in MONTH_STEMS and word != "may" for word in words):
        return False
    said = years_said(folded)
    timed = [
        column for column in grid.columns
        if column.type == DATE or sum(map(bool, map(years_said, column.folded))) > grid.size / 2
    ]  # fmt: skip
    if _NAMED_TIME.search(folded):
        return not timed
    years = set().union(*(years_said(text) for column in timed for text in column.folded))
    return not said or not years or years <= said
