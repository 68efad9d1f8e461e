"""A change along one row: two amount columns of the row a question names, one minus the other.

A wide table keeps one row per thing and one column per period or kind ("Region | Q1 | Q2 |
Q3 | Q4", "Item | Planned | Actual", "Month | Online | Box office"): "how much did Benelux
revenue grow from Q1 to Q4?", "how many more tickets were sold online than at the box office in
May?" and "by how much did the actual cost of security exceed the plan?" read two columns of
one row, which no program over rows computes (a difference there is of two rows' cells).
`column_change` makes that program (`change`: the key column minus the target column of the
one kept row) when the question names two numeric columns, a row by a cell, and a change or a
comparison; `row_span` a total or an average along the row's periods, `row_extreme` the period
with the most or the least. The first column said minus the second for "more", "exceeds" or a fall ("fell
from Q3 to Q4"), the second minus the first for "fewer" or a growth ("grew from Q1 to Q4"),
the larger minus the smaller for a difference.
"""

from __future__ import annotations

import re

from knowledge.tables.cells import DATE, MONTHS, month_of
from knowledge.tables.parser import Candidate
from knowledge.tables.partial import named_in_part
from knowledge.tables.programs import Condition, Grid, Program, fold, kept_rows, run
from knowledge.tables.question import (
    MONTH_STEMS,
    STOPWORDS,
    asked_direction,
    mentions,
    read_question,
    stem,
)
from knowledge.tables.said import (
    WHOLE,
    said_months,
    said_periods,
    says_a_superlative,
    says_a_year_it_lacks,
    year_spans,
)

_GROWTH = frozenset(
    "grow grew grown growth increase increased rise rose risen gain gained gains climb climbed "
    "improve improved".split()
)
_FALL = frozenset(
    "fall fell fallen drop dropped decrease decreased decline declined shrink shrank shrunk "
    "lose lost".split()
)
_MORE = frozenset("more higher larger greater bigger exceed exceeded exceeds exceeding".split())
_LESS = frozenset("fewer less lower smaller".split())
_DIFFERENCE = frozenset("change changed difference differ different".split())
_CUES = _GROWTH | _FALL | _MORE | _LESS | _DIFFERENCE
# How likely the program is right when it is made: the parser's candidates have no column
# difference to rank it against, and a question naming two amount columns, a row and a change
# asks for little else.
CHANGE_SCORE = 0.8


def column_change(question: str, grid: Grid) -> Candidate | None:
    """Return the change along the row a question names between the two numeric columns it
    names, or None when it names no change, not two such columns, or not exactly one row."""
    words = fold(question).split()
    said = set(words)
    if not said & _CUES:
        return None
    named = named_amount_columns(words, grid)
    if len(named) != 2:
        return None
    conditions = one_row(question, grid)
    if conditions is None:
        return None  # no row named, or two: "more than China" compares rows, not columns
    row = kept_rows(grid, conditions)[0]
    first, second = named
    amounts = grid.columns[first].numbers[row], grid.columns[second].numbers[row]
    if None in amounts:
        return None
    if said & _FALL or (said & _MORE and not said & _GROWTH):
        subtracted, kept = second, first  # the first said minus the second
    elif said & (_GROWTH | _LESS):
        subtracted, kept = first, second  # the second said minus the first
    else:  # a difference: the larger minus the smaller
        subtracted, kept = (first, second) if amounts[0] <= amounts[1] else (second, first)
    program = Program("change", target=subtracted, key=kept, conditions=conditions)
    result = run(program, grid)
    return None if result is None else Candidate(program, result, {}, CHANGE_SCORE)


def one_row(question: str, grid: Grid) -> tuple | None:
    """Return the condition naming the one row a question is about by a text cell (or by a
    part of it, knowledge/tables/partial.py), or None when it names none or several."""
    said = mentions(read_question(question), grid)
    rows = [c for c in said if c.op == "eq" and not grid.columns[c.column].numeric]
    if not rows:  # a name said in part: "St Aidan's" of the row "St Aidan's School"
        in_part = named_in_part(question, grid)
        return None if in_part is None else (in_part,)
    single = [c for c in rows if len(kept_rows(grid, (c,))) == 1]
    if len({kept_rows(grid, (c,))[0] for c in single}) != 1:
        return None
    return tuple(single[:1])


