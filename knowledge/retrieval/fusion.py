"""Aggregate: concatenate the stores' lists and web search's, dedupe by text MD5, and fuse their ranks.

The spec keeps the highest-scoring copy of each duplicate text; we keep that rule for which copy
survives, but never order by the raw scores (cosine, BM25 and graph weights are different
scales). Candidates are ordered by weighted reciprocal rank fusion until the reranker scores
them. The graph list gets a lower weight: it fires on only some queries, and weighted equally
it pushed relevant dense and BM25 hits down (measured on SciFact train, see docs/benchmarks.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from knowledge.retrieval.hits import Hit
from knowledge.retrieval.stores import WEB, fusion_lists, fusion_weights


@dataclass
class Aggregate:
    """The unique candidates, best fused first, and the counts the aggregator reports."""

    hits: list[Hit] = field(default_factory=list)
    before: int = 0
    after: int = 0
    sources: dict[str, int] = field(default_factory=dict)


def fuse_ranks(
    ranked: dict[str, list[str]], weights: dict[str, float], rrf_k: int
) -> dict[str, float]:
    """Return the weighted reciprocal-rank-fusion score of each key over the ranked lists."""
    fused: dict[str, float] = {}
    for source, keys in ranked.items():
        weight = weights.get(source, 1.0)
        for rank, key in enumerate(keys, start=1):
            fused[key] = fused.get(key, 0.0) + weight / (rrf_k + rank)
    return fused


def aggregate(
    *,
    lists: dict[str, list[Hit]],
    web: list[Hit] | None = None,
    weights: dict[str, float] | None = None,
    rrf_k: int | None = None,
) -> Aggregate:
    """Dedupe the concatenated lists (each store's, then web search's) by text MD5 and order
    the survivors by fused rank."""
    weights = weights or fusion_weights()
    rrf_k = rrf_k if rrf_k is not None else settings.FUSION_RRF_K
    lists = {**lists, WEB: web or []}
    kept: dict[str, Hit] = {}
    found_by: dict[str, list[str]] = {}
    ranked: dict[str, list[str]] = {}
    before = 0
    for source in fusion_lists():
        ranked[source] = []
        for hit in lists.get(source, []):
            before += 1
            key = hit.text_md5
            ranked[source].append(key)
            sources_of = found_by.setdefault(key, [])
            if source not in sources_of:
                sources_of.append(source)
            if key not in kept or hit.score > kept[key].score:
                kept[key] = hit
    fused = fuse_ranks(ranked, weights, rrf_k)
    hits = []
    for key, hit in kept.items():
        hit.fusion_score = fused[key]
        hit.found_by = found_by[key]
        hits.append(hit)
    # Ties keep the spec's concatenation order (vector, BM25, graph, web), as a stable sort.
    hits.sort(key=lambda hit: hit.fusion_score, reverse=True)
    sources: dict[str, int] = {}
    for hit in hits:
        sources[hit.source_type] = sources.get(hit.source_type, 0) + 1
    return Aggregate(hits=hits, before=before, after=len(hits), sources=sources)
