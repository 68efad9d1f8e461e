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
    """Score every candidate for the query, sort on that score, and keep `top_k` (all if None)."""
    reranker = reranker or get_reranker()
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
        ids = [hit.chunk_id for hit in hits if hit.chunk_id]
        stored = dict(
            Chunk.objects.using(retrieval_alias()).filter(id__in=ids).values_list("id", "embedding")
        )
        for hit, passage in zip(hits, passages):
            if hit.chunk_id in stored:
                passage.embedding = np.asarray(stored[hit.chunk_id], dtype=np.float32)
        idf = (
            term_idfs(kb_ids, list(dict.fromkeys(bm25_tokens(query))), corpus_stats(kb_ids))
            if kb_ids
            else {}
        )
        scores = reranker.score(query, passages, idf=idf)
    else:
        scores = reranker.score(query, passages)
    for hit, score in zip(hits, scores):
        hit.rerank_score = float(score)
    ranked = sorted(hits, key=lambda hit: hit.rerank_score, reverse=True)
    return ranked[:top_k] if top_k else ranked