_TOTAL = frozenset("total sum altogether combined overall".split())
# "From January to April", "between March and June": a span of periods.
_SPAN = re.compile(r"\b(?:from|between) (\w+) (?:to|and|through|until|till) (\w+)")
# Words that ask for every row's amount added up.
_OVER_ALL = frozenset("all across total altogether combined overall".split())
_AVERAGE = frozenset("average mean".split())
# Words that ask for more than one cell of a row: a total, an average, a change.
MORE_THAN_A_CELL = _TOTAL | _OVER_ALL | _AVERAGE | _CUES
# A header that names a period: a month, a quarter, a half, a year ("Jan", "Q3", "H1", "2024").
_PERIOD = re.compile(r"^(?:q[1-4]|h[12]|(?:19|20)\d\d|fy ?\d{2,4})$")


def row_span(question: str, grid: Grid) -> Candidate | None:
    """Return the total or the average along the row a question names over its period columns
    ("what did Storage cost in total from January to April?", "the average monthly cost of
    Billing", "how many covers did Garden serve in 2025?" of a sheet "Covers 2025"), or None.
    The span is the periods it names first and last, or every period when it names none, of one
    kind (the months, not the Q1 that totals three of them); one period named asks for that
    column ("the total bill in January")."""
    words = fold(question).split()
    said = set(words)
    if says_a_year_it_lacks(question, grid):
        return None  # a year the sheet does not hold: no total of it answers
    # "How many covers did Garden serve in 2025?" of a sheet "Covers 2025" by quarter: the year's.
    # "What did we spend on parts over the 2025-26 year?" of a sheet "Running costs, 2025-26".
    whole_year = bool(said & {"many", "much"} or WHOLE.search(" ".join(words)))
    whole_year = whole_year and _says_the_labels_year(words, grid)
    periods = one_kind(grid, words)
    # "How much did Birch Court collect in the first quarter?" of a sheet by month: its months.
    months = _said_months(question, grid, periods)
    whole_year = whole_year or bool(months and said & {"many", "much"})
    named = months or [i for i in named_amount_columns(words, grid) if i in periods]
    # "How many hours did we log on Ledger sync from January to April?", "what did Storage
    # cost us from January through April?": a span asked for, not a month of it ("which
    # month", "each month") nor a change over it.
    spanned = (
        _spans(question, grid, named)
        and not said & _CUES
        and (said & {"many", "much"} or not said & (_NOT_ADDED | _A_PERIOD_OF_IT))
    )
    total = said & _TOTAL or whole_year or spanned
    op = "row_avg" if said & _AVERAGE else "row_sum" if total else ""
    if not op or len(periods) < 2:
        return None
    if len(named) == 1 or len(named) > 2:
        return None
    first, last = (min(named), max(named)) if named else (periods[0], periods[-1])
    if any(index not in periods for index in range(first, last + 1)):
        return None
    conditions = one_row(question, grid)
    if conditions is None:
        return None
    program = Program(op, target=last, key=first, conditions=conditions)
    result = run(program, grid)
    return None if result is None else Candidate(program, result, {}, CHANGE_SCORE)


# The period a question asks for by its kind ("which month", "in what quarter"), and what a
# header of that kind looks like.
_KINDS = {
    "month": None,
    "quarter": re.compile(r"^q[1-4]$"),
    "half": re.compile(r"^h[12]$"),
    "year": re.compile(r"^(?:(?:19|20)\d\d|fy ?\d{2,4})$"),
}


