"""A table program written by a model: what it is shown, and how its SQL is read and judged.

With a generative provider, the question's tables are shown to the model as a schema (each
table's SQL name, its columns with their types, a few rows) and the model writes one SELECT
(`SYSTEM`). Its reply is cut to the query (`extract_sql`), checked and run by
knowledge/tables/sql.py (one SELECT over the named tables only, allowed functions, read-only,
a statement timeout, a row limit), and its result is judged (`misfit`): not empty, not a
page of rows, a number when the question asks for a count or a total. A query that is refused,
stopped or unfit leaves the question to the parser's program (knowledge/tables/store.py).

The model's answer is the query's result, never its prose: the values are read from the rows
the database returned. How sure the portal is of it is the parser's: the share of the parser's
probability on programs with the same result (two readings agreeing), so a model's query is
verified only when the parser, independently, computes the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

import sqlglot
from sqlglot import exp

from knowledge.tables.cells import DATE, DURATION, NUMBER, date_number
from knowledge.tables.counted import counted_by_header
from knowledge.tables.programs import Grid, fold
from knowledge.tables.question import STOPWORDS
from knowledge.tables.sql import NamedTable, execute, named_table, sql_name

# Rows of each table shown to the model: its first ones, then those holding the most of the
# question's words (the row it names shows how its cells are written: 'Loss', '14th (q)').
SAMPLE_ROWS = 3
MATCHED_ROWS = 3
# A text column of at most this many different values lists them ("result: W, L"), so that a
# condition spells a value as the cells do.
LISTED_VALUES = 8
# Characters of a sample cell shown, at most.
SAMPLE_CHARS = 40
# Values an answer may hold: more is a page of rows, not an answer.
MAX_VALUES = 20
# Tables shown to the model, at most (the question's, then its workbook's other sheets).
MAX_TABLES = 4

SYSTEM = """You answer a question about data tables by writing one PostgreSQL SELECT query.
Rules:
- Read only the tables and columns listed. Never change anything.
- Compare text with ILIKE, which ignores case: WHERE name ILIKE 'porto'.
- Select only what answers the question, as the first column.
- How many: COUNT(*). A total: SUM. The most: ORDER BY ... DESC LIMIT 1.
- First, last, next and previous follow row_number, unless the question names an order.
- If the tables cannot answer the question, reply NONE.
Reply with the SQL query only."""

# Column types that hold amounts.
_AMOUNTS = (NUMBER, DURATION)
_TYPE_NAMES = {
    NUMBER: "number",
    DURATION: "number (seconds)",
    DATE: "date as text 'YYYY-MM-DD' (unknown parts xx)",
}
# A date as the tables' SQL holds it ("2010-02-26", "1998-xx-xx").
_SQL_DATE = re.compile(r"^-?\d{1,4}-(?:\d\d|xx)-(?:\d\d|xx)$")
# Questions asking for rows beside one they name.
_ASKS_OTHERS = re.compile(
    r"\b(?:other|others|besides|except|excluding|apart from|aside from|same)\b", re.IGNORECASE
)
_FENCE = re.compile(r"```(?:sql)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_START = re.compile(r"\b(WITH|SELECT)\b", re.IGNORECASE)
# Questions whose answer is one number.
_ASKS_NUMBER = re.compile(
    r"\b(how many|how much|number of|total|sum of|average|mean|count of)\b", re.IGNORECASE
)
# "Which is the only driver from France?" asks for one row ("the only two" for two).
_ASKS_THE_ONLY = re.compile(
    r"\b(?:is|was) the only\b(?! (?:two|three|four|five|\d))", re.IGNORECASE
)


@dataclass
class ShownTable:
    """A table as the model sees it, and as the portal reads it back."""

    named: NamedTable
    grid: Grid
    document_id: int
    file_name: str


@dataclass
class Schema:
    tables: list[ShownTable] = field(default_factory=list)

    @property
    def named(self) -> list[NamedTable]:
        return [table.named for table in self.tables]

    def text(self, question: str = "") -> str:
        """Return the schema as the model reads it: each table, its columns, the values of its
        columns of few values, its first rows and those the question names."""
        parts = []
        for shown in self.tables:
            named, grid = shown.named, shown.grid
            columns = ["row_number (number)"] + [
                f"{name} ({_TYPE_NAMES.get(kind, 'text')})" for name, kind in named.columns
            ]
            lines = [
                f"Table {named.name} — {grid.label}, {len(grid.row_numbers)} rows",
                "Columns: " + ", ".join(columns),
            ]
            for (name, kind), column in zip(named.columns, grid.columns, strict=True):
                values = list(dict.fromkeys(text for text in column.texts if text.strip()))
                if kind not in _TYPE_NAMES and len(values) <= LISTED_VALUES < grid.size:
                    lines.append(f"Values of {name}: " + ", ".join(map(_sample, values)))
            lines.append("Rows:")
            rows = list(range(min(SAMPLE_ROWS, grid.size)))
            rows += [row for row in named_rows(question, grid) if row not in rows][:MATCHED_ROWS]
            for row in rows:
                cells = [str(grid.row_numbers[row])] + [
                    _sample(column.texts[row]) for column in grid.columns
                ]
                lines.append("  " + " | ".join(cells))
            parts.append("\n".join(lines))
        return "\n\n".join(parts)


def named_rows(question: str, grid: Grid) -> list[int]:
    """Return the rows holding any of the question's words (not its stop words), those holding
    the most first."""
    words = {word for word in fold(question).split() if word not in STOPWORDS and len(word) > 1}
    held = {}
    for row in range(grid.size):
        cells = " ".join(f" {column.folded[row]} " for column in grid.columns)
        count = sum(f" {word} " in cells for word in words)
        if count:
            held[row] = count
    return sorted(held, key=lambda row: (-held[row], row))


def _sample(text: str) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= SAMPLE_CHARS else text[: SAMPLE_CHARS - 1] + "…"


def build_schema(loaded: list[tuple[int, Grid, int, str]]) -> Schema:
    """Return the schema of loaded tables: (table id, grid, document id, file name)."""
    schema, taken = Schema(), set()
    for table_id, grid, document_id, file_name in loaded[:MAX_TABLES]:
        columns = [{"name": column.name, "type": column.type} for column in grid.columns]
        caption = grid.label.split(" › ")[-1] if grid.label else file_name
        name = sql_name(caption, taken)
        schema.tables.append(
            ShownTable(named_table(name, table_id, columns), grid, document_id, file_name)
        )
    return schema


def extract_sql(reply: str) -> str | None:
    """Return the query of a model's reply (fenced or not), or None when it declines."""
    text = reply.strip()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text or text.upper().startswith("NONE"):
        return None
    start = _START.search(text)
    return text[start.start() :].strip() if start else text


