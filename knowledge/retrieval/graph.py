"""Graph search over the entity graph: query entities, then one and two hops to chunks.

First-hop chunks (mention a query entity) score `edge weight x 2.0`. Second-hop chunks are
reached through another entity of a first-hop chunk and add `+0.5` per such path. The graph is
bipartite (chunk - entity), so a hop goes chunk -> entity -> chunk; adRAG looked for entity
neighbours of entities, found none, and never reached a second hop.

Two bounds keep hub entities from exploding the traversal: only the best `FIRST_HOP_LIMIT`
first-hop chunks are expanded, and bridging entities mentioned by more than `HUB_DEGREE` chunks
are not followed.

A metadata filter narrows the graph to the chunks of the documents that pass: a first hop only
lands on them, so only they are expanded, and a second hop only lands on them too.
"""

from __future__ import annotations

from django.db import connections

from knowledge.ingest.entities import query_entities
from knowledge.retrieval.db import retrieval_alias
from knowledge.retrieval.filters import DocumentFilter, as_filter

FIRST_HOP_WEIGHT = 2.0
SECOND_HOP_BONUS = 0.5
FIRST_HOP_LIMIT = 50
HUB_DEGREE = 500


# The query's entities, the chunks that mention them (the first hop), the other entities of
# the best first-hop chunks that are no hubs, and the chunks that mention those (the second
# hop); {first_narrowed} and {second_narrowed} keep the hops on the filtered documents' chunks.
_TRAVERSAL = """
WITH query_entity AS (
    SELECT id FROM knowledge_entity
    WHERE knowledge_base_id = ANY(%(kbs)s) AND name = ANY(%(names)s)
),
first_hop AS (
    SELECT ce.chunk_id, sum(ce.weight) * %(w1)s AS score
    FROM knowledge_chunkentity ce
    WHERE ce.entity_id IN (SELECT id FROM query_entity)
      AND ce.knowledge_base_id = ANY(%(kbs)s)
      {first_narrowed}
    GROUP BY ce.chunk_id
),
expanded AS (
    SELECT chunk_id FROM first_hop ORDER BY score DESC, chunk_id LIMIT %(first_limit)s
),
bridge AS (
    SELECT a.chunk_id AS origin, a.entity_id
    FROM knowledge_chunkentity a
    JOIN expanded e ON e.chunk_id = a.chunk_id
    WHERE a.entity_id NOT IN (SELECT id FROM query_entity)
      AND (SELECT count(*) FROM knowledge_chunkentity d
           WHERE d.entity_id = a.entity_id) <= %(hub)s
),
second_hop AS (
    SELECT b.chunk_id, count(*) * %(w2)s AS score
    FROM bridge
    JOIN knowledge_chunkentity b ON b.entity_id = bridge.entity_id
    WHERE b.chunk_id <> bridge.origin AND b.knowledge_base_id = ANY(%(kbs)s)
      {second_narrowed}
    GROUP BY b.chunk_id
)
SELECT chunk_id, sum(score) AS score
FROM (SELECT * FROM first_hop UNION ALL SELECT * FROM second_hop) AS paths
GROUP BY chunk_id
ORDER BY score DESC, chunk_id
{limit}
"""


def graph_top_k(top_k: int) -> int:
    """Return the graph's width for a store width: max(K // 2, 3), as the spec."""
    return max(top_k // 2, 3)


def graph_scores(
    *,
    kb_ids: list[int],
    query: str,
    top_k: int | None = 5,
    filters: DocumentFilter | dict | None = None,
) -> list[tuple[int, float]]:
    """Return (chunk_id, traversal score) of the best graph matches, best first."""
    names = query_entities(query)
    if not kb_ids or not names:
        return []
    limit = "LIMIT %(limit)s" if top_k else ""
    params = {
        "kbs": kb_ids,
        "names": names,
        "w1": FIRST_HOP_WEIGHT,
        "w2": SECOND_HOP_BONUS,
        "first_limit": FIRST_HOP_LIMIT,
        "hub": HUB_DEGREE,
        "limit": top_k,
    }
    first_narrowed = second_narrowed = ""
    document_filter = as_filter(filters)
    if not document_filter.is_empty:
        chunks, filter_params = document_filter.chunk_sql()
        first_narrowed = f"AND ce.chunk_id IN ({chunks})"
        second_narrowed = f"AND b.chunk_id IN ({chunks})"
        params.update(filter_params)
    with connections[retrieval_alias()].cursor() as cursor:
        cursor.execute(
            _TRAVERSAL.format(
                first_narrowed=first_narrowed, second_narrowed=second_narrowed, limit=limit
            ),
            params,
        )
        return [(chunk_id, float(score)) for chunk_id, score in cursor.fetchall()]