def row_extreme(question: str, grid: Grid) -> Candidate | None:
    """Return the period column with the most or the least of the row a question names
    ("which month was busiest at Stonebridge?", "in which quarter did Garden serve the fewest
    covers?"), or None. The question asks "which <period>" of the kind the headers are, or
    "when"; the periods are every one of that kind, the months of a quarter or a half it says,
    or those from the first it names to the last, side by side. A question that names no one
    row is left to the other programs ("which month had the most visits?" of every branch),
    unless it says it asks over them all and names none of them ("across all the sites",
    "overall": the period whose total over every row is the most); so is one that offers
    periods to choose from ("January or March") or asks for several ("which months", "12 or
    more")."""
    words = fold(question).split()
    asked = _asked_period(words)
    direction = asked_direction(words)
    if asked is None or not direction or "or" in words:
        return None
    periods = (
        [i for i, column in enumerate(grid.columns) if is_period(column, asked)]
        if asked
        else one_kind(grid, words)  # "when": the kind the table has most of
    )
    if len(periods) < 2:
        return None
    named = [i for i in named_amount_columns(words, grid) if i in periods]
    if said_months(fold(question)):
        named = _said_months(question, grid, periods)
        if not named:
            return None  # "the first half" of quarters, or of months the sheet does not hold
    if len(named) not in (0, 2):
        return None
    first, last = (min(named), max(named)) if named else (periods[0], periods[-1])
    conditions = one_row(question, grid)
    if (
        conditions is None
        and _EVERY_ROW.search(" ".join(words))
        and not _rows_named(question, grid)
    ):
        conditions = ()  # "across all the sites": each period's total over every row
    if conditions is None or any(index not in periods for index in range(first, last + 1)):
        return None  # no one row, or a subtotal (Q1 after March) among the months
    op = "row_argmax" if direction > 0 else "row_argmin"
    program = Program(op, target=last, key=first, conditions=conditions)
    result = run(program, grid)
    return None if result is None else Candidate(program, result, {}, CHANGE_SCORE)


# A question over every row: "across all the sites", "in total", "overall"; not "the most of
# all", nor "a single site", "any one site", "each site".
_EVERY_ROW = re.compile(
    r"^(?!.*\b(?:single|individual|any one|each)\b).*"
    r"(?:\b(?:across|over|for) all\b|\ball (?:the|our) \w+s\b|\b(?:in total|combined|altogether|overall)\b)"
)


def _rows_named(question: str, grid: Grid) -> bool:
    """Whether the question names some of the rows by a cell ("across the North stores", "in
    2023" of rows that are years)."""
    return any(c.op in ("eq", "contains") for c in mentions(read_question(question), grid))


def period_words(grid: Grid) -> set[str]:
    """Return the words naming the kinds of period the table has two columns or more of
    ("quarter" for Q1 to Q4, "month" for Jan to Jun): a question's word the table holds."""
    kinds = [k for k in _KINDS if sum(is_period(c, k) for c in grid.columns) >= 2]
    return {
        form for kind in kinds for form in (kind, f"{kind}s", "halves" if kind == "half" else "")
    } - {""}


def one_kind(grid: Grid, words: list[str]) -> list[int]:
    """Return the period columns of one kind: that of the first period the question names,
    or the kind the table has most of (the months, before the quarters that total them)."""
    by_kind = [[i for i, c in enumerate(grid.columns) if is_period(c, k)] for k in _KINDS]
    named = [i for i in named_amount_columns(words, grid) if any(i in kind for kind in by_kind)]
    if named:
        return next(kind for kind in by_kind if named[0] in kind)
    return max(by_kind, key=len)


def _asked_period(words: list[str]) -> str:
    """Return the kind of period a question asks for ("month" for "which month ...?", "" for
    "when ...?"), or None: it asks for one, said right after "which" or "what"."""
    if words[:1] == ["when"]:
        return ""
    for asking, noun in zip(words, words[1:]):
        if asking in ("which", "what") and noun in _KINDS:
            return noun
    return None


