"""A table query written by a model, checked before it runs and run so it cannot do harm.

A model is shown the schema of the tables a question may read (each a name, its columns with
their types, a few rows) and writes one SQL SELECT over those names. Before it runs,
`check` parses it with sqlglot (PostgreSQL dialect) and refuses anything but one SELECT
(a WITH of SELECTs, a UNION of SELECTs) that reads only the named tables, calls only the
functions of `FUNCTIONS`, and joins no two tables without a join condition. `execute` then runs
it over exactly those tables' rows (each named table is a common table expression over
`knowledge_tablerow` of one table id, which the caller resolved from the knowledge bases the
run may search: another team's table has no name here), in a read-only transaction with a
statement timeout, returning at most `row_limit` rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlglot
from django.db import connections, transaction
from django.db.utils import OperationalError
from sqlglot import exp

from knowledge.tables.cells import DATE, DURATION, NUMBER

# Functions a table query may call: aggregates, arithmetic, text and date helpers, and the
# connectives and CASE, which sqlglot parses as functions too.
FUNCTIONS = frozenset(
    """count sum avg min max abs round ceil floor trunc lower upper length trim substring
    coalesce nullif greatest least cast try_cast concat replace position strpos left right
    extract date_part year month day stddev variance percentile_cont mode
    and or case if""".split()
)
# Statements and clauses a table query may not hold.
_FORBIDDEN = (
    exp.Insert, exp.Update, exp.Delete, exp.Drop, exp.Create, exp.Alter, exp.Command,
    exp.Into, exp.Copy, exp.Set, exp.Transaction, exp.Commit, exp.Rollback, exp.Lock,
    exp.Merge, exp.TruncateTable, exp.Grant,
)  # fmt: skip
_NAME = re.compile(r"[^a-z0-9]+")


class ProgramRefused(Exception):
    """A query that may not run; the message says why, as a user may read it."""


# SQLSTATE classes of a query wrong as written (42: syntax or access rule, 22: data), but 42501
# (no privilege); 57014: cancelled by the statement timeout.
_CORRECTABLE = ("42", "22")
_PRIVILEGE = "42501"
_CANCELLED = "57014"
# The terminal colours sqlglot's parse errors underline with.
_ESCAPES = re.compile(r"\x1b\[[0-9;]*m")
# An apostrophe inside a word of a text literal ("O'Neill"), which a model leaves single.
_APOSTROPHE = re.compile(r"(?<=[^\W\d_])'(?=[^\W\d_])")


class ProgramFailed(ProgramRefused):
    """A query that is allowed but fails as written (it does not parse, or the database rejects
    it): its writer may correct it."""


class ProgramStopped(Exception):
    """A query stopped while it ran (its timeout)."""


class _RolledBack(Exception):
    """Ends the query's transaction by rolling it back."""


@dataclass(frozen=True)
class NamedTable:
    """A table a query may read: its name in SQL, its stored id, its columns (SQL name, type)."""

    name: str
    table_id: int
    columns: tuple[tuple[str, str], ...]


# PostgreSQL's reserved key words (`pg_get_keywords()` with catcode R or T; a test compares):
# a header "From", "To" or "Order", or the "column" an unnamed header becomes, would be a name a
# model's query cannot write without quotes. 12 % of the training split's dev-fifth questions
# were over a table with one.
RESERVED = frozenset(
    """
    all analyse analyze and any array as asc asymmetric authorization binary both case cast
    check collate collation column concurrently constraint create cross current_catalog
    current_date current_role current_schema current_time current_timestamp current_user
    default deferrable desc distinct do else end except false fetch for foreign freeze from
    full grant group having ilike in initially inner intersect into is isnull join lateral
    leading left like limit localtime localtimestamp natural not notnull null offset on only
    or order outer overlaps placing primary references returning right select session_user
    similar some symmetric system_user table tablesample then to trailing true union unique
    user using variadic verbose when where window with
    """.split()
)


def sql_name(text: str, taken: set[str] | None = None) -> str:
    """Return a lower-case SQL identifier for a caption or a header, unique among `taken`: a
    name that starts with a digit or is a reserved word starts with "c_"."""
    name = _NAME.sub("_", str(text).lower()).strip("_") or "column"
    if name[0].isdigit() or name in RESERVED:
        name = f"c_{name}"
    base, n = name, 2
    while taken is not None and name in taken:
        name, n = f"{base}_{n}", n + 1
    if taken is not None:
        taken.add(name)
    return name


def named_table(name: str, table_id: int, columns: list[dict]) -> NamedTable:
    taken: set[str] = {"row_number"}
    return NamedTable(
        name,
        table_id,
        tuple((sql_name(column["name"], taken), column["type"]) for column in columns),
    )


def _parse(sql: str) -> list:
    """Return a query's statements; one whose only fault is an apostrophe in a name left single
    ('O'Neill', 'Don't Stop') is read with it doubled, as SQL writes it."""
    try:
        return sqlglot.parse(sql, read="postgres")
    except sqlglot.errors.SqlglotError:
        if not _APOSTROPHE.search(sql):
            raise
        try:
            return sqlglot.parse(_APOSTROPHE.sub("''", sql), read="postgres")
        except sqlglot.errors.SqlglotError:
            pass
        raise