def result_values(columns: list[str], rows: list[tuple], *, whole_row: bool = False) -> list:
    """Return the values a query's result asserts: its first column other than row_number (a
    query may select the row number beside the answer), one value per row; or, for a question
    that asks two things of one row ("which vessel sails first, and who is its captain?"),
    every column of that row."""
    indices = [i for i, name in enumerate(columns) if name != "row_number"] or [0]
    if not (whole_row and len(rows) == 1):
        indices = indices[:1]
    values = []
    for row in rows:
        for index in indices:
            value = row[index] if row else None
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            elif value is not None and not isinstance(value, int | float):
                value = str(value)
            values.append(value)
    return values


def misfit(question: str, values: list) -> str:
    """Return why a result answers no question ("" when it may): empty, a page of rows, or not
    the number a count or a total asks for."""
    present = [value for value in values if value is not None and value != ""]
    if not present:
        return "The query found nothing."
    if len(values) > MAX_VALUES:
        return f"The query returned {len(values)} values, not an answer."
    if _ASKS_NUMBER.search(question) and not (
        len(present) == 1 and isinstance(present[0], int | float)
    ):
        return "The question asks for a number and the query did not return one."
    if _ASKS_THE_ONLY.search(question) and len({fold(str(v)) for v in present}) > 1:
        return "The question asks for the only one and the query returned several."
    if _ASKS_NUMBER.search(question) and present[0] == 0:
        # A small model's condition often spells a value as no cell does ("NED" for
        # "Netherlands"): a count of nothing is more often that than the answer.
        return "The query counted nothing: its condition may match no cell as written."
    return ""


