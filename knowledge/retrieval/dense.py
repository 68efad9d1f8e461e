"""Dense search: pgvector cosine over the searched KBs' chunks, score = 1 - distance.

With a metadata filter the search is planned here rather than left to the planner, which
cannot see how many chunks a filter keeps. A filter that keeps at most
`EXACT_FILTER_MAX_CHUNKS` chunks is searched exactly, through the chunk table's document index:
its cost grows with the chunks kept and its results are complete. A broader one goes through
the HNSW index with pgvector's iterative scan (pgvector >= 0.8), which keeps scanning until it
has top_k rows that pass; when it still comes back short (it stops after
`hnsw.max_scan_tuples`), the exact search runs instead. Either way the filter is a condition of
the query itself, and a store returns k hits whenever k chunks pass.
"""

from __future__ import annotations

import numpy as np
from django.db import connection, transaction

from knowledge.retrieval.filters import DocumentFilter, as_filter

# Exact search over 10,000 kept chunks of 40,000 took about 15 ms here (two shared cores).
EXACT_FILTER_MAX_CHUNKS = 10_000


def dense_scores(
    *,
    kb_ids: list[int],
    query_vector: np.ndarray,
    top_k: int | None = 10,
    exact: bool = False,
    filters: DocumentFilter | dict | None = None,
) -> list[tuple[int, float]]:
    """Return (chunk_id, cosine similarity) of the nearest chunks, best first."""
    if not kb_ids:
        return []
    document_filter = as_filter(filters)
    vector = "[" + ",".join(f"{value:.7g}" for value in np.asarray(query_vector).tolist()) + "]"
    if not exact and not document_filter.is_empty:
        exact = filtered_chunk_count(kb_ids, document_filter) <= EXACT_FILTER_MAX_CHUNKS
        rows = _search(kb_ids, vector, top_k, exact, document_filter)
        if not exact and top_k and len(rows) < top_k:
            rows = _search(kb_ids, vector, top_k, True, document_filter)
        return rows
    return _search(kb_ids, vector, top_k, exact, document_filter)


def filtered_chunk_count(kb_ids: list[int], document_filter: DocumentFilter) -> int:
    """Return how many chunks of the searched KBs the filter keeps (from document counts)."""
    where, params = document_filter.document_where()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT coalesce(sum(d.chunk_count), 0) FROM knowledge_document d WHERE {where}",
            {"kbs": kb_ids, **params},
        )
        return int(cursor.fetchone()[0])


def search_sql(
    kb_ids: list[int],
    vector: str,
    top_k: int | None,
    exact: bool,
    document_filter: DocumentFilter,
) -> tuple[str, dict]:
    """Return the dense query and its parameters."""
    limit = "LIMIT %(limit)s" if top_k else ""
    params = {"v": vector, "kbs": kb_ids, "limit": top_k}
    narrowed = ""
    if not document_filter.is_empty:
        documents, filter_params = document_filter.document_sql()
        params.update(filter_params)
        # ARRAY(subquery) runs once (an InitPlan); the row condition is then a plain check.
        # Exact: the document index finds the kept chunks. HNSW: `+ 0` hides that index from
        # the planner, which would otherwise trade the index's order for a sort of every
        # kept chunk; the scan stays ordered and the iterative scan skips what fails.
        column = "document_id" if exact else "(document_id + 0)"
        narrowed = f"AND {column} = ANY(ARRAY({documents})) "
    sql = (
        "SELECT id, 1 - (embedding <=> %(v)s::vector) AS score FROM knowledge_chunk "
        "WHERE knowledge_base_id = ANY(%(kbs)s) "
        f"{narrowed}"
        f"ORDER BY embedding <=> %(v)s::vector, id {limit}"
    )
    return sql, params


def search_settings(top_k: int | None, exact: bool) -> list[str]:
    """Return the statements that set up the dense query's transaction."""
    if exact:
        # Whatever the table's statistics say, the exact search never walks the HNSW graph.
        return ["SET LOCAL enable_indexscan = off"]
    # The KB filter runs after the HNSW scan; an iterative scan keeps going until it has top_k
    # rows that pass the filter, so a small KB in a big table still gets its hits.
    return [
        "SET LOCAL hnsw.iterative_scan = strict_order",
        f"SET LOCAL hnsw.ef_search = {max(40, min(1000, 2 * (top_k or 0)))}",
    ]


def _search(
    kb_ids: list[int],
    vector: str,
    top_k: int | None,
    exact: bool,
    document_filter: DocumentFilter,
) -> list[tuple[int, float]]:
    sql, params = search_sql(kb_ids, vector, top_k, exact, document_filter)
    with transaction.atomic(), connection.cursor() as cursor:
        for statement in search_settings(top_k, exact):
            cursor.execute(statement)
        cursor.execute(sql, params)
        return [(chunk_id, float(score)) for chunk_id, score in cursor.fetchall()]