def period_total(question: str, grid: Grid) -> Candidate | None:
    """Return the total of the one period column a question names over every row, when it
    asks how much, or how many of what the sheet measures, over all its rows ("how many hours did
    we log across all projects in February?" of a sheet "Hours 2026" by month: the sum of Feb,
    not a count of the projects), and says no condition on the rows; None otherwise."""
    words = fold(question).split()
    by_month = quarter_of_rows(question, words, grid)
    if by_month is not None:
        return by_month
    label = {stem(word) for word in fold(grid.label).split()}
    headers = {stem(word) for column in grid.columns for word in fold(column.name).split()}
    how, asked = next(((a, b) for a, b in zip(words, words[1:]) if a in ("many", "much")), ("", ""))
    # "How many" asks for what the sheet measures when its label says so and no header does;
    # "how much", for an amount, when it adds up every row by their name ("how much beer did we
    # brew in May, all beers together?" of a Beer column) and asks for no average, no one row
    # ("the largest job") and nothing of each.
    measured = stem(asked) in label - headers or (how == "much" and _all_rows_by_name(words, grid))
    if not asked or not measured or not _OVER_ALL & set(words):
        return None
    if mentions(read_question(question), grid):
        return None
    periods = one_kind(grid, words)
    named = [i for i in named_amount_columns(words, grid) if i in periods]
    if len(periods) < 2 or len(named) != 1:
        return None
    program = Program("sum", key=named[0])
    result = run(program, grid)
    return None if result is None else Candidate(program, result, {}, CHANGE_SCORE)


def quarter_of_rows(question: str, words: list[str], grid: Grid) -> Candidate | None:
    """Return the total of the one amount column a question names over the rows of the quarter
    or half it says, when the table's rows are months ("what did energy cost us over the first
    quarter?" of running costs by month: Energy of January to March added up; their average
    when it asks for one; "from January to June" likewise), and it asks for no order of them;
    None otherwise."""
    folded = " ".join(words)
    months, periods = said_months(folded), said_periods(folded)
    said = next(iter(periods.values())) if len(periods) == 1 else ""
    if not months and not periods and not _CHANGE & set(words):  # "from January to June"
        months, said = _month_span(folded)
    averaged = bool(_AVERAGED & set(words))
    named = named_amount_columns(words, grid)
    # "The costliest month of the first quarter" asks for a row.
    if not months or not said or len(named) != 1 or not _adds_up(words, averaged):
        return None
    for index, column in enumerate(grid.columns):
        held = [month_of(column, row) for row in range(grid.size)]
        if column.numeric or not set(months) <= set(held):
            continue
        condition = Condition(index, "months", " ".join(months), said)
        program = Program("avg" if averaged else "sum", key=named[0], conditions=(condition,))
        result = run(program, grid)
        return None if result is None else Candidate(program, result, {}, CHANGE_SCORE)
    return None


def _month_span(folded: str) -> tuple[list[str], str]:
    """Return the months from the first a question says to the last ("from January to June":
    jan to jun) with the words, or nothing."""
    found = _SPAN.search(folded)
    first, last = (MONTH_STEMS.get(word) for word in found.groups()) if found else (None, None)
    if first is None or last is None or MONTHS.index(first) >= MONTHS.index(last):
        return [], ""
    return MONTHS[MONTHS.index(first) : MONTHS.index(last) + 1], found.group(0)


# Words that ask how an amount changed between two months, not what they come to.
_CHANGE = frozenset(
    "change changed increase increased decrease decreased rise rose fall fell drop dropped grow "
    "grew gain gained up down difference percentage".split()
)
# Words that ask for something else than the rows' amounts added up.
_AVERAGED = frozenset("average mean".split())
# Words that ask for one period of a span, or for each: "which month from January to April".
_A_PERIOD_OF_IT = frozenset("which when month months quarter quarters highest lowest".split())
_NOT_ADDED = _AVERAGED | frozenset("per each most least".split())


def _adds_up(words: list[str], averaged: bool = False) -> bool:
    """Whether a question asks for no order, no amount of each and (unless `averaged`, when
    the average is what is computed) no average: the amounts added up."""
    # "On average per month" asks for the average of the months.
    not_added = _NOT_ADDED - _AVERAGED - {"per", "each"} if averaged else _NOT_ADDED
    return not not_added & set(words) and not says_a_superlative(words)


