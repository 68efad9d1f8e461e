"""The table store's search with a model: the model writes the program as SQL.

With a generative provider, the model writes a query over the question's tables
(knowledge/tables/model_sql.py, sql.py); the parser's program (knowledge/tables/store.py) is
its fallback and its judge.
"""

from __future__ import annotations

import time

from django.conf import settings

from knowledge.retrieval.db import retrieval_alias
from knowledge.retrieval.hits import Hit
from knowledge.tables.choice import TableChoice
from knowledge.tables.follows import followed
from knowledge.tables.judge import probability
from knowledge.tables.model_sql import (
    answered_column,
    as_written,
    build_schema,
    extract_sql,
    misfit,
    query_misfit,
    rows_holding,
    run_program,
    same_values,
    without_the_named,
)
from knowledge.tables.rules import asks_for_a_computation, relevance, signals
from knowledge.tables.sql import ProgramFailed, ProgramRefused, ProgramStopped
from knowledge.tables.steps import asks_for_one, split_two_step
from knowledge.tables.store import (
    candidate_tables,
    computed_hits,
    document_tables,
    load_grid,
    supported,
)
from knowledge.tables.wording import CITED_ROWS, answer_values, said_values


def _main_table(sql: str, schema) -> int:
    """Return the index of the schema table a query reads first."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.SqlglotError:
        return 0
    names = [table.named.name for table in schema.tables]
    for table in tree.find_all(exp.Table):
        if table.name.lower() in names:
            return names.index(table.name.lower())
    return 0


def model_table_search(
    kb_ids: list[int], query: str, filters, write, parser_hits: list[Hit]
) -> tuple[list[Hit], dict | None]:
    """The table store's search with a model: the model writes a query over the question's
    tables (`write(schema_text, question, problem)` returns its reply); it is checked, run and
    judged (knowledge/tables/model_sql.py), and a query that failed as written or found no
    answer is shown to the model again with its problem (TABLE_QUERY_RETRIES times). Returns
    the hits (the model's result, or the parser's when the model declined or its query was
    refused, stopped or unfit) and, in those cases, what happened to the last query
    ({"outcome", "reason", "sql"}), else None."""
    if not asks_for_a_computation(query):
        # A lookup of a row is quoted from its chunk, or read by the parser's program when it
        # accounts for the whole question: a model call would cost seconds for the same cell.
        return parser_hits, None
    if parser_hits and parser_hits[0].score >= settings.TABLE_PARSER_SURE:
        # The judge is sure enough of the parser's program to verify it: no model call.
        return parser_hits, None
    if parser_hits and (parser_hits[0].structure or {}).get("step") == "word":
        # The parser compared the two rows the question names and answers with one of the two
        # words it offers ("more or less"); a query returns a row or a number, not the word.
        return parser_hits, None
    loaded = []
    for table_id in candidate_tables(kb_ids, query, filters):
        found = load_grid(table_id)
        if found is not None:
            loaded.append((table_id, found[0], found[1], found[2]))
    # A question about none of the tables (a prose question beside them) costs no model call.
    if not loaded or (
        max(relevance(query, grid) for _, grid, _, _ in loaded) < settings.TABLE_RELEVANCE_MIN
        and not supported(kb_ids, query, filters, [table_id for table_id, *_ in loaded])
    ):
        return parser_hits, None
    shown = {table_id for table_id, *_ in loaded}
    document_id, file_name = loaded[0][2], loaded[0][3]
    for table_id, grid in document_tables(document_id):  # a workbook's other sheets: a join
        if table_id not in shown:
            loaded.append((table_id, grid, document_id, file_name))
    schema = build_schema(loaded)
    shown_schema, problem, outcome = schema.text(query), "", None
    for _ in range(1 + max(0, settings.TABLE_QUERY_RETRIES)):
        sql = extract_sql(write(shown_schema, query, problem))
        if sql is None:
            reason = "The model wrote no query."
            if outcome:  # it declined to correct its first query
                reason = f"The model wrote no corrected query after: {outcome['reason']}"
            return parser_hits, {"outcome": "declined", "reason": reason, "sql": ""}
        values, outcome = _run(sql, schema, query)
        if outcome is None:
            return _model_hits(query, sql, values, schema.tables[_main_table(sql, schema)]), None
        if not outcome.pop("correctable"):
            break
        # The query failed as written or found no answer: the model sees it with its problem.
        problem = f"{sql}\n-- {outcome['reason']}"
    return parser_hits, outcome


def _run(sql: str, schema, query: str) -> tuple[list, dict | None]:
    """Run a model's query: its values, or what became of it ({"outcome", "reason", "sql",
    "correctable"}: a query that fails as written or is unfit may be corrected, one refused
    for what it does or stopped by its timeout may not)."""
    try:
        values = run_program(
            sql,
            schema,
            timeout_ms=settings.TABLE_QUERY_TIMEOUT_MS,
            row_limit=settings.TABLE_QUERY_ROW_LIMIT,
            using=retrieval_alias(),
            whole_row=bool(split_two_step(query)[1]),
        )
    except ProgramRefused as exc:
        failed = isinstance(exc, ProgramFailed)
        return [], {"outcome": "refused", "reason": str(exc), "sql": sql, "correctable": failed}
    except ProgramStopped as exc:
        return [], {"outcome": "stopped", "reason": str(exc), "sql": sql, "correctable": False}
    why = misfit(split_two_step(query)[0], values) or query_misfit(sql, schema, query)
    if why:
        return [], {"outcome": "unfit", "reason": why, "sql": sql, "correctable": True}
    return values, None


def _model_hits(query: str, sql: str, values: list, shown) -> list[Hit]:
    """Return the computed passage of a model's query result, then the rows it cites: those of
    the parser's programs that compute the same (whose probability is the confidence), else
    the rows holding the result's text."""
    started = time.perf_counter()
    grid = shown.grid
    values = without_the_named(query, as_written(values, grid, answered_column(sql, shown.named)))
    if asks_for_one(query) and not any(isinstance(value, int | float) for value in values):
        values = values[:1]  # "name a nation that won no gold": any of them, the first listed
    found = followed(query, grid)
    agreeing = [c for c in found if same_values(c.result.values, values)]
    # The judge's probability that the parser's likeliest program computing the same is right:
    # summing every agreeing program would count the many that happen to read the first row.
    confidence = 0.0
    if agreeing:
        choice = TableChoice(0, 0, "", grid, agreeing[0], relevance(query, grid))
        confidence = probability(signals(query, choice, found))
    holding = rows_holding(values, grid)
    rows = agreeing[0].result.rows if agreeing else holding
    computed = not holding or any(isinstance(value, int | float) for value in values)
    said = said_values(values)
    words = f"Computed by the model's query over {grid.label}: {' '.join(sql.split())}"
    row_chunks = list(
        dict.fromkeys(grid.chunk_ids[row] for row in rows[:CITED_ROWS] if grid.chunk_ids[row])
    )
    structure = {
        "program": {"op": "sql", "sql": sql, "by": "model", "table": shown.named.name},
        "words": words,
        "values": answer_values(values),
        "computed": computed,
        "result": said,
        "confidence": round(confidence, 4),
        "relevance": round(relevance(query, grid), 4),
        "table_id": shown.named.table_id,
        "rows": [grid.row_numbers[row] for row in rows[:CITED_ROWS]],
        "row_chunks": row_chunks,
        "caption": grid.label,
        "ms": round((time.perf_counter() - started) * 1000, 1),
    }
    return computed_hits(structure, shown.document_id, shown.file_name)
