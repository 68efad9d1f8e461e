"""Dense search: pgvector cosine over the searched KBs' chunks, score = 1 - distance.

Each large KB has an HNSW index of its own (knowledge/vector_index.py), so a search walks
only that KB's graph; a KB without one (below `VECTOR_INDEX_MIN_CHUNKS`, or while its index is
being built) is searched exactly. Several KBs are searched one statement each and merged.

With a metadata filter the search is planned here rather than left to the planner, which
cannot see how many chunks a filter keeps. A filter that keeps at most
`EXACT_FILTER_MAX_CHUNKS` chunks is searched exactly, through the chunk table's document index:
its cost grows with the chunks kept and its results are complete. A broader one goes through
the KB's HNSW index with pgvector's iterative scan (pgvector >= 0.8), which keeps scanning
until it has top_k rows that pass; when it still comes back short (it stops after
`hnsw.max_scan_tuples`), the exact search runs instead. Either way the filter is a condition of
the query itself, and a store returns k hits whenever k chunks pass.
"""

from __future__ import annotations

import numpy as np
from django.db import connections, transaction

from knowledge.retrieval.db import retrieval_alias
from knowledge.retrieval.filters import DocumentFilter, as_filter
from knowledge.vector_index import indexed_kbs

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
    vector = vector_literal(query_vector)
    if not exact and not document_filter.is_empty:
        exact = filtered_chunk_count(kb_ids, document_filter) <= EXACT_FILTER_MAX_CHUNKS
    return _search(kb_ids, vector, top_k, exact, document_filter, fallback=True)


def vector_literal(query_vector) -> str:
    return "[" + ",".join(f"{value:.7g}" for value in np.asarray(query_vector).tolist()) + "]"


def filtered_chunk_count(kb_ids: list[int], document_filter: DocumentFilter) -> int:
    """Return how many chunks of the searched KBs the filter keeps (from document counts)."""
    where, params = document_filter.document_where()
    with connections[retrieval_alias()].cursor() as cursor:
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
    """Return the dense query and its parameters.

    Exact: over every given KB at once. Approximate: one KB (`kb_ids[0]`), named by a literal
    so that the planner can match the KB's partial HNSW index.
    """
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
    kbs = "knowledge_base_id = ANY(%(kbs)s)" if exact else f"knowledge_base_id = {int(kb_ids[0])}"
    # `+ 0`: an order no HNSW index can serve, so an exact search never walks a graph, even
    # where the planner would find every other plan disabled.
    order = "(embedding <=> %(v)s::vector) + 0" if exact else "embedding <=> %(v)s::vector"
    sql = (
        "SELECT id, 1 - (embedding <=> %(v)s::vector) AS score FROM knowledge_chunk "
        f"WHERE {kbs} "
        f"{narrowed}"
        f"ORDER BY {order}, id {limit}"
    )
    return sql, params


def search_settings(top_k: int | None, exact: bool) -> list[str]:
    """Return the statements that set up the dense query's transaction."""
    if exact:
        # The KB's chunks through the bitmap of its index, every one compared, then sorted.
        return ["SET LOCAL enable_indexscan = off", "SET LOCAL enable_sort = on"]
    # A filter runs during the HNSW scan; an iterative scan keeps going until it has top_k rows
    # that pass, so a narrow filter on a large KB still gets its hits.
    return [
        # The KB's own index, whatever the table's statistics say (after a bulk load they may
        # still describe an empty KB, and sorting it would look cheaper): only it gives the
        # order without a sort. Both settings are set both ways: several groups share one
        # transaction.
        "SET LOCAL enable_indexscan = on",
        "SET LOCAL enable_sort = off",
        "SET LOCAL hnsw.iterative_scan = strict_order",
        f"SET LOCAL hnsw.ef_search = {max(40, min(1000, 2 * (top_k or 0)))}",
    ]


def _search(
    kb_ids: list[int],
    vector: str,
    top_k: int | None,
    exact: bool,
    document_filter: DocumentFilter,
    fallback: bool = False,
) -> list[tuple[int, float]]:
    """Search each indexed KB through its index and the others exactly, and merge.

    With `fallback`, a filtered KB whose iterative scan stopped short of top_k is searched
    again exactly, so each KB gives k hits whenever k of its chunks pass.
    """
    alias = retrieval_alias()
    indexed = sorted(indexed_kbs(kb_ids, using=alias)) if not exact else []
    plain = [kb_id for kb_id in kb_ids if kb_id not in set(indexed)]
    groups = [([kb_id], False) for kb_id in indexed] + ([(plain, True)] if plain else [])
    rows: list[tuple[float, int]] = []
    with transaction.atomic(using=alias), connections[alias].cursor() as cursor:

        def run(group: list[int], group_exact: bool) -> list[tuple[int, float]]:
            for statement in search_settings(top_k, group_exact):
                cursor.execute(statement)
            sql, params = search_sql(group, vector, top_k, group_exact, document_filter)
            cursor.execute(sql, params)
            return cursor.fetchall()

        for group, group_exact in groups:
            found = run(group, group_exact)
            short = top_k and len(found) < top_k and not document_filter.is_empty
            if fallback and short and not group_exact:
                found = run(group, True)
            rows.extend((float(score), chunk_id) for chunk_id, score in found)
    rows.sort(key=lambda row: (-row[0], row[1]))
    return [(chunk_id, score) for score, chunk_id in (rows[:top_k] if top_k else rows)]