def query_misfit(sql: str, schema: Schema, question: str = "") -> str:
    """Return why a query cannot compute what it seems to ("" when it may): COUNT over a column
    of numbers counts the rows holding one ("how many sacks" is their SUM), so does COUNT(*)
    when the question asks how many of what a column of amounts holds ("how many rooms do we
    have in total" over a Rooms column), and row_number is a row's place in the table, not an
    amount to add."""
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.SqlglotError:
        return ""  # the checks before it ran said why
    amounts, others, headers = set(), set(), {}
    for table in schema.tables:
        for (name, kind), column in zip(table.named.columns, table.grid.columns, strict=True):
            (amounts if kind in _AMOUNTS and _is_amount(column.numbers) else others).add(name)
            headers[name] = column.name
    counted = _counted_amount(question, {name: headers[name] for name in amounts - others})
    for node in tree.find_all(exp.Count):
        if node.find_ancestor(exp.Having):
            continue
        column = node.this
        name = column.name.lower() if isinstance(column, exp.Column) else ""
        if name in amounts - others:
            return (
                f"COUNT({column.name}) counts the rows that hold a {column.name}; if the "
                f"question asks for the total of {column.name}, that is SUM({column.name})."
            )
        if counted and _counts_rows(node, tree, counted[0]):
            return (
                f"COUNT(*) counts rows, and the question asks for what the {counted[1]} column "
                f"({counted[0]}) holds: its total is SUM({counted[0]})."
            )
    for node in tree.find_all(exp.Sum, exp.Avg):
        column = node.this
        if isinstance(column, exp.Column) and column.name.lower() == "row_number":
            return "row_number is a row's place in the table, not an amount to add up."
    return ""


def _counts_rows(node: exp.Count, tree: exp.Expression, column: str) -> bool:
    """Whether a COUNT is the query's answer and counts its rows: COUNT(*) selected at the top
    (not DISTINCT values, not a part of a ratio or of a subquery's order), with no condition on
    the column the question counts ("how many weights are at least 90kg" counts rows)."""
    if not isinstance(node.this, exp.Star):
        return False
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None or not any(p.unalias() is node for p in select.expressions):
        return False
    where = select.args.get("where")
    return where is None or all(c.name.lower() != column for c in where.find_all(exp.Column))


def _counted_amount(question: str, amounts: dict[str, str]) -> tuple[str, str] | None:
    """Return (column, header) when the question's "how many <word>" names a column of amounts
    (`counted_by_header`)."""
    for name, header in amounts.items():
        if counted_by_header(question, header):
            return name, header
    return None


def _is_amount(numbers: list[float | None]) -> bool:
    """Whether a column of numbers holds amounts to add, not years ("how many seasons" counts
    the rows of a Season column) nor places in an order (a different number on each row)."""
    held = [number for number in numbers if number is not None]
    if not held:
        return False
    whole = all(float(number).is_integer() for number in held)
    years = whole and all(1000 <= number <= 2100 for number in held)
    places = whole and len(set(held)) == len(held) and max(held) <= len(held) + 1
    return not years and not places


