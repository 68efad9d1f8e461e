"""A wide sheet's periods side by side (months, quarters, years as columns), asked of one row:
its cell in the one period named ("how many consultations did Millbrook see in October 2025?"),
which of two offered columns holds more of it ("is a cat spay cheaper at Millbrook or at
Ironwood Road?"), and how many of its periods meet a comparison ("in how many months did
Ironwood Road see more than 1,300?"). The row's totals, spans, changes and extremes are in
knowledge/tables/change.py.
"""

from __future__ import annotations

import re

from knowledge.tables.cells import is_money
from knowledge.tables.change import (
    CHANGE_SCORE,
    MORE_THAN_A_CELL,
    header_month,
    is_period,
    named_amount_columns,
    one_kind,
    one_row,
)
from knowledge.tables.parser import Candidate
from knowledge.tables.programs import Condition, Grid, Program, fold, run
from knowledge.tables.question import MONTH_STEMS, RANK_WORDS, asked_direction, read_question
from knowledge.tables.said import said_months


def period_cell(question: str, grid: Grid) -> Candidate | None:
    """Return the cell of the row a question names in the one period column it names, of a
    wide sheet of periods ("how many consultations did Millbrook see in October 2025?":
    Millbrook's Oct 2025, not a count of the row), when it asks how many or how much of that
    and nothing more: no total, average, span, order or change (`row_span`, `row_extreme`,
    `column_change`), no quarter of months. None otherwise."""
    words = fold(question).split()
    said = set(words)
    if not said & {"many", "much"} or said & MORE_THAN_A_CELL:
        return None
    spanning = said & _SPANNING or re.search(r"\b(?:year|up) to\b|\bto date\b", fold(question))
    if asked_direction(words) or said_months(fold(question)) or spanning:
        return None  # an order; a quarter of months; "since November", "the year to January"
    periods = one_kind(grid, words)
    named = named_periods(words, grid, periods)
    conditions = one_row(question, grid)
    if len(periods) < 3 or len(named) != 1 or not conditions:
        return None
    program = Program("values", target=named[0], conditions=conditions)
    result = run(program, grid)
    if result is None or len(result.rows) != 1:
        return None
    return Candidate(program, result, {}, CHANGE_SCORE)


# Words that say a span from or to a period, not the period alone.
_SPANNING = frozenset("since before after by until till through from between".split())


def named_periods(words: list[str], grid: Grid, periods: list[int]) -> list[int]:
    """Return the period columns a question names: by their headers ("October 2025" names
    "Oct 2025"), or by a month alone where one column holds that month ("in February" of a
    sheet of Jan 2026 to Apr 2026; "may" only after "in" or "of")."""
    named = [i for i in named_amount_columns(words, grid) if i in periods]
    if named:
        return named
    months = {
        MONTH_STEMS[word]
        for before, word in zip(["", *words], words, strict=False)
        if word in MONTH_STEMS and (word != "may" or before in ("in", "of"))
    }
    found = [i for i in periods if header_month(grid.columns[i]) in months]
    return found if len(found) == len(months) else []


def offered_column(question: str, grid: Grid) -> Candidate | None:
    """Return which of two side-by-side columns the question offers holds the more (or the
    less) of the one row it names ("is a cat spay cheaper at Millbrook or at Ironwood Road?"
    of a price list with a column per site: the header of the smaller price), or None."""
    words = fold(question).split()
    direction = asked_direction(words)
    named = named_amount_columns(words, grid)
    if "or" not in words or not direction or len(named) != 2 or abs(named[0] - named[1]) != 1:
        return None
    labels = fold(f"{grid.label} {' '.join(c.name for c in grid.columns)}").split()
    if set(labels) & RANK_WORDS:
        return None  # a position's highest is its smallest number
    priced = all(is_money(grid.columns[i]) for i in named) or set(labels) & _PRICE_WORDS
    if set(words) & _OF_PRICES and not priced:
        return None  # "cheaper" of a stock count
    conditions = one_row(question, grid)
    if not conditions:
        return None
    op = "row_argmax" if direction > 0 else "row_argmin"
    program = Program(op, target=max(named), key=min(named), conditions=conditions)
    result = run(program, grid)
    return None if result is None else Candidate(program, result, {}, CHANGE_SCORE)


def periods_meeting(question: str, grid: Grid) -> Candidate | None:
    """Return how many of the period columns of the row a question names meet the comparison
    it says ("in how many months did Ironwood Road see more than 1,300 consultations?": the
    months of that row over 1,300), of a wide sheet of months, quarters or years side by side;
    or None."""
    folded = fold(question)
    asked = _HOW_MANY_PERIODS.search(folded)
    compared = [(v, op) for v, op in read_question(question).numbers if op in _COMPARED]
    if asked is None or len(compared) != 1 or not _SAID_COMPARISON.search(folded):
        return None
    years = {int(year) for year in re.findall(r"\b(?:19|20)\d\d\b", folded)} - {compared[0][0]}
    if set(folded.split()) & _NOT_ONE_COMPARISON or _SPAN_SAID.search(folded) or years:
        return None  # "not more than", "fail to exceed"; "in a row", "of 2025", "since June"
    kind = asked.group(1)[:-1]
    periods = [index for index, column in enumerate(grid.columns) if is_period(column, kind)]
    if len(periods) < 3 or periods != list(range(periods[0], periods[-1] + 1)):
        return None
    conditions = one_row(question, grid)
    if not conditions:
        return None
    value, op = compared[0]
    said = Condition(periods[0], op, value, said=f"{op} {value:g}")
    program = Program("row_count", periods[-1], periods[0], conditions, anchors=(said,))
    result = run(program, grid)
    return None if result is None else Candidate(program, result, {}, CHANGE_SCORE)


_COMPARED = ("gt", "lt", "ge", "le")
# "In how many months did …", "how many years were …": not "how many years old".
_HOW_MANY_PERIODS = re.compile(
    r"\bhow many (months|quarters|years) (?:did|was|were|has|had|have|do|does|is|are)\b"
)
# The comparisons said in so many words (not "top 1,300", read as a rank).
_SAID_COMPARISON = re.compile(
    r"\b(?:more|fewer|less|greater|higher|lower) than\b|\b(?:over|above|under|below)\b"
    r"|\bat (?:least|most)\b|\bor (?:more|fewer|less)\b"
)
_NOT_ONE_COMPARISON = frozenset("not no never fail failed t consecutive running straight".split())
# A part of the periods said: a year, a month, a quarter, a span from or to one, "in a row".
_SPAN_SAID = re.compile(
    r"\b(?:since|until|till|before|after|between|from|q[1-4]|h[12])\b"
    r"|\bin a row\b|\b(?:last|this|next) year\b|\b(?:" + "|".join(sorted(MONTH_STEMS)) + r")\b"
)
# Words that ask of prices, and the headers and labels of prices.
_OF_PRICES = frozenset("cheaper cheapest dearer dearest costlier costliest".split())
_PRICE_WORDS = frozenset("price prices cost costs fee fees charge charges tariff".split())