def _all_rows_by_name(words: list[str], grid: Grid) -> bool:
    """Whether a question says "all <what the rows are>" (the first column's header) and asks
    for no average, order or amount of each."""
    if not _adds_up(words):
        return False
    rows = fold(grid.columns[0].name).split() if grid.columns else []
    return any(
        a == "all"
        and any(b in (row, f"{row}s", f"{row}es") or stem(b) == stem(row) for row in rows)
        for a, b in zip(words, words[1:])
    )


def _spans(question: str, grid: Grid, named: list[int]) -> bool:
    """Whether the question says the two periods it names as a span: "from January to April"
    ("visitors from Spain in January and March" names two months, no span)."""
    found = _SPAN.search(fold(question))
    if found is None or len(named) != 2:
        return False
    ends = [named_amount_columns([word], grid) for word in found.groups()]
    return sorted(end[0] for end in ends if end) == sorted(named)


def _said_months(question: str, grid: Grid, periods: list[int]) -> list[int]:
    """Return the first and the last column of the months of the quarter or half the question
    says, when the table holds each of them side by side (a subtotal between them, such as a
    column Q1 after March, would be added in)."""
    wanted = said_months(fold(question))
    found = [i for i in periods if header_month(grid.columns[i]) in wanted]
    if not wanted or len(found) != len(wanted) or found[-1] - found[0] != len(found) - 1:
        return []
    return [found[0], found[-1]]


def header_month(column) -> str | None:
    words = fold(column.name).split()
    return MONTH_STEMS.get(words[0]) if words else None


def _says_the_labels_year(words: list[str], grid: Grid) -> bool:
    """Whether the question says a year the table's label says (its sheet, caption or file)."""
    label = set(fold(grid.label).split())
    return any(
        (len(word) == 4 and word.isdigit() or year_spans(word)) and word in label for word in words
    )


def is_period(column, kind: str = "") -> bool:
    """Whether a column's header names a period (of the kind given, when one is)."""
    # A month of a year is a month: "Mar 2026" of a season's tickets by month.
    header = re.sub(r"\s+(?:19|20)\d\d$", "", fold(column.name.split("(")[0]).strip())
    if not column.numeric or column.type == DATE:
        return False
    # A quarter may be written as its three months: "Apr-Jun", "Jul to Sep".
    months = _MONTHS_SPAN.match(header)
    if months and all(stem(month) in MONTH_STEMS.values() for month in months.groups()):
        first, last = (MONTHS.index(stem(month)) for month in months.groups())
        return kind in ("", "quarter") and (last - first) % 12 == 2  # "Jan-Dec" is a year
    if kind:
        pattern = _KINDS[kind]
        return (
            stem(header) in MONTH_STEMS.values() if pattern is None else bool(pattern.match(header))
        )
    return stem(header) in MONTH_STEMS.values() or bool(_PERIOD.match(header))


_MONTHS_SPAN = re.compile(r"^([a-z]{3,9}) ?(?:-|to) ?([a-z]{3,9})$")


def named_amount_columns(words: list[str], grid: Grid) -> list[int]:
    """Return the numeric columns a question names, in the order it says them: by the whole
    header ("Q1", "2024", "box office"), or by each word of the header before its unit in
    parentheses, said as it is, by its stem or as its first four letters or more ("the plan"
    for Planned (EUR), "online" for Online)."""
    padded = f" {' '.join(words)} "
    found = []
    for index, column in enumerate(grid.columns):
        if not column.numeric:
            continue
        header = fold(column.name).strip()
        if header and f" {header} " in padded:
            found.append((len(padded[: padded.index(f" {header} ")].split()), index))
            continue
        core = [w for w in fold(column.name.split("(")[0]).split() if w not in STOPWORDS]
        places = [_said_at(words, word) for word in core]
        if core and None not in places:
            found.append((min(places), index))
    return [index for _, index in sorted(found)]


def _said_at(words: list[str], header_word: str) -> int | None:
    """Return where the question says a header's word (itself, its stem, or a prefix of four
    letters or more of it), or None."""
    for place, word in enumerate(words):
        if word in STOPWORDS:
            continue
        if word == header_word or stem(word) == stem(header_word):
            return place
        if len(word) >= 4 and header_word.startswith(word):
            return place
    return None
