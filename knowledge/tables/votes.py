"""The tables' votes for a question when a knowledge base holds many: the passages BM25 ranks
highest, and those the embedder finds nearest, vote for their tables (knowledge/tables/store.py
shortlists the tables with the most; knowledge/tables/finding.py orders them).
"""

from __future__ import annotations

from knowledge.models import TableRow
from knowledge.retrieval.bm25 import bm25_scores
from knowledge.retrieval.db import retrieval_alias
from knowledge.retrieval.dense import dense_scores
from providers.embedder import embed_query

# The passages that vote, by each ranking: this many; each table votes by its best rows, this
# many.
VOTING_CHUNKS = 300
VOTING_ROWS = 2


def lexical_votes(kb_ids: list[int], query: str, filters, tables) -> dict[int, float]:
    """Return each table's vote: the BM25 scores of its two best rows for the question. A
    question names a row or two; a sum over every row that matches would favour long tables,
    whose every row repeats the header a question says (measured on the dev fifth's 340 tables
    in one knowledge base: the question's table first for 151 of 300 questions, against 109)."""
    scored = bm25_scores(kb_ids=kb_ids, query=query, top_k=VOTING_CHUNKS, filters=filters)
    return by_table(dict(scored), tables) if scored else {}


def dense_votes(kb_ids: list[int], query: str, filters, tables) -> dict[int, float]:
    """Return each table's vote by the embedder: the cosines of its two rows nearest the
    question, among the VOTING_CHUNKS nearest chunks."""
    nearest = dense_scores(
        kb_ids=kb_ids, query_vector=embed_query(query), top_k=VOTING_CHUNKS, filters=filters
    )
    return by_table(dict(nearest), tables)


def by_table(by_chunk: dict[int, float], tables) -> dict[int, float]:
    """Return each table's vote: the sum of its VOTING_ROWS best rows' scores."""
    rows: dict[int, list[float]] = {}
    for table_id, chunk_id in (
        TableRow.objects.using(retrieval_alias())
        .filter(chunk_id__in=by_chunk)
        .values_list("table_id", "chunk_id")
    ):
        rows.setdefault(table_id, []).append(by_chunk[chunk_id])
    allowed = set(tables.filter(id__in=rows).values_list("id", flat=True))
    return {
        table_id: sum(sorted(scores)[-VOTING_ROWS:])
        for table_id, scores in rows.items()
        if table_id in allowed
    }
