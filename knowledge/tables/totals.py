"""Each row's total over a wide table's months.

A team's sheet of tickets sold per venue by month, or of energy generated per site by month,
holds no column of what each row came to over the months; "which venue sold the most tickets
over the season?" and "did we sell more at Quarry Studio or at the Mayfair Centre?" ask for
it. A grid with three or more columns of months of an amount that adds up (not prices, rates,
levels or a percentage), and no column of totals, gets one more column, Total, each row's
months added up. The ranker never sees it (knowledge/tables/parser.py); when a question says
no month, no quarter and no "month", and the ranker's likeliest program reads one month all
the same, `over_every_month` reads the Total instead, and `reads_a_named_period` sets aside
the programs that read one month.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from knowledge.tables.cells import DATE, NUMBER
from knowledge.tables.change import named_amount_columns
from knowledge.tables.parser import Candidate
from knowledge.tables.programs import ALONG_A_ROW, Column, Grid, Program, display, fold, run
from knowledge.tables.question import MONTH_STEMS
from knowledge.tables.said import said_months, said_periods

TOTAL = "Total"
# A month's header, of a year or not: "Mar", "March", "Mar 2026", "March (MWh)".
_MONTH = re.compile(r"^([a-z]+)\.?(?:\s+(?:19|20)\d\d)?$")
# Headers that already total the months (a climate table's Year, a sheet's Total).
_LEADS_A_TIME = frozenset("in of for during since until before after from to by".split())
_TOTALS = frozenset("total totals year annual overall all sum season ytd".split())
_MONTH_TALK = re.compile(r"\b(?:month|monthly|quarter|half|q[1-4]|h[12])\b")
# Words of amounts that do not add up over months: a price, a rate, a level, a count of people
# on the books.
_LEVELS = frozenset(
    "price prices rate rates temperature temperatures temp headcount staff balance level levels "
    "stock average avg mean score scores rating ratings percent percentage share occupancy "
    "members membership population index value".split()
)


def month_columns(grid: Grid) -> list[int]:
    """Return the numeric columns whose headers name a month."""
    found = []
    for index, column in enumerate(grid.columns):
        match = _MONTH.match(fold(column.name.split("(")[0]).strip())
        word = match.group(1) if match else ""
        named = word in MONTH_STEMS
        if named and column.numeric and column.type != DATE:
            found.append(index)
    return found


def _says_a_month(question: str, grid: Grid) -> bool:
    """Whether a question says a month ("in December", a month with no column too; "may" only
    after a word that leads a time), names a month's column, says a quarter or a half, or
    says "month" ("last month", "in a month", "monthly")."""
    folded = fold(question)
    words = folded.split()
    said = any(
        word in MONTH_STEMS and (word != "may" or before in _LEADS_A_TIME)
        for before, word in zip(["", *words], words, strict=False)
    )  # fmt: skip
    return (
        said
        or bool(_MONTH_TALK.search(folded))
        or bool(said_months(folded) or said_periods(folded))
        or bool(set(named_amount_columns(words, grid)) & set(month_columns(grid)))
    )


def with_row_total(grid: Grid) -> Grid:
    """Return the grid with a column of each row's total over its months, when it has three or
    more month columns, all of one unit that adds up, and no column that totals them."""
    months = month_columns(grid)
    units = {grid.columns[i].unit for i in months}
    headers = {word for column in grid.columns for word in fold(column.name).split()}
    label = set(re.split(r"[\W_]+", fold(grid.label))) | headers
    levels = "%" in "".join(units) or "°" in "".join(units) or label & _LEVELS
    if len(months) < 3 or len(units) > 1 or headers & _TOTALS or levels:
        return grid
    numbers: list[float | None] = []
    for row in range(grid.size):
        said = [n for i in months if (n := grid.columns[i].numbers[row]) is not None]
        numbers.append(float(sum(said)) if said else None)
    texts = ["" if number is None else display(number) for number in numbers]
    grid.columns.append(added_column(TOTAL, NUMBER, units.pop(), texts, numbers, "row_total"))
    return grid


def added_column(
    name: str, kind: str, unit: str, texts: list[str], numbers: list[float | None], mark: str
) -> Column:
    """Return a numeric column a grid adds of its own (it has no header of the table's), marked
    with the attribute `mark` (`row_total` here, `days_between` in knowledge/tables/between.py)."""
    column = Column(
        name=name,
        type=kind,
        unit=unit,
        texts=texts,
        folded=[fold(text) for text in texts],
        numbers=numbers,
        numeric=True,
    )
    setattr(column, mark, True)
    return column


def is_row_total(grid: Grid, index: int | None) -> bool:
    """Whether a column is the one `with_row_total` added."""
    return index is not None and getattr(grid.columns[index], "row_total", False)


def reads_a_named_period(question: str, grid: Grid, candidate) -> bool:
    """Whether a program over a grid with a row total reads no month when the question says
    none: "which venue sold the most tickets over the season?" is no venue with the most in
    December, nor one whose December beats the 2025 of "2025-26". A row's span of months and
    its month with the most read them all."""
    if not is_row_total(grid, len(grid.columns) - 1) or candidate.program.op in ALONG_A_ROW:
        return True
    return not _reads_a_month(candidate.program, grid) or _says_a_month(question, grid)


def _reads_a_month(program: Program, grid: Grid) -> bool:
    read = {program.key, program.target}
    read.update(column for said in program.conditions + program.anchors for column in said.columns)
    return bool(read & set(month_columns(grid)))


def over_every_month(
    question: str, grid: Grid, every: list[Candidate], follows: Callable
) -> Candidate | None:
    """Return the program that reads each row's total over its months when the ranker's
    likeliest program reads a month the question does not say ("which venue sold the most
    tickets over the season?": the row with the most Total, not with the most in December), or
    those that do are together at least half as likely: the first program that reads one
    month, on the same rows, with the Total in its place, as likely as those programs over
    every month together, the likeliest that follows the question (`follows`); None when the
    grid has no row total or the question says a month."""
    total = len(grid.columns) - 1
    if not every or not is_row_total(grid, total) or _says_a_month(question, grid):
        return None
    months = set(month_columns(grid))
    moved: dict[Program, float] = {}
    rows = None  # the conditions and anchors of the first program moved
    for candidate in every:
        program = candidate.program
        read = {program.key, program.target} & months
        said = {column for s in program.conditions + program.anchors for column in s.columns}
        if program.op in ALONG_A_ROW or len(read) != 1 or said & months:
            continue
        if rows is None:
            rows = (program.conditions, program.anchors)
        if (program.conditions, program.anchors) != rows:
            continue
        month = read.pop()
        program = replace(
            program,
            key=total if program.key == month else program.key,
            target=total if program.target == month else program.target,
        )
        moved[program] = moved.get(program, 0.0) + candidate.score
    if not _reads_a_month(every[0].program, grid) and max(moved.values(), default=0.0) < (
        every[0].score / 2
    ):
        return None  # the likeliest reads no month, and far likelier than any over the months
    for program in sorted(moved, key=lambda p: -moved[p]):
        result = run(program, grid)
        made = None if result is None else Candidate(program, result, {}, moved[program])
        if made is not None and follows(question, grid, made):
            return made
    return None