def run_program(
    sql: str,
    schema: Schema,
    *,
    timeout_ms: int,
    row_limit: int,
    using: str = "default",
    whole_row: bool = False,
) -> list:
    """Run a model's query over the schema's tables and return its values (raises
    ProgramRefused or ProgramStopped)."""
    columns, rows = execute(
        sql, schema.named, row_limit=row_limit, timeout_ms=timeout_ms, using=using
    )
    return result_values(columns, rows, whole_row=whole_row)


def answered_column(sql: str, named: NamedTable) -> int | None:
    """Return the column of the named table whose own cells a query answers with: its first
    selected value (row_number aside) is the column itself or its MIN or MAX, not a sum, a
    count or a computation. None otherwise."""
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.SqlglotError:
        return None
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return None
    projections = [
        node for node in select.expressions if node.alias_or_name.lower() != "row_number"
    ]
    if not projections:
        return None
    node = projections[0].unalias()
    if isinstance(node, exp.Max | exp.Min):
        node = node.this
    if not isinstance(node, exp.Column):
        return None
    names = [name for name, _ in named.columns]
    return names.index(node.name.lower()) if node.name.lower() in names else None


def as_written(values: list, grid: Grid, column: int | None = None) -> list:
    """Return a result's values as the table writes them. A date: the query reads a date
    column as 'YYYY-MM-DD', and "26 February 2010" is the answer the document gives (and
    cites). A number the query read from the cells of `column` (`answered_column`): its cell
    with the unit the table gives it ("28.9%", "$1,200", "2:28:17" for a time the query read as
    seconds)."""
    if column is not None:
        values = [_cell_of(value, grid.columns[column]) for value in values]
    dates = [column for column in grid.columns if column.type == DATE]
    out = []
    for value in values:
        if isinstance(value, str) and dates and _SQL_DATE.match(value):
            number = date_number(value)
            value = next(
                (
                    column.texts[row]
                    for column in dates
                    for row, held in enumerate(column.numbers)
                    if held == number and column.texts[row].strip()
                ),
                value,
            )
        out.append(value)
    return out


def _cell_of(value, column):
    """Return the first filled cell of a column whose number is `value`, or `value` itself."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return value
    return next(
        (
            column.texts[row]
            for row, number in enumerate(column.numbers)
            if number is not None
            and round(number, 6) == round(float(value), 6)
            and column.texts[row].strip()
        ),
        value,
    )


def without_the_named(question: str, values: list) -> list:
    """Return a list the question asks for beside a row it names ("besides Braga, which office
    …?", "the same lead as Lisbon") without that row's value, which a query's condition lets
    through. A value is named when its words are said together after the word asking for the
    others, or it is one word said there nearly (a misspelt name: one letter more or less)."""
    asked = _ASKS_OTHERS.search(question)
    if not asked or len(values) < 2:
        return values
    after = fold(question[asked.end() :])
    said = after.split()

    def named(value) -> bool:
        text = fold(str(value))
        if not text:
            return False
        if f" {text} " in f" {after} ":
            return True
        return " " not in text and any(
            len(text) > 4
            and abs(len(text) - len(other)) <= 1
            and SequenceMatcher(None, text, other).ratio() >= 0.85
            for other in said
        )

    kept = [value for value in values if isinstance(value, int | float) or not named(value)]
    return kept or values


def same_values(left: list, right: list) -> bool:
    """Whether two results assert the same values (numbers by value, text folded)."""

    def key(value):
        if isinstance(value, int | float):
            return ("n", round(float(value), 6))
        return ("t", fold(str(value)))

    return sorted(map(key, left)) == sorted(map(key, right))


def rows_holding(values: list, grid: Grid) -> list[int]:
    """Return the rows (indices) holding a text value of the result in some cell."""
    wanted = {fold(str(v)) for v in values if isinstance(v, str) and v.strip()}
    if not wanted:
        return []
    return [
        row
        for row in range(len(grid.row_numbers))
        if any(column.folded[row] in wanted for column in grid.columns)
    ]
