"""Programs over one table, and what they compute.

A program reads the rows a condition keeps (all rows when it has none) and computes one thing:

| op | result |
|---|---|
| `values` | the target column of the kept rows (a lookup) |
| `count` | how many rows are kept |
| `sum`, `avg`, `max`, `min` | of the key column over the kept rows |
| `argmax`, `argmin` | the target column of the kept row with the most / least key |
| `first`, `last` | the target column of the first / last kept row |
| `next`, `previous` | the target column of the row after / before the anchor row |
| `diff` | the key column of the anchor row minus that of the second anchor row |
| `change` | the key column minus the target column of the one kept row ("from Q1 to Q4") |
| `row_sum`, `row_avg` | the key column to the target column of the one kept row, added / averaged ("from January to April") |
| `row_argmax`, `row_argmin` | the header of the key column to the target column with the most / least of the one kept row ("which month was busiest"), or of their totals over every kept row ("across all sites") |
| `row_count` | how many of the key column to the target column of the one kept row meet the comparison of its anchor ("in how many months were there more than 40") |
| `plus` | the key column of the two anchor rows added ("Braga and Faro combined") |
| `same` | the target column of the other rows whose key cell is the anchor row's ("the same producer as …"); with no target, how many they are |
| `more`, `less` | which of the two anchor rows has the more / less key: its anchor cell, or its target cell (with no key: which anchor cell more / fewer rows hold) |
| `mode` | the target column's most frequent value among the kept rows (group and count) |
| `top` | the target column of the `k` kept rows with the most key (`ascending`: least) |
| `distinct` | how many different values the target column holds among the kept rows |

A `Grid` is a table ready to compute on: each column's cells as text, as numbers (a number,
a length of time in seconds, a date as a sortable number, or a leading number in text such as
"12 (3)" or "1st") and as compared text. Results are `Result`s: the values, the rows read (their
positions in the grid, which the answer cites) and the program in words.
"""

from __future__ import annotations

import functools
import operator
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from knowledge.tables.cells import (
    DATE,
    DURATION,
    MISSING,
    NUMBER,
    clean,
    date_number,
    holds_a_value,
    lacks,
    leading_number,
    month_of,
    says_yes_or_no,
)
from knowledge.tables.folding import fold, list_items

OPS = (
    "values", "count", "sum", "avg", "max", "min", "argmax", "argmin", "first", "last",
    "next", "previous", "diff", "more", "less", "mode", "top", "distinct", "plus", "same",
    "streak", "change", "row_sum", "row_avg", "row_argmax", "row_argmin", "row_count",
)  # fmt: skip
AGGREGATES = frozenset(
    {"count", "sum", "avg", "max", "min", "diff", "distinct", "plus", "streak", "change",
     "row_sum", "row_avg", "row_count"}
)  # fmt: skip
# The operations along one row's columns: a change between two, a total, an average, the
# column with the most or the least.
ALONG_A_ROW = frozenset({"change", "row_sum", "row_avg", "row_argmax", "row_argmin", "row_count"})
# The operations that answer with a column's header, not with its cells.
HEADER_OPS = frozenset({"row_argmax", "row_argmin"})
# The operations on the rows a question names (its anchors), not on the rows conditions keep.
ANCHORED = ("next", "previous", "diff", "more", "less", "plus", "same")
_COMPARE = {
    "gt": operator.gt, "lt": operator.lt, "ge": operator.ge, "le": operator.le,
    "above": operator.gt, "below": operator.lt, "reaches": operator.ge, "within": operator.le,
}  # fmt: skip
# A row's amount against another column's of the same row (knowledge/tables/against.py): the
# condition's value is that column's index.
AGAINST = {"below": "<", "above": ">", "reaches": "≥", "within": "≤"}


