"""A document's tables, as data, from its row chunks.

Chunking gives each row chunk its table's position in the document (`structure["table"]`), its
headers, cells and row number. Here each table gets typed columns (`cells.column_type`) and each
row its cells read (`cells.read_cell`); rows that are not data are dropped and recorded: a
header row repeated inside the table, and a totals row, which would count twice in a sum: one
led by "Total", "Sum" or "Grand total", or a last row whose numbers add up the rows above
("Career", "All seasons", "World").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from knowledge.chunk_kinds import KIND_ROW
from knowledge.tables.between import derived
from knowledge.tables.cells import NUMBER, TEXT, Cell, clean, column_type, column_unit, read_cell
from knowledge.tables.programs import Grid

# The first cell of a totals row.
TOTAL_WORDS = frozenset({"total", "totals", "sum", "grand total", "overall", "all", "subtotal"})
# A last row is a totals row when its numbers are the sums of the columns above, over at least
# this many rows (fewer add up by chance: 3, 5, 8).
SUMMED_ROWS_MIN = 4


@dataclass
class TableRowData:
    """One data row: its number in the table (1-based), the chunk that holds it (its position
    in the document's chunk list), its cells as written and their normalised values."""

    number: int
    chunk: int
    cells: list[str]
    values: list[Any]


@dataclass
class TableData:
    """One table of a document, ready to be written beside its chunks."""

    ordinal: int
    caption: str
    section: list[str]
    page: int | None
    columns: list[dict[str, str]]
    rows: list[TableRowData] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)


def tables_from_chunks(chunks: list) -> list[TableData]:
    """Return the tables a document's chunks hold (chunks with a `kind`, `structure`,
    `section` and `page`, as `knowledge.index.PreparedChunk`)."""
    grouped: dict[int, list[tuple[int, Any]]] = {}
    for position, chunk in enumerate(chunks):
        structure = chunk.structure or {}
        if chunk.kind != KIND_ROW or "table" not in structure:
            continue
        rows = grouped.setdefault(int(structure["table"]), [])
        # A row too long for one chunk is split: its first piece stands for it.
        if not rows or rows[-1][1].structure.get("row") != structure.get("row"):
            rows.append((position, chunk))
    return [_table(ordinal, rows) for ordinal, rows in sorted(grouped.items())]


def _table(ordinal: int, rows: list[tuple[int, Any]]) -> TableData:
    first = rows[0][1]
    return table_from_grid(
        [str(header) for header in first.structure.get("headers") or []],
        [
            (
                int(chunk.structure.get("row") or index + 1),
                position,
                [str(cell) for cell in chunk.structure.get("cells") or []],
            )
            for index, (position, chunk) in enumerate(rows)
        ],  # fmt: skip
        ordinal=ordinal,
        caption=str(first.structure.get("caption") or ""),
        section=list(first.section or ()),
        page=first.page,
    )


def table_from_grid(
    headers: list[str],
    rows: list[tuple[int, int, list[str]]],
    *,
    ordinal: int = 0,
    caption: str = "",
    section: list[str] | None = None,
    page: int | None = None,
) -> TableData:
    """Return a table from its headers and its rows as (number, chunk position, cells)."""
    headers = [str(header) for header in headers]
    width = max([len(headers)] + [len(cells) for _, _, cells in rows])
    headers += [f"column {i + 1}" for i in range(len(headers), width)]
    header_keys = [clean(header)[0].lower() for header in headers]
    kept: list[tuple[int, int, list[str], list[Cell]]] = []
    dropped: list[dict[str, Any]] = []
    for number, position, row_cells in rows:
        cells = [str(cell) for cell in row_cells] + [""] * (width - len(row_cells))
        read = [read_cell(cell) for cell in cells]
        if [cell.text.lower() for cell in read] == header_keys:
            dropped.append({"row": number, "reason": "repeated header", "cells": cells})
            continue
        lead = next((cell.text.lower().rstrip(":") for cell in read if cell.text), "")
        if lead in TOTAL_WORDS or lead.startswith("total "):
            dropped.append({"row": number, "reason": "totals row", "cells": cells})
            continue
        kept.append((number, position, cells, read))
    if _sums_the_rows_above(kept):
        number, _, cells, _ = kept.pop()
        dropped.append({"row": number, "reason": "totals row", "cells": cells})
    columns = []
    for index, header in enumerate(headers):
        column = [read[index] for _, _, _, read in kept]
        columns.append({"name": header, "type": column_type(column), "unit": column_unit(column)})
    marked = sum(cell.marked for _, _, _, read in kept for cell in read)
    if marked:
        dropped.append({"reason": "footnote marks", "cells": marked})
    table = TableData(
        ordinal=ordinal,
        caption=caption,
        section=list(section or []),
        page=page,
        columns=columns,
        dropped=dropped,
    )
    for number, position, cells, read in kept:
        values = [_value(cell, column["type"]) for cell, column in zip(read, columns, strict=True)]
        table.rows.append(TableRowData(number, position, cells, values))
    return table


def _sums_the_rows_above(kept: list[tuple[int, int, list[str], list[Cell]]]) -> bool:
    """Whether the last row is the sum of the rows above in at least half of the columns where
    it and at least SUMMED_ROWS_MIN rows above hold numbers (a career row under a golfer's
    seasons: wins and earnings add up, the rank does not), and in one at least."""
    if len(kept) <= SUMMED_ROWS_MIN:
        return False
    last, above = kept[-1][3], [read for _, _, _, read in kept[:-1]]
    checked = summed = 0
    for index, cell in enumerate(last):
        if cell.type != NUMBER or not isinstance(cell.value, float):
            continue
        numbers = [
            read[index].value for read in above
            if read[index].type == NUMBER and isinstance(read[index].value, float)
        ]  # fmt: skip
        if len(numbers) < SUMMED_ROWS_MIN:
            continue
        checked += 1
        total = sum(numbers)
        if total and abs(cell.value - total) <= abs(total) * 0.005:
            summed += 1
    return summed >= 1 and 2 * summed >= checked


def _value(cell: Cell, kind: str) -> Any:
    """Return a cell's value in its column's type: None when it holds no value of that type
    (a "12" in a column of names is text, "n/a" in a column of numbers is nothing)."""
    if cell.value is None:
        return None
    if kind == TEXT:
        return cell.text
    return cell.value if cell.type == kind else None


def table_from_rows(headers: list[str], rows: list[list[str]], **kwargs) -> TableData:
    """Return a table of a header row and body rows numbered from 1 (a CSV as read)."""
    return table_from_grid(
        headers, [(n, n - 1, cells) for n, cells in enumerate(rows, start=1)], **kwargs
    )


def grid(table: TableData, label: str, chunk_ids: list[int | None] | None = None):
    """Return a table as a grid to run programs on (knowledge/tables/programs.py)."""
    rows = [(row.number, row.cells, row.values) for row in table.rows]
    return derived(Grid.build(label, table.columns, rows, chunk_ids))
