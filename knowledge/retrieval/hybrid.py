"""The stores' searches (the spec's three), run concurrently over exactly the KBs a query may
search."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connections

from knowledge.retrieval.db import retrieval_alias
from knowledge.retrieval.filters import DocumentFilter, as_filter
from knowledge.retrieval.hits import Hit, hydrate
from knowledge.retrieval.stores import StoreQuery, stores
from providers import embedder

_executor: ThreadPoolExecutor | None = None


def _pool(size: int) -> ThreadPoolExecutor:
    global _executor
    if _executor is None or _executor._max_workers < size:
        _executor = ThreadPoolExecutor(max_workers=max(size, 3), thread_name_prefix="retrieval")
    return _executor


@dataclass
class RetrievalResult:
    """What each store returned for one query (store name -> hits, best first)."""

    hits: dict[str, list[Hit]] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    query_vector: list[float] | None = None

    def of(self, store: str) -> list[Hit]:
        return self.hits.get(store, [])

    def all(self) -> list[Hit]:
        """Every store's hits, store after store (duplicates kept)."""
        return [hit for hits in self.hits.values() for hit in hits]


def _in_thread(function, *args):
    # Pool threads open their own connection per search and close it after: a connection left
    # open in an idle thread would outlive its database (and block a test database's drop).
    started = time.perf_counter()
    try:
        return function(*args), (time.perf_counter() - started) * 1000
    finally:
        for alias in {"default", retrieval_alias()}:
            connections[alias].close()


def search_stores(
    *,
    kb_ids: list[int],
    query: str,
    top_k: int | None = None,
    exact: bool = False,
    filters: DocumentFilter | dict | None = None,
) -> RetrievalResult:
    """Run every registered store's search concurrently and hydrate their hits.

    `filters` (a DocumentFilter, or a run's stored filter JSON) narrows every search inside
    its SQL to the documents that pass. Each store searches its own width of `top_k` (the
    graph: half, at least 3, as the spec).
    """
    top_k = top_k or settings.RETRIEVAL_TOP_K
    registry = stores()
    if not kb_ids or not query.strip():
        return RetrievalResult(hits={store.name: [] for store in registry})
    document_filter = as_filter(filters)
    started = time.perf_counter()
    query_vector = embedder.embed_query(query)
    encode_ms = (time.perf_counter() - started) * 1000
    pool = _pool(len(registry))
    futures = {
        store.name: pool.submit(
            _in_thread,
            store.search,
            StoreQuery(
                kb_ids=kb_ids,
                query=query,
                query_vector=query_vector,
                top_k=store.width(top_k),
                filters=document_filter,
                exact=exact,
            ),
        )
        for store in registry
    }
    scored = {name: future.result() for name, future in futures.items()}
    timings = {f"{name}_ms": round(elapsed, 2) for name, (_, elapsed) in scored.items()}
    timings["encode_ms"] = round(encode_ms, 2)
    result = RetrievalResult(
        hits={
            store.name: scored[store.name][0]
            if store.computed
            else hydrate(scored[store.name][0], store.name)
            for store in registry
        },
        query_vector=query_vector.tolist(),
    )
    timings["total_ms"] = round((time.perf_counter() - started) * 1000, 2)
    result.timings_ms = timings
    return result
