"""Dense search: pgvector cosine over the searched KBs' chunks, score = 1 - distance."""

from __future__ import annotations

import numpy as np
from django.db import connection, transaction


def dense_scores(
    *, kb_ids: list[int], query_vector: np.ndarray, top_k: int | None = 10, exact: bool = False
) -> list[tuple[int, float]]:
    """Return (chunk_id, cosine similarity) of the nearest chunks, best first."""
    if not kb_ids:
        return []
    vector = "[" + ",".join(f"{value:.7g}" for value in np.asarray(query_vector).tolist()) + "]"
    limit = "LIMIT %(limit)s" if top_k else ""
    with transaction.atomic(), connection.cursor() as cursor:
        if exact:
            cursor.execute("SET LOCAL enable_indexscan = off")
        else:
            # The KB filter runs after the HNSW scan; an iterative scan keeps going until it has
            # top_k rows that pass the filter, so a small KB in a big table still gets its hits.
            cursor.execute("SET LOCAL hnsw.iterative_scan = strict_order")
            cursor.execute(f"SET LOCAL hnsw.ef_search = {max(40, min(1000, 2 * (top_k or 0)))}")
        cursor.execute(
            "SELECT id, 1 - (embedding <=> %(v)s::vector) AS score FROM knowledge_chunk "
            "WHERE knowledge_base_id = ANY(%(kbs)s) "
            f"ORDER BY embedding <=> %(v)s::vector, id {limit}",
            {"v": vector, "kbs": kb_ids, "limit": top_k},
        )
        return [(chunk_id, float(score)) for chunk_id, score in cursor.fetchall()]
