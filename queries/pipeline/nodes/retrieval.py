"""Retrieval: every store's search (the spec's three), concurrently, over the KBs this run may
search."""

from __future__ import annotations

import logging
import time

from knowledge.retrieval.hits import SOURCE_TABLE, Hit
from knowledge.retrieval.registry import StoreRegistry
from knowledge.tables.store import KIND_COMPUTED
from providers.llm.base import ProviderError, RunCancelled, log_failure, public_error
from providers.tokenize import bm25_tokens
from queries.pipeline import stages
from queries.pipeline.context import run_context
from queries.pipeline.state import RAGState, question

logger = logging.getLogger(__name__)

# What the retrieval event says of a table program.
PROGRAM_KEYS = ("words", "result", "values", "confidence", "caption", "rows", "program")
# The spec's start message names the graph store "GraphRAG".
RUNNING_LABELS = {"graph": "GraphRAG"}


def retrieval(state: RAGState, config) -> dict:
    """Search every store (vector, BM25 and graph); skip in direct-answer mode."""
    run = run_context(config)
    run.check_cancelled()
    registry = run.stores.stores()
    if not state.get("retrieve", True):
        run.emit(
            stages.STAGE_SKIP,
            {"stage": stages.RETRIEVAL, "message": "Retrieval skipped — direct answer mode"},
        )
        return {"store_hits": {store.name: [] for store in registry}}
    run.emit(
        stages.STAGE_START,
        {
            "stage": stages.RETRIEVAL,
            "message": "Running hybrid retrieval — "
            + " + ".join(RUNNING_LABELS.get(s.name, s.label) for s in registry)
            + "...",
        },
    )
    query = state.get("retrieval_query") or state["query"]
    # The run's metadata filters narrow every store's SQL; web search (external tools) is no
    # document store and is not filtered.
    result = run.stores.search(
        kb_ids=run.kb_ids,
        query=query,
        top_k=run.config.retrieval_top_k,
        filters=run.filters or None,
    )
    run.timings_ms.update({f"retrieval_{k}": v for k, v in result.timings_ms.items()})
    query_outcome = (
        _model_table_query(run, query, result) if run.strategy.writes_table_queries else None
    )
    tentative, program = _table_program(result)
    run.emit(stages.RETRIEVAL_RESULT, _result_event(registry, result, program, query_outcome))
    update = {
        "store_hits": {
            name: [hit.to_state() for hit in hits] for name, hits in result.hits.items()
        },
        "tentative_docs": [hit.to_state() for hit in tentative],
    }
    if "term_stats" not in state:
        update["term_stats"] = question_term_stats(run.stores, run.kb_ids, question(state))
    return update


def _table_program(result) -> tuple[list[Hit], dict]:
    """Return the hits of a tentative table program, taken out of the candidates, and what the
    retrieval event says of the table program the table store ran ({} when none)."""
    computed = next(
        (hit for hits in result.hits.values() for hit in hits if hit.kind == KIND_COMPUTED), None
    )
    tentative: list[Hit] = []
    if computed is not None and (computed.structure or {}).get("tentative"):
        # A program the rules do not admit is no candidate: it is the answer only when the
        # passages find nothing (reflect's finalize), so its hits are kept aside.
        tentative, result.hits[SOURCE_TABLE] = result.of(SOURCE_TABLE), []
    shown = {key: computed.structure[key] for key in PROGRAM_KEYS} if computed else {}
    program = (
        # Additive: the table program the table store ran, in words, with its result; a
        # tentative one as `tentative_program`.
        {"tentative_program" if tentative else "program": shown} if computed else {}
    )
    return tentative, program


def _result_event(registry, result, program: dict, query_outcome: dict | None) -> dict:
    """Return the retrieval result event: each store's count and chunk ids, and the table
    program's."""
    return {
        "stage": stages.RETRIEVAL,
        # The spec's vector_count, bm25_count and graph_count: one per store.
        **{f"{store.name}_count": len(result.of(store.name)) for store in registry},
        "message": " | ".join(f"{store.label}: {len(result.of(store.name))}" for store in registry),
        # Additive: each store's chunk ids, best first, for comparing runs.
        "hits": {store.name: [hit.chunk_id for hit in result.of(store.name)] for store in registry},
        **program,
        # Additive: a model's table query that did not answer (declined, refused, stopped
        # or unfit), and why; the parser's program answered instead, if one fits.
        **({"table_query": query_outcome} if query_outcome else {}),
    }


def _model_table_query(run, query: str, result) -> dict | None:
    """Let the run's model write the table store's program (the run's stores' table_query:
    knowledge/tables/model_search.py) and put its hits in place of the parser's. Returns what happened to a
    query that did not answer, or None."""
    started = time.perf_counter()

    def write(schema: str, question: str, problem: str) -> str:
        asked = (question, schema, problem, run.call.temperature)
        if asked not in run.table_queries:
            # The same prompt at the same temperature (a retry's second retrieval) gets the
            # same query: it is asked once.
            run.table_queries[asked] = run.strategy.write_table_query(
                question, schema, run.call, problem=problem
            )
        return run.table_queries[asked]

    try:
        hits, outcome = run.stores.table_query(
            kb_ids=run.kb_ids,
            query=query,
            filters=run.filters or None,
            write=write,
            parser_hits=result.of("table"),
        )
    except ProviderError as exc:
        log_failure(logger, "table query", exc)
        return {"outcome": "failed", "reason": public_error(exc), "sql": ""}
    except RunCancelled:
        raise
    except Exception:  # noqa: BLE001 - the model's query must never fail the run
        logger.exception("a table query failed")
        return {"outcome": "failed", "reason": "The table query failed.", "sql": ""}
    finally:
        run.timings_ms["retrieval_table_query"] = round((time.perf_counter() - started) * 1000, 1)
    result.hits["table"] = hits
    return outcome


def question_term_stats(registry: StoreRegistry, kb_ids: list[int], text: str) -> dict:
    """Return how many chunks the searched KBs hold, and how many of them hold each term.

    The answer check reads them: a question term no document ever uses is one the
    documents cannot answer.
    """
    terms = list(dict.fromkeys(bm25_tokens(text)))
    if not kb_ids or not terms:
        return {"chunks": 0, "df": {}}
    return registry.term_counts(kb_ids, terms)
