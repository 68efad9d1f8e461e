"""The document stores, named once: what each is called, how it searches, how wide, how weighted.

Retrieval searches every registered store concurrently; the pipeline's state, the retrieval
event's counts (`<name>_count`, the spec's `vector_count`, `bm25_count` and `graph_count`),
fusion, a re-run's weights, run comparison and the pages all read the stores from here. A new
store is one `register` call with its search function.

The spec's three are the registry's first entries, in the spec's concatenation order (which
breaks fusion ties), then the table store (knowledge/tables/store.py); the web search of the external-tools stage is no document store, but its
results are a fourth fused list (`WEB`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings

from knowledge.retrieval.bm25 import bm25_scores
from knowledge.retrieval.dense import dense_scores
from knowledge.retrieval.filters import DocumentFilter
from knowledge.retrieval.graph import graph_scores, graph_top_k
from knowledge.retrieval.hits import (
    SOURCE_BM25,
    SOURCE_GRAPH,
    SOURCE_TABLE,
    SOURCE_VECTOR,
    SOURCE_WEB,
)
from knowledge.tables.store import table_search

WEB = SOURCE_WEB


@dataclass(frozen=True)
class StoreQuery:
    """What every store's search receives."""

    kb_ids: list[int]
    query: str
    query_vector: object  # the query's embedding (a numpy vector)
    top_k: int  # this store's width
    filters: DocumentFilter | None
    exact: bool = False


# A search returns (chunk_id, score) pairs, best first, on the store's own scale (a computed
# store: Hits).
Search = Callable[[StoreQuery], list]


@dataclass(frozen=True)
class Store:
    """A document store: its name (the wire's `<name>_count`), its label in the spec's
    retrieval message, its search, its width for a run's top K, and its fusion weight."""

    name: str
    label: str
    search: Search
    width: Callable[[int], int] = lambda top_k: top_k
    weight_setting: str = ""
    default_weight: float = 1.0
    # A store whose search returns Hits it computed (the table store), not chunk ids to load.
    computed: bool = False

    def weight(self) -> float:
        if not self.weight_setting:
            return self.default_weight
        return float(getattr(settings, self.weight_setting, self.default_weight))


_STORES: dict[str, Store] = {}


def register(store: Store) -> Store:
    """Add a store (after those registered before it); return it."""
    _STORES[store.name] = store
    return store


def unregister(name: str) -> None:
    _STORES.pop(name, None)


@contextmanager
def registered(store: Store) -> Iterator[Store]:
    """Register a store for the duration of a block (tests, experiments)."""
    register(store)
    try:
        yield store
    finally:
        unregister(store.name)


def stores() -> list[Store]:
    """Return the registered stores, in their fusion order."""
    return list(_STORES.values())


def store_names() -> list[str]:
    return list(_STORES)


def fusion_lists() -> list[str]:
    """Return the names of the fused candidate lists: the stores, then web search."""
    return [*_STORES, WEB]


def fusion_weights() -> dict[str, float]:
    """Return the RRF weight of each fused list, from settings."""
    return {**{store.name: store.weight() for store in stores()}, WEB: settings.FUSION_WEIGHT_WEB}


def describe() -> list[dict[str, str]]:
    """Return the stores as the pages need them: name and label, in order."""
    return [{"name": store.name, "label": store.label} for store in stores()]


def _dense(q: StoreQuery) -> list[tuple[int, float]]:
    return dense_scores(
        kb_ids=q.kb_ids,
        query_vector=q.query_vector,
        top_k=q.top_k,
        exact=q.exact,
        filters=q.filters,
    )


def _bm25(q: StoreQuery) -> list[tuple[int, float]]:
    return bm25_scores(kb_ids=q.kb_ids, query=q.query, top_k=q.top_k, filters=q.filters)


def _graph(q: StoreQuery) -> list[tuple[int, float]]:
    return graph_scores(kb_ids=q.kb_ids, query=q.query, top_k=q.top_k, filters=q.filters)


register(Store(SOURCE_VECTOR, "Vector", _dense, weight_setting="FUSION_WEIGHT_VECTOR"))
register(Store(SOURCE_BM25, "BM25", _bm25, weight_setting="FUSION_WEIGHT_BM25"))
register(
    Store(
        SOURCE_GRAPH,
        "Graph",
        _graph,
        width=graph_top_k,
        weight_setting="FUSION_WEIGHT_GRAPH",
        default_weight=0.3,
    )
)
# Tables kept as data (knowledge/tables/): a program's computed passage and the rows it read.
register(
    Store(SOURCE_TABLE, "Tables", table_search, weight_setting="FUSION_WEIGHT_TABLE", computed=True)
)
