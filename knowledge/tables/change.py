"""A change along one row: two amount columns of the row a question names, one minus the other.

A wide table keeps one row per thing and one column per period ("Region | Q1 | Q2 | Q3 | Q4",
"Country | 2019 | 2024"): "how much did Benelux revenue grow from Q1 to Q4?" reads two columns
of one row, which no program over rows computes (a difference there is of two rows' cells).
`column_change` makes that program (`change`: the key column minus the target column of the
one kept row) when the question names two numeric columns by their headers, a row by a cell,
and a change: growth or a rise is the later minus the earlier, a fall the earlier minus the
later, a difference between them the larger minus the smaller.
"""

from __future__ import annotations

from knowledge.tables.parser import Candidate
from knowledge.tables.programs import Grid, Program, fold, kept_rows, run
from knowledge.tables.question import mentions, read_question

_GROWTH = frozenset(
    "grow grew grown growth increase increased rise rose risen gain gained gains climb climbed "
    "improve improved".split()
)
_FALL = frozenset(
    "fall fell fallen drop dropped decrease decreased decline declined shrink shrank shrunk "
    "lose lost".split()
)
_DIFFERENCE = frozenset("change changed difference differ different".split())
# How likely the program is right when it is made: the parser's candidates have no column
# difference to rank it against, and a question naming two amount columns, a row and a change
# asks for little else.
CHANGE_SCORE = 0.8


def column_change(question: str, grid: Grid) -> Candidate | None:
    """Return the change along the row a question names between the two numeric columns it
    names by header, or None when it names no change, not two such columns, or not one row."""
    words = fold(question).split()
    said = set(words)
    if not said & (_GROWTH | _FALL | _DIFFERENCE):
        return None
    padded = f" {' '.join(words)} "
    named = sorted(
        (padded.index(f" {header} "), index)
        for index, column in enumerate(grid.columns)
        if column.numeric and (header := fold(column.name).strip()) and f" {header} " in padded
    )
    if len(named) != 2:
        return None
    (_, earlier), (_, later) = named
    rows = [
        condition
        for condition in mentions(read_question(question), grid)
        if condition.op == "eq" and not grid.columns[condition.column].numeric
    ]
    conditions = tuple(c for c in rows if len(kept_rows(grid, (c,))) == 1)[:1]
    if not conditions:
        return None
    row = kept_rows(grid, conditions)[0]
    first, second = grid.columns[earlier].numbers[row], grid.columns[later].numbers[row]
    if first is None or second is None:
        return None
    if said & _FALL and not said & _GROWTH:
        earlier, later = later, earlier  # the earlier minus the later
    elif not said & _GROWTH and second < first:
        earlier, later = later, earlier  # a difference: the larger minus the smaller
    program = Program("change", target=earlier, key=later, conditions=conditions)
    result = run(program, grid)
    return None if result is None else Candidate(program, result, {}, CHANGE_SCORE)
