"""Rerank the aggregated candidates with the active reranker and keep the best."""

from __future__ import annotations

import numpy as np

from knowledge.models import Chunk
from knowledge.retrieval.bm25 import corpus_stats, term_idfs
from knowledge.retrieval.db import retrieval_alias
from knowledge.retrieval.hits import Hit
from providers.reranker import FallbackReranker, FusedRankOrder, Passage, Reranker, get_reranker
from providers.tokenize import bm25_tokens


def rerank(
    *,
    query: str,
    hits: list[Hit],
    kb_ids: list[int],
    top_k: int | None,
    reranker: Reranker | None = None,
) -> list[Hit]:
    """Score every candidate for the query, sort on that score, and keep `top_k` (all if None).

    The fallback reranker reads what the searched KBs hold: each chunk's stored embedding and
    the query terms' idf."""
    reranker = reranker or get_reranker()
    embeddings: dict[int, object] = {}
    idf: dict[str, float] = {}
    if hits and isinstance(reranker, FallbackReranker):
        ids = [hit.chunk_id for hit in hits if hit.chunk_id]
        embeddings = dict(
            Chunk.objects.using(retrieval_alias()).filter(id__in=ids).values_list("id", "embedding")
        )
        idf = (
            term_idfs(kb_ids, list(dict.fromkeys(bm25_tokens(query))), corpus_stats(kb_ids))
            if kb_ids
            else {}
        )
    return rank(
        query=query, hits=hits, top_k=top_k, reranker=reranker, embeddings=embeddings, idf=idf
    )


def rank(
    *,
    query: str,
    hits: list[Hit],
    top_k: int | None,
    reranker: Reranker,
    embeddings: dict[int, object] | None = None,
    idf: dict[str, float] | None = None,
) -> list[Hit]:
    """Score the candidates with `reranker`, given the corpus's stored `embeddings` (by chunk
    id; a passage without one is embedded) and query-term `idf`; sort and keep `top_k`."""
    if not hits:
        return []
    if isinstance(reranker, FusedRankOrder):
        # Reranking off: the aggregator's fused order stands (a stable sort keeps its ties).
        for hit in hits:
            hit.rerank_score = float(hit.fusion_score)
        ranked = sorted(hits, key=lambda hit: hit.rerank_score, reverse=True)
        return ranked[:top_k] if top_k else ranked
    passages = [Passage(text=hit.index_text) for hit in hits]
    if isinstance(reranker, FallbackReranker):
        stored = embeddings or {}
        for hit, passage in zip(hits, passages):
            if hit.chunk_id in stored:
                passage.embedding = np.asarray(stored[hit.chunk_id], dtype=np.float32)
        scores = reranker.score(query, passages, idf=idf or {})
    else:
        scores = reranker.score(query, passages)
    for hit, score in zip(hits, scores):
        hit.rerank_score = float(score)
    ranked = sorted(hits, key=lambda hit: hit.rerank_score, reverse=True)
    return ranked[:top_k] if top_k else ranked