def check(sql: str, tables: list[NamedTable]) -> str:
    """Return the query as it will run, or raise ProgramRefused saying why it may not."""
    try:
        statements = _parse(sql.strip().rstrip(";"))
    except sqlglot.errors.SqlglotError as exc:  # its parser's errors and its tokenizer's
        said = _ESCAPES.sub("", str(exc)).splitlines()[0][:200]
        raise ProgramFailed(f"The query could not be parsed: {said}") from exc
    statements = [statement for statement in statements if statement is not None]
    if len(statements) != 1:
        raise ProgramRefused("A table query is one SELECT statement.")
    tree = statements[0]
    if not isinstance(tree, exp.Select | exp.Union | exp.Intersect | exp.Except):
        raise ProgramRefused(f"Only a SELECT may run, not {tree.key.upper()}.")
    for node in tree.walk():
        if isinstance(node, _FORBIDDEN):
            raise ProgramRefused(f"{node.key.upper()} is not allowed in a table query.")
        if isinstance(node, exp.Select) and node.args.get("locks"):
            raise ProgramRefused("A table query may not lock rows.")
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    allowed = {table.name for table in tables} | ctes
    for table in tree.find_all(exp.Table):
        if table.args.get("db") or table.args.get("catalog"):
            raise ProgramRefused(f"The query names a table outside this question: {table.sql()}.")
        if table.name.lower() not in allowed:
            raise ProgramRefused(
                f"The query reads {table.name!r}, which is not one of this question's tables "
                f"({', '.join(sorted(t.name for t in tables))})."
            )
    for function in tree.find_all(exp.Func):
        if isinstance(function, exp.Anonymous):
            name = str(function.this).lower()
        else:
            name = function.sql_name().lower()
        if name not in FUNCTIONS:
            raise ProgramRefused(f"The function {name}() is not allowed in a table query.")
    for join in tree.find_all(exp.Join):
        if not join.args.get("on") and not join.args.get("using"):
            raise ProgramRefused("Tables may only be joined on a condition (no cross join).")
    for select in tree.find_all(exp.Select):
        sources = select.args.get("from")
        if sources and len(sources.expressions) > 1:  # FROM a, b: a cross join
            raise ProgramRefused("Tables may only be joined on a condition (no cross join).")
    return tree.sql(dialect="postgres")


def _cte(table: NamedTable) -> tuple[str, list]:
    columns = ["r.number AS row_number"]
    for index, (name, kind) in enumerate(table.columns):
        if kind in (NUMBER, DURATION):
            columns.append(f"(r.values->>{index})::double precision AS {name}")
        elif kind == DATE:
            columns.append(f"(r.values->>{index}) AS {name}")
        else:
            columns.append(f"(r.values->>{index}) AS {name}")
    return (
        f"{table.name} AS (SELECT {', '.join(columns)} FROM knowledge_tablerow r "
        f"WHERE r.table_id = %s)",
        [table.table_id],
    )


def execute(
    sql: str,
    tables: list[NamedTable],
    *,
    row_limit: int = 200,
    timeout_ms: int = 2000,
    using: str = "default",
) -> tuple[list[str], list[tuple]]:
    """Check a query, run it over the named tables only, and return its columns and rows.

    Raises ProgramRefused (it may not run, or it failed) or ProgramStopped (its timeout)."""
    checked = check(sql, tables)
    parts, params = [], []
    for table in tables:
        text, values = _cte(table)
        parts.append(text)
        params += values
    # The model's text is no parameter: its % signs are escaped, the table ids are bound.
    query = (
        f"WITH {', '.join(parts)} SELECT * FROM ({checked.replace('%', '%%')}) AS program "
        f"LIMIT {int(row_limit) + 1}"
    )
    read: dict = {}
    try:
        # Rolled back whatever happens: the read-only mode and the timeout end with it, even
        # inside a caller's transaction (a savepoint), and nothing it did can stay.
        with transaction.atomic(using=using), connections[using].cursor() as cursor:
            cursor.execute("SET TRANSACTION READ ONLY")
            cursor.execute(f"SET LOCAL statement_timeout = {int(timeout_ms)}")
            cursor.execute(query, params)
            read["columns"] = [column.name for column in cursor.description]
            read["rows"] = cursor.fetchall()
            raise _RolledBack
    except _RolledBack:
        pass
    except Exception as exc:  # noqa: BLE001 - a model's query fails in many ways
        state = getattr(exc.__cause__, "sqlstate", None) or getattr(exc, "sqlstate", None) or ""
        if state == _CANCELLED or (
            isinstance(exc, OperationalError) and "statement timeout" in str(exc)
        ):
            raise ProgramStopped(
                f"The query ran longer than {timeout_ms} ms and was stopped."
            ) from exc
        said = f"The query failed: {str(exc).splitlines()[0][:200]}"
        # A query the database rejects as written (a syntax error, a column it does not know, a
        # value of the wrong type) may be corrected; a lost connection or a write it refused
        # may not.
        if state[:2] in _CORRECTABLE and state != _PRIVILEGE:
            raise ProgramFailed(said) from exc
        raise ProgramRefused(said) from exc
    columns, rows = read["columns"], read["rows"]
    if len(rows) > row_limit:
        raise ProgramRefused(f"The query returned more than {row_limit} rows.")
    return columns, rows
