"""A row named in part: "St Aidan's" is the row "St Aidan's School" when the name, two words or
more, is said whole inside one row's cell of a text column and inside no other row's. One word
is never enough ("Acme" of a product "Acme Pro", "March" of a "March release"), nor is a name
two rows hold ("St Mary's" of a Clinic and a Hospital), a name said with an initial no cell
holds ("A. Patel" of Priya Patel), or one the table's own title says.
"""

from __future__ import annotations

import re

from knowledge.tables.programs import Condition, Grid, fold

# Capitalised words in a run, not the question's first: "St Aidan's", "A. Patel".
_RUN = re.compile(r"(?<!^)\b([A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)+)")


def row_named_in_part(name: str, grid: Grid) -> Condition | None:
    """Return the condition that keeps the one row whose cell holds a name said in part, or
    None."""
    said = fold(f"{name} ").strip()  # "St Aidan's" folds as "st aidan", as the cell does
    if len(said.split()) < 2 or f" {said} " in f" {fold(grid.label)} ":
        return None
    found = [
        (index, row)
        for index, column in enumerate(grid.columns)
        if not column.numeric
        for row, cell in enumerate(column.folded)
        if f" {said} " in f" {cell} "
    ]
    if len({row for _, row in found}) != 1:
        return None
    return Condition(found[0][0], "contains", said, name)


def named_in_part(question: str, grid: Grid) -> Condition | None:
    """Return the condition of the one row a question names in part, or None."""
    found = [row_named_in_part(run, grid) for run in _RUN.findall(question.strip())]
    found = [condition for condition in found if condition is not None]
    return found[0] if len(found) == 1 else None


def says_no_row(word: str, grid: Grid) -> bool:
    """Whether a word of the table's label tells no row from another: no cell holds it
    ("Bikeability courses"), or every row does ("Leeds shops" all in Leeds); not "North" of
    "North region sales" over rows in North and South."""
    held = [{r for r, value in enumerate(c.folded) if word in value.split()} for c in grid.columns]
    rows = set().union(*held) if held else set()
    return not rows or any(len(column_rows) == grid.size for column_rows in held)
