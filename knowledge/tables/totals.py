"""Each row's total over a wide table's months.

A team's sheet of tickets sold per venue by month, or of energy generated per site by month,
holds no column of what each row came to over the months; "which venue sold the most tickets
over the season?" and "did we sell more at Quarry Studio or at the Mayfair Centre?" ask for
it. A grid with three or more columns of months and no column of totals gets one more column,
Total, each row's months added up, which every program may read like any other
(knowledge/tables/follows.py `reads_a_named_period` keeps programs off one month the question
does not name).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from knowledge.tables.cells import DATE, MONTHS, NUMBER
from knowledge.tables.change import named_amount_columns
from knowledge.tables.parser import Candidate
from knowledge.tables.programs import ALONG_A_ROW, Column, Grid, Program, display, fold, run
from knowledge.tables.said import said_months, said_periods

TOTAL = "Total"
# A month's header, of a year or not: "Mar", "March", "Mar 2026", "March (MWh)".
_MONTH = re.compile(r"^([a-z]+)\.?(?:\s+(?:19|20)\d\d)?$")
_FULL = "january february march april may june july august september october november december"
# Headers that already total the months (a climate table's Year, a sheet's Total).
_LEADS_A_TIME = frozenset("in of for during since until before after from to by".split())
_TOTALS = frozenset("total totals year annual overall all sum season ytd".split())


def month_columns(grid: Grid) -> list[int]:
    """Return the numeric columns whose headers name a month."""
    found = []
    for index, column in enumerate(grid.columns):
        match = _MONTH.match(fold(column.name.split("(")[0]).strip())
        word = match.group(1) if match else ""
        named = word in MONTHS or word in _FULL.split() or word == "sept"
        if named and column.numeric and column.type != DATE:
            found.append(index)
    return found


def _named_months(question: str, grid: Grid) -> set[int]:
    """Return the month columns a question names: by their header, or by a month it says ("in
    December" of Dec 2025; "may" only after a word that leads a time)."""
    words = fold(question).split()
    months = set(month_columns(grid))
    said = {
        word[:3] for before, word in zip(["", *words], words, strict=False)
        if word in _FULL.split() and (word != "may" or before in _LEADS_A_TIME)
        or word in MONTHS and word != "may" or word == "sept"
    }  # fmt: skip
    named = {
        index for index in months
        if fold(grid.columns[index].name).split()[0][:3] in said
    }  # fmt: skip
    return named | (set(named_amount_columns(words, grid)) & months)


def with_row_total(grid: Grid) -> Grid:
    """Return the grid with a column of each row's total over its months, when it has three or
    more month columns, all of one unit, and no column that totals them."""
    months = month_columns(grid)
    units = {grid.columns[i].unit for i in months}
    headers = {word for column in grid.columns for word in fold(column.name).split()}
    if len(months) < 3 or len(units) > 1 or headers & _TOTALS:
        return grid
    numbers: list[float | None] = []
    for row in range(grid.size):
        said = [n for i in months if (n := grid.columns[i].numbers[row]) is not None]
        numbers.append(float(sum(said)) if said else None)
    texts = ["" if number is None else display(number) for number in numbers]
    column = Column(
        name=TOTAL,
        type=NUMBER,
        unit=units.pop(),
        texts=texts,
        folded=[fold(text) for text in texts],
        numbers=numbers,
        numeric=True,
    )
    column.row_total = True  # (no header of the table's own)
    grid.columns.append(column)
    return grid


def is_row_total(grid: Grid, index: int | None) -> bool:
    """Whether a column is the one `with_row_total` added."""
    return index is not None and getattr(grid.columns[index], "row_total", False)


def reads_a_named_period(question: str, grid: Grid, candidate) -> bool:
    """Whether a program over a grid with a row total reads no month the question does not
    name, and no row total when it names one: "which venue sold the most tickets over the
    season?" is no venue with the most in December, nor one whose December beats the 2025 of
    "2025-26". A row's span of months and its month with the most read them all."""
    if not is_row_total(grid, len(grid.columns) - 1):
        return True
    program = candidate.program
    if program.op in ALONG_A_ROW:
        return True  # a row's span of months, or its month with the most
    read = {program.key, program.target}
    read.update(column for said in program.conditions + program.anchors for column in said.columns)
    months = set(month_columns(grid))
    named = _named_months(question, grid)
    if named and len(grid.columns) - 1 in read:
        return False  # "the total sales in January" are January's, not the year's
    return not (read & months) - named


def over_every_month(
    question: str, grid: Grid, every: list[Candidate], follows: Callable
) -> Candidate | None:
    """Return the program that reads each row's total over its months where the ranker's read
    one month the question does not name ("which venue sold the most tickets over the
    season?": the row with the most Total, not with the most in December), as likely as those
    programs over every month together; None when the grid has no row total, or the question
    names a month or a period of them. The likeliest that follows the question (`follows`)."""
    total = len(grid.columns) - 1
    folded = fold(question)
    months = set(month_columns(grid))
    if (
        not is_row_total(grid, total)
        or _named_months(question, grid)
        or said_months(folded)
        or said_periods(folded)
    ):
        return None
    moved: dict[Program, float] = {}
    for candidate in every:
        program = candidate.program
        read = {program.key, program.target} & months
        said = {column for s in program.conditions + program.anchors for column in s.columns}
        if program.op in ALONG_A_ROW or len(read) != 1 or said & months:
            continue
        month = read.pop()
        program = replace(
            program,
            key=total if program.key == month else program.key,
            target=total if program.target == month else program.target,
        )
        moved[program] = moved.get(program, 0.0) + candidate.score
    for program in sorted(moved, key=lambda p: -moved[p]):
        result = run(program, grid)
        made = None if result is None else Candidate(program, result, {}, moved[program])
        if made is not None and follows(question, grid, made):
            return made
    return None
