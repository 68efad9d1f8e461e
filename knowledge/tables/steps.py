"""The steps after a table's program: a second question about the row it found ("which vessel
sails first, and who is its captain?"), or the same row in another table joined on a shared
key column (a workbook's other sheet).
"""

from __future__ import annotations

import re

from knowledge.tables.choice import Step, TableChoice
from knowledge.tables.programs import Grid, fold
from knowledge.tables.question import header_overlap, read_question, stem

# "Which vessel sails first, and who is its captain?": a question, then one about its answer.
_SECOND_QUESTION = re.compile(
    r"^(?P<first>.+?)(?:,\s*|\s+)and\s+(?P<second>(?:who|what|which|when|where|how)\b.*"
    r"\b(?:its|their|his|her|that|this)\b.*)$",
    re.IGNORECASE,
)


def split_two_step(query: str) -> tuple[str, str]:
    """Return a question's first step and its second ("" when it asks one thing)."""
    match = _SECOND_QUESTION.match(query.strip())
    if not match:
        return query, ""
    return match.group("first").strip(), match.group("second").strip()


def _result_row(choice: TableChoice) -> int | None:
    """Return the one row a program's result is read from, if it is one."""
    result = choice.best.result
    if result.computed or len(result.values) != 1 or not result.rows:
        return None
    return result.rows[-1] if choice.best.program.op in ("next", "previous") else result.rows[0]


def _best_column(words: str, grid: Grid, exclude: set[int]) -> tuple[int, float] | None:
    question = read_question(words)
    scored = [
        (index, header_overlap(column.name, question))
        for index, column in enumerate(grid.columns)
        if index not in exclude
    ]
    scored = [(index, overlap) for index, overlap in scored if overlap >= 0.5]
    return max(scored, key=lambda pair: pair[1]) if scored else None


def same_row_step(second: str, choice: TableChoice) -> Step | None:
    """The second step of a two-step question: a column of the row the first step found."""
    row = _result_row(choice)
    if row is None:
        return None
    target = choice.best.program.target
    column = _best_column(second, choice.grid, {target} if target is not None else set())
    if column is None:
        return None
    index = column[0]
    value = choice.grid.columns[index].texts[row]
    if not value:
        return None
    name = choice.grid.columns[index].name
    return Step("row", name, value, f"then read {name} of that row",
                choice.grid.chunk_ids[row], choice.grid.row_numbers[row])  # fmt: skip


def _said_header_words(name: str, stems: set[str]) -> set[str]:
    return {stem(word) for word in fold(name).split()} & stems


def joined_step(query: str, choice: TableChoice) -> Step | None:
    """A join: the question names a column this table lacks and another table has (a
    workbook's other sheet); that table's row sharing the found row's key is read."""
    row = _result_row(choice)
    if row is None or not choice.others:
        return None
    stems = read_question(query).stems
    here = set().union(*(_said_header_words(c.name, stems) for c in choice.grid.columns))
    for _, other in choice.others:
        named = [
            (len(_said_header_words(column.name, stems) - here), index)
            for index, column in enumerate(other.columns)
        ]
        best, index = max(named, default=(0, -1))
        if best == 0:
            continue
        # The shared key: a column of the same name in both whose values meet on the row.
        for mine in choice.grid.columns:
            for key_index, theirs in enumerate(other.columns):
                if key_index == index or fold(mine.name) != fold(theirs.name):
                    continue
                value = mine.folded[row]
                match = next((r for r, v in enumerate(theirs.folded) if v and v == value), None)
                if match is None or not other.columns[index].texts[match]:
                    continue
                name = other.columns[index].name
                return Step(
                    "join",
                    name,
                    other.columns[index].texts[match],
                    f"then read {name} of {other.label} where {theirs.name} is {mine.texts[row]}",
                    other.chunk_ids[match],
                    other.row_numbers[match],
                )
    return None
