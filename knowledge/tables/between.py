"""The days between two dates of a row: a column the table store adds to a grid.

A team's sheet of tickets says when each was opened and when it was closed; a sheet of loans
when a book went out and when it came back; of shipments when each was sent and delivered.
"Which ticket took the longest to close?", "how long did T-102 take?" and "which delivery was
quickest?" ask for the time between the two, which no cell holds. A grid with two columns of
whole dates (a year, a month and a day), the second never before the first in a row that has
both, and after it in some, gets a column "Duration (<first> to <second>)" of the days between
them: a duration, so "longest", "quickest" and "how long" read it as they read any column of
durations. A row without both dates (a ticket still open) holds none. Each date column starts
at most one such column, to the nearest date column after it that follows it so; a date that is
a plan (Due, Deadline, Next review) or a birth is neither a start nor an end. A table that
already says how long (a column of durations, or of days, nights, weeks or hours) gets none:
its own column answers. The ranker (knowledge/tables/parser.py) sees the added column as it sees
the others, and a program reads it only for a question that asks how long
(`reads_only_when_asked`). `derived` adds it, then each row's total over its months
(knowledge/tables/totals.py), which stays the last column.
"""

from __future__ import annotations

import datetime
import re

from knowledge.tables.cells import DATE, DURATION
from knowledge.tables.programs import Column, Grid, fold
from knowledge.tables.totals import added_column, with_row_total

DAY = 86_400  # seconds: a duration's cells are numbers of seconds (knowledge/tables/cells.py)
# Headers of a column that already says how long.
_SAYS_HOW_LONG = re.compile(
    r"\b(?:days?|nights?|weeks?|hours?|hrs|minutes?|mins|duration|length|nights stayed)\b"
)
# Rows that must hold both dates for a pair to be read as a start and its end.
LEAST_ROWS = 2
# Words that ask how long something took: the added column is read only for a question that
# says one, or "how long" ("what's the mobile number for whoever brews Mayfly IPA?" reads no
# days from an order to its delivery; "the longest route" is its Distance, not its days). The
# column is named "Duration", not "Days": "the day rate of the lead" and "which day is the site
# lead on the rota?" name no days between two dates.
_HOW_LONG = frozenset(
    "took take takes taking fast faster fastest quick quicker quickest slow slower slowest "
    "days weeks duration turnaround wait waited waiting stay stayed".split()
)
# Headers of a date that is no start or end of what a row did: a plan (a Due date, a Deadline,
# a Next review) or a birth ("Born" to "Joined" is no stay).
_NO_SPAN = re.compile(
    r"\b(?:due|deadline|expected|planned|plan|target|scheduled|estimated|eta|next|review|"
    r"born|birth|dob)\b"
)


def derived(grid: Grid) -> Grid:
    """Return the grid with the columns the store adds: the days between two dates of a row,
    then each row's total over its months."""
    return with_row_total(with_days_between(grid))


def reads_only_when_asked(words: list[str], grid: Grid, program) -> bool:
    """Whether a program answers with, or orders by, an added column of days only when the
    question asks how long (`words`: the question's, folded). A condition may read it: its
    empty cell is a row with no end ("which tickets are still open?")."""
    added = any(
        index is not None and getattr(grid.columns[index], "days_between", False)
        for index in (program.target, program.key)
    )
    return not added or bool(_HOW_LONG & set(words)) or "how long" in " ".join(words)


def _day(number: float | None) -> datetime.date | None:
    """Return a date column's cell (yyyymmdd as a number) as a date, when it says a whole one."""
    if number is None or number < 10_000_101:
        return None
    year, month, day = int(number) // 10_000, int(number) // 100 % 100, int(number) % 100
    try:
        return datetime.date(year, month, day)
    except ValueError:  # "2025-xx-xx": no month or day said
        return None


def _follows(start: list, end: list) -> bool:
    """Whether the second date of every row that has both is on or after the first, and after
    it in some."""
    both = [(a, b) for a, b in zip(start, end, strict=True) if a and b]
    return len(both) >= LEAST_ROWS and all(b >= a for a, b in both) and any(b > a for a, b in both)


def with_days_between(grid: Grid) -> Grid:
    """Return the grid with a column of the days between each pair of dates that start and end
    something, when it says no length of time of its own."""
    if any(
        column.type == DURATION or _SAYS_HOW_LONG.search(fold(column.name))
        for column in grid.columns
    ):
        return grid
    dated = [
        (index, [_day(number) for number in column.numbers])
        for index, column in enumerate(grid.columns)
        if column.type == DATE and not _NO_SPAN.search(fold(column.name))
    ]
    added = []
    for place, (start, starts) in enumerate(dated):
        found = next(((i, ends) for i, ends in dated[place + 1 :] if _follows(starts, ends)), None)
        if found is not None:
            end, ends = found
            days = [(b - a).days if a and b else None for a, b in zip(starts, ends, strict=True)]
            added.append(_column(grid.columns[start].name, grid.columns[end].name, days))
    grid.columns.extend(added)
    return grid


def _column(start: str, end: str, days: list[int | None]) -> Column:
    texts = ["" if n is None else f"{n} day" if n == 1 else f"{n} days" for n in days]
    numbers = [None if n is None else float(n * DAY) for n in days]
    return added_column(
        f"Duration ({start} to {end})", DURATION, "", texts, numbers, "days_between"
    )
