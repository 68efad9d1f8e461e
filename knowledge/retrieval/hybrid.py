"""The spec's three searches, run concurrently over exactly the KBs a query may search."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection

from knowledge.retrieval.bm25 import bm25_scores
from knowledge.retrieval.dense import dense_scores
from knowledge.retrieval.filters import DocumentFilter, as_filter
from knowledge.retrieval.graph import graph_scores, graph_top_k
from knowledge.retrieval.hits import SOURCE_BM25, SOURCE_GRAPH, SOURCE_VECTOR, Hit, hydrate
from providers import embedder

_executor: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=3, thread_name_prefix="retrieval")
    return _executor


@dataclass
class RetrievalResult:
    """What the three stores returned for one query, each list best first."""

    vector: list[Hit] = field(default_factory=list)
    bm25: list[Hit] = field(default_factory=list)
    graph: list[Hit] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    query_vector: list[float] | None = None


def _in_thread(function, **kwargs):
    # Pool threads open their own connection per search and close it after: a connection left
    # open in an idle thread would outlive its database (and block a test database's drop).
    started = time.perf_counter()
    try:
        return function(**kwargs), (time.perf_counter() - started) * 1000
    finally:
        connection.close()


def search_stores(
    *,
    kb_ids: list[int],
    query: str,
    top_k: int | None = None,
    graph_k: int | None = None,
    exact: bool = False,
    filters: DocumentFilter | dict | None = None,
) -> RetrievalResult:
    """Run the dense, BM25 and graph searches concurrently and hydrate their hits.

    `filters` (a DocumentFilter, or a run's stored filter JSON) narrows all three searches
    inside their SQL to the documents that pass.
    """
    top_k = top_k or settings.RETRIEVAL_TOP_K
    graph_k = graph_k or graph_top_k(top_k)
    if not kb_ids or not query.strip():
        return RetrievalResult()
    document_filter = as_filter(filters)
    started = time.perf_counter()
    query_vector = embedder.embed_query(query)
    encode_ms = (time.perf_counter() - started) * 1000
    pool = _pool()
    futures = {
        SOURCE_VECTOR: pool.submit(
            _in_thread,
            dense_scores,
            kb_ids=kb_ids,
            query_vector=query_vector,
            top_k=top_k,
            exact=exact,
            filters=document_filter,
        ),
        SOURCE_BM25: pool.submit(
            _in_thread,
            bm25_scores,
            kb_ids=kb_ids,
            query=query,
            top_k=top_k,
            filters=document_filter,
        ),
        SOURCE_GRAPH: pool.submit(
            _in_thread,
            graph_scores,
            kb_ids=kb_ids,
            query=query,
            top_k=graph_k,
            filters=document_filter,
        ),
    }
    scored = {name: future.result() for name, future in futures.items()}
    timings = {f"{name}_ms": round(elapsed, 2) for name, (_, elapsed) in scored.items()}
    timings["encode_ms"] = round(encode_ms, 2)
    result = RetrievalResult(
        vector=hydrate(scored[SOURCE_VECTOR][0], SOURCE_VECTOR),
        bm25=hydrate(scored[SOURCE_BM25][0], SOURCE_BM25),
        graph=hydrate(scored[SOURCE_GRAPH][0], SOURCE_GRAPH),
        query_vector=query_vector.tolist(),
    )
    timings["total_ms"] = round((time.perf_counter() - started) * 1000, 2)
    result.timings_ms = timings
    return result