@dataclass
class Column:
    name: str
    type: str
    unit: str
    texts: list[str]  # each cell as written, without footnote marks
    folded: list[str]  # each cell as compared
    numbers: list[float | None]  # each cell as a number, where it reads as one
    numeric: bool  # whether most cells read as numbers
    # Each cell's items when it lists several ("Australian, English", "France/ Italy"), folded.
    items: list[frozenset[str]] = field(default_factory=list)
    # Of a column another table's rows were read into (knowledge/tables/joined.py), the row of
    # that table each cell is from: a total or a list reads each of those rows once.
    from_rows: list[int | None] | None = None

    @functools.cached_property
    def flag(self) -> bool:
        return says_yes_or_no(self)  # a Yes and No column (cells.py)


@dataclass
class Grid:
    """A table to compute on: its label, its columns and each row's number and chunk id."""

    label: str
    columns: list[Column]
    row_numbers: list[int]
    chunk_ids: list[int | None] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.row_numbers)

    @functools.cached_property
    def cell_text(self) -> str:
        """Return every cell, folded, in one text ("|" between cells): what a phrase the
        question says is looked for in."""
        return "|" + "|".join(text for column in self.columns for text in column.folded) + "|"

    @classmethod
    def build(
        cls,
        label: str,
        columns: list[dict],
        rows: list[tuple[int, list[str], list[Any]]],
        chunk_ids: list[int | None] | None = None,
    ) -> Grid:
        """Return a grid from typed columns and rows as (number, cells, values)."""
        built = []
        for index, column in enumerate(columns):
            texts = [clean(cells[index] if index < len(cells) else "")[0] for _, cells, _ in rows]
            values = [vals[index] if index < len(vals) else None for _, _, vals in rows]
            numbers: list[float | None] = []
            for text, value in zip(texts, values, strict=True):
                if column["type"] in (NUMBER, DURATION) and isinstance(value, int | float):
                    numbers.append(float(value))
                elif column["type"] == DATE and isinstance(value, str):
                    numbers.append(date_number(value))
                else:
                    numbers.append(leading_number(text))
            # A cell that holds no value ("-", "n/a") says nothing of the column's type: a medal
            # table's Silver column of numbers and dashes is numeric.
            filled = [text.strip().lower() not in MISSING for text in texts]
            numeric = any(filled) and sum(
                number is not None for number, held in zip(numbers, filled, strict=True) if held
            ) >= 0.7 * sum(filled)
            built.append(
                Column(
                    name=clean(column["name"])[0],
                    type=column["type"],
                    unit=column.get("unit", ""),
                    texts=texts,
                    folded=[fold(text) for text in texts],
                    numbers=numbers,
                    numeric=numeric,
                    items=[] if numeric else [list_items(text) for text in texts],
                )
            )
        numbers_of_rows = [number for number, _, _ in rows]
        return cls(label, built, numbers_of_rows, list(chunk_ids or [None] * len(rows)))


