"""Aggregate: concatenate the stores' hits and the web's, dedupe by text MD5, fuse ranks."""

from __future__ import annotations

from knowledge.retrieval.fusion import aggregate as aggregate_hits
from knowledge.retrieval.hits import Hit, hit_ref
from queries.pipeline import stages
from queries.pipeline.context import run_context
from queries.pipeline.state import RAGState


def aggregate(state: RAGState, config) -> dict:
    """Merge the stores' lists and the web's into unique candidates ordered by fused rank."""
    run = run_context(config)
    run.check_cancelled()
    run.emit(
        stages.STAGE_START,
        {"stage": stages.AGGREGATOR, "message": "Merging and deduplicating results..."},
    )
    result = aggregate_hits(
        lists={
            name: [Hit.from_state(h) for h in hits]
            for name, hits in state.get("store_hits", {}).items()
        },
        web=[Hit.from_state(h) for h in state.get("web_hits", [])],
        weights=run.config.fusion_weights,
        rrf_k=run.config.rrf_k,
    )
    run.emit(
        stages.STAGE_COMPLETE,
        {
            "stage": stages.AGGREGATOR,
            "message": f"{result.after} unique docs (from {result.before} total, "
            f"{result.before - result.after} duplicates removed)",
            "before": result.before,
            "after": result.after,
            "sources": result.sources,
            # Additive: the candidates in fused order (chunk ids; URLs for web results).
            "ranked": [hit_ref(hit.to_state()) for hit in result.hits],
        },
    )
    return {"candidates": [hit.to_state() for hit in result.hits]}
