"""Retrieval: the three store searches, concurrently, over the KBs this run may search."""

from __future__ import annotations

from knowledge.retrieval.bm25 import corpus_stats, document_frequencies
from knowledge.retrieval.hybrid import search_stores
from providers.tokenize import bm25_tokens
from queries.pipeline import stages
from queries.pipeline.context import run_context
from queries.pipeline.state import RAGState, question


def retrieval(state: RAGState, config) -> dict:
    """Search vector, BM25 and graph stores; skip in direct-answer mode."""
    run = run_context(config)
    run.check_cancelled()
    if not state.get("retrieve", True):
        run.emit(
            stages.STAGE_SKIP,
            {"stage": stages.RETRIEVAL, "message": "Retrieval skipped — direct answer mode"},
        )
        return {"vector_hits": [], "bm25_hits": [], "graph_hits": []}
    run.emit(
        stages.STAGE_START,
        {
            "stage": stages.RETRIEVAL,
            "message": "Running hybrid retrieval — Vector + BM25 + GraphRAG...",
        },
    )
    query = state.get("retrieval_query") or state["query"]
    # The run's metadata filters narrow every store's SQL; web search (external tools) is no
    # document store and is not filtered.
    result = search_stores(
        kb_ids=run.kb_ids, query=query, top_k=run.retrieval_top_k, filters=run.filters or None
    )
    run.timings_ms.update({f"retrieval_{k}": v for k, v in result.timings_ms.items()})
    counts = (len(result.vector), len(result.bm25), len(result.graph))
    run.emit(
        stages.RETRIEVAL_RESULT,
        {
            "stage": stages.RETRIEVAL,
            "vector_count": counts[0],
            "bm25_count": counts[1],
            "graph_count": counts[2],
            "message": f"Vector: {counts[0]} | BM25: {counts[1]} | Graph: {counts[2]}",
            # Additive: each store's chunk ids, best first, for comparing runs.
            "hits": {
                "vector": [hit.chunk_id for hit in result.vector],
                "bm25": [hit.chunk_id for hit in result.bm25],
                "graph": [hit.chunk_id for hit in result.graph],
            },
        },
    )
    update = {
        "vector_hits": [hit.to_state() for hit in result.vector],
        "bm25_hits": [hit.to_state() for hit in result.bm25],
        "graph_hits": [hit.to_state() for hit in result.graph],
    }
    if "term_stats" not in state:
        update["term_stats"] = question_term_stats(run.kb_ids, question(state))
    return update


def question_term_stats(kb_ids: list[int], text: str) -> dict:
    """Return how many chunks the searched KBs hold, and how many of them hold each term.

    The answer check reads them: a question term no document ever uses is one the
    documents cannot answer.
    """
    terms = list(dict.fromkeys(bm25_tokens(text)))
    if not kb_ids or not terms:
        return {"chunks": 0, "df": {}}
    frequencies = document_frequencies(kb_ids, terms)
    return {
        "chunks": corpus_stats(kb_ids).chunk_count,
        "df": {term: frequencies.get(term, 0) for term in terms},
    }