@dataclass(frozen=True)
class Condition:
    """Rows whose `column` cell compares to `value` by `op` (text folded; numbers as numbers):
    equal, contained, compared; a date's year, month or day; an empty cell; a row that has a
    column's thing or lacks it; an amount against another column's (AGAINST)."""

    column: int
    op: str
    value: str | float
    said: str = ""  # the words of the question it comes from

    @property
    def columns(self) -> tuple[int, ...]:
        """The columns it reads: its own, and the one an amount is compared against."""
        return (self.column, int(self.value)) if self.op in AGAINST else (self.column,)

    def holds(self, grid: Grid, row: int) -> bool:
        column = grid.columns[self.column]
        if self.op in ("eq", "ne"):
            # A cell that lists several items holds each: "how many peaks are in Italy?"
            # counts the peak of "France/ Italy".
            equal = column.folded[row] == self.value or (
                bool(column.items) and self.value in column.items[row]
            )
            return equal if self.op == "eq" else not equal and bool(column.folded[row])
        if self.op == "contains":
            return f" {self.value} " in f" {column.folded[row]} "
        number = column.numbers[row]
        if self.op in AGAINST:
            other = grid.columns[int(self.value)].numbers[row]
            return number is not None and other is not None and _COMPARE[self.op](number, other)
        if self.op == "blank":  # "not resolved yet": no value in the cell
            return not holds_a_value(column.texts[row])
        if self.op in ("has", "lacks"):  # "which sites have batteries?" (tables/having.py)
            lacking = lacks(column, row, column.flag)
            return lacking is not None and lacking == (self.op == "lacks")
        if self.op == "months":  # "the first quarter" of rows by month: "jan feb mar"
            return month_of(column, row) in str(self.value).split()
        if self.op in ("year", "month", "day"):  # a date's (dates sort as yyyymmdd numbers)
            if column.type != DATE or number is None:
                return False
            # "20 April" is the day 420 of any year.
            parts = {"year": int(number) // 10000, "month": int(number) // 100 % 100}
            return parts.get(self.op, int(number) % 10000) == self.value
        if number is None or not isinstance(self.value, int | float):
            return False
        if column.type == DATE and abs(self.value) < 10000:
            number = int(number) // 10000  # "before 1965" of a date column: its year
        return _COMPARE[self.op](number, self.value)


@dataclass(frozen=True)
class Program:
    op: str
    target: int | None = None  # the column whose cells are the answer
    key: int | None = None  # the column counted, summed, ordered or compared on
    conditions: tuple[Condition, ...] = ()
    # For next/previous/diff/more/less: the rows named in the question.
    anchors: tuple[Condition, ...] = ()
    k: int = 1
    ascending: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Program:
        return cls(
            op=data["op"],
            target=data.get("target"),
            key=data.get("key"),
            conditions=tuple(Condition(**c) for c in data.get("conditions") or ()),
            anchors=tuple(Condition(**c) for c in data.get("anchors") or ()),
            k=int(data.get("k") or 1),
            ascending=bool(data.get("ascending")),
        )


@dataclass
class Result:
    """What a program computed: its values (cell texts or numbers), the rows it read (grid
    positions, in the order they matter) and whether the values are cells or a computed number."""

    values: list[str | float]
    rows: list[int]
    computed: bool = False

    @property
    def empty(self) -> bool:
        return not self.values


def kept_rows(grid: Grid, conditions: tuple[Condition, ...]) -> list[int]:
    return [row for row in range(grid.size) if all(c.holds(grid, row) for c in conditions)]


def _anchor_row(grid: Grid, anchor: Condition) -> int | None:
    """Return the row a question names: the cell it says whole before a list that holds it."""
    if anchor.op == "eq":
        column = grid.columns[anchor.column]
        exact = next((row for row in range(grid.size) if column.folded[row] == anchor.value), None)
        if exact is not None:
            return exact
    return next((row for row in range(grid.size) if anchor.holds(grid, row)), None)


def _number(value: float) -> float:
    return float(round(value, 6))


def run(program: Program, grid: Grid) -> Result | None:
    """Return what a program computes over a grid, or None when it computes nothing (no row
    kept, no number to sum, an anchor that names no row)."""
    op = program.op
    if op in ANCHORED:
        return _run_anchored(program, grid)
    rows = kept_rows(grid, program.conditions)
    if not rows:
        return Result([0.0], [], computed=True) if op == "count" and program.conditions else None
    if op == "count":
        return Result([float(len(rows))], rows, computed=True)
    if op == "streak":
        longest = _longest_run(rows)
        return Result([float(len(longest))], longest, computed=True)
    if op in ALONG_A_ROW:  # the header with the most may total several rows ("across all")
        return _along_a_row(program, grid, rows) if len(rows) == 1 or op in HEADER_OPS else None
    if op in ("values", "first", "last", "distinct", "mode"):
        return _run_on_target(program, grid, rows)
    return _run_on_key(program, grid, rows)


def _along_a_row(program: Program, grid: Grid, rows: list[int]) -> Result | None:
    """Return what a program computes along the columns of its one kept row: the key column
    minus the target column (`change`), or over the key column to the target column their
    total, their average, or the header of the largest or the smallest."""
    if program.op == "change":
        span = [program.target, program.key]
    else:
        span = list(range(program.key, program.target + 1))
    if program.op == "row_count":  # the columns whose cell meets the anchor's comparison
        said = program.anchors[0]
        met = [i for i in span if replace(said, column=i).holds(grid, rows[0])]
        return Result([float(len(met))], rows, computed=True)
    cells = [[grid.columns[index].numbers[row] for row in rows] for index in span]
    if any(None in column for column in cells):
        return None
    amounts = [sum(column) for column in cells]
    if program.op in ("row_argmax", "row_argmin"):
        pick = max if program.op == "row_argmax" else min
        best = pick(range(len(span)), key=lambda at: amounts[at])
        if amounts.count(amounts[best]) > 1:
            return None  # two columns hold the same most: neither is the one
        return Result([grid.columns[span[best]].name], rows)
    value = {
        "change": lambda: amounts[1] - amounts[0],
        "row_sum": lambda: sum(amounts),
        "row_avg": lambda: sum(amounts) / len(amounts),
    }[program.op]()
    return Result([_number(value)], rows, computed=True)


def _longest_run(rows: list[int]) -> list[int]:
    """Return the longest run of rows that follow one another in the table (the first of
    equal runs): "how many consecutive wins" is the longest run of rows that are wins."""
    longest: list[int] = []
    current: list[int] = []
    for row in rows:
        current = [*current, row] if current and row == current[-1] + 1 else [row]
        if len(current) > len(longest):
            longest = current
    return longest


def _run_on_target(program: Program, grid: Grid, rows: list[int]) -> Result | None:
    """Run a program that reads its target column over the kept rows: its cells, the first or
    last, how many different, the most frequent."""
    op = program.op
    column = grid.columns[program.target]
    if op == "values":
        rows = _once_each(column, rows)
        texts = [column.texts[row] for row in rows]
        kept = [(text, row) for text, row in zip(texts, rows, strict=True) if holds_a_value(text)]
        return Result([text for text, _ in kept], [row for _, row in kept]) if kept else None
    if op in ("first", "last"):
        ordered = rows if op == "first" else rows[::-1]
        row = next((row for row in ordered if holds_a_value(column.texts[row])), None)
        return None if row is None else Result([column.texts[row]], [row])
    if op == "distinct":
        read = [row for row in rows if column.folded[row]]
        if not read:
            return None
        return Result([float(len({column.folded[row] for row in read}))], read, computed=True)
    counts = Counter(column.folded[row] for row in rows if column.folded[row])
    if not counts:
        return None
    top, n = counts.most_common(1)[0]
    if n < 2 or sum(1 for count in counts.values() if count == n) > 1:
        return None  # no value repeats, or several tie: no single most frequent
    read = [row for row in rows if column.folded[row] == top]
    return Result([column.texts[read[0]]], read)


def _run_on_key(program: Program, grid: Grid, rows: list[int]) -> Result | None:
    """Run a program over the numbers of its key column in the kept rows: a sum, an average,
    the largest or smallest, or the target of the rows that rank first."""
    op = program.op
    key = grid.columns[program.key]
    if op in ("sum", "avg"):
        rows = _once_each(key, rows)
    numbered = [(key.numbers[row], row) for row in rows if key.numbers[row] is not None]
    if not numbered:
        return None
    if op in ("sum", "avg", "max", "min"):
        numbers = [number for number, _ in numbered]
        value = {
            "sum": sum(numbers), "avg": sum(numbers) / len(numbers),
            "max": max(numbers), "min": min(numbers),
        }[op]  # fmt: skip
        if op in ("max", "min"):
            read = [row for number, row in numbered if number == value]
            return Result([key.texts[read[0]]], read[:1])
        return Result([_number(value)], [row for _, row in numbered], computed=True)
    target = grid.columns[program.target]
    if op in ("argmax", "argmin"):
        best = max(n for n, _ in numbered) if op == "argmax" else min(n for n, _ in numbered)
        read = [row for number, row in numbered if number == best]
        values = [target.texts[row] for row in read if holds_a_value(target.texts[row])]
        return Result(values, read) if values else None
    if op == "top":
        ordered = sorted(numbered, key=lambda pair: pair[0], reverse=not program.ascending)
        read = [row for _, row in ordered[: program.k]]
        values = [target.texts[row] for row in read if holds_a_value(target.texts[row])]
        return Result(values, read) if values else None
    raise ValueError(f"unknown op {op!r}")


def _once_each(column: Column, rows: list[int]) -> list[int]:
    """Return the rows, but of a column read from another table's rows, each of those once: the
    total credit limit of the customers who ordered counts a customer of two orders once."""
    if column.from_rows is None:
        return rows
    seen: set[int | None] = set()
    kept = []
    for row in rows:
        if column.from_rows[row] not in seen:
            seen.add(column.from_rows[row])
            kept.append(row)
    return kept


def _run_anchored(program: Program, grid: Grid) -> Result | None:
    rows = [_anchor_row(grid, anchor) for anchor in program.anchors]
    if not rows or any(row is None for row in rows):
        return None
    op = program.op
    if op in ("next", "previous"):
        # The row after (before) the anchor's with a value ("-" is none): another than the
        # anchor's own when it reads the anchor's column ("the next name after X" is not X).
        step = 1 if op == "next" else -1
        row = rows[0] + step
        target = grid.columns[program.target]
        said = target.folded[rows[0]] if program.target == program.anchors[0].column else None
        while 0 <= row < grid.size and (
            target.texts[row].strip().lower() in MISSING or target.folded[row] == said
        ):
            row += step
        if not 0 <= row < grid.size:
            return None
        return Result([target.texts[row]], [rows[0], row])
    if op == "same":
        return _same(program, grid, rows[0])
    if len(rows) != 2 or rows[0] == rows[1]:
        return None
    if program.key is None:
        return _more_rows(program, grid) if op in ("more", "less") else None
    key = grid.columns[program.key]
    first, second = (key.numbers[row] for row in rows)
    if first is None or second is None:
        return None
    if op == "diff":
        return Result([_number(abs(first - second))], rows, computed=True)
    if op == "plus":
        return Result([_number(first + second)], rows, computed=True)
    if first == second:
        return None
    wins_first = first > second if op == "more" else first < second
    winner = rows[0] if wins_first else rows[1]
    anchor = program.anchors[0] if wins_first else program.anchors[1]
    column = anchor.column if program.target is None else program.target
    return Result([grid.columns[column].texts[winner]], rows)


def _same(program: Program, grid: Grid, anchor: int) -> Result | None:
    """Return the target cells of the other rows whose key cell is the anchor row's (a number
    equal in value, a text equal once folded), or how many they are with no target."""
    key = grid.columns[program.key]
    said, number = key.folded[anchor], key.numbers[anchor]
    if not said:
        return None
    rows = [
        row for row in range(grid.size)
        if row != anchor and (
            key.numbers[row] == number if key.numeric and number is not None
            else key.folded[row] == said
        )
    ]  # fmt: skip
    if program.target is None:
        return Result([float(len(rows))], [anchor, *rows], computed=True)
    values = [grid.columns[program.target].texts[row] for row in rows]
    values = [value for value in values if value]
    return Result(values, [anchor, *rows]) if values else None


def _more_rows(program: Program, grid: Grid) -> Result | None:
    """Return which of the two anchors' cells more (`less`: fewer) rows hold, as the cell of
    its first row ("are there more films in Tamil or Telugu?"), reading the rows of both."""
    kept = [kept_rows(grid, (anchor,)) for anchor in program.anchors]
    counts = [len(rows) for rows in kept]
    if counts[0] == counts[1] or not all(counts):
        return None
    first = counts[0] > counts[1] if program.op == "more" else counts[0] < counts[1]
    anchor, rows = (program.anchors[0], kept[0]) if first else (program.anchors[1], kept[1])
    return Result([grid.columns[anchor.column].texts[rows[0]]], kept[0] + kept[1])


def display(value: str | float) -> str:
    """Return a value as an answer says it (12.0 is "12", 4250000 is "4,250,000")."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() else f"{value:,.2f}".rstrip("0").rstrip(".")
    return str(value)
