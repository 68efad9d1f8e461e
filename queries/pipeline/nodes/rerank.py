"""Rerank: score every candidate on one scale and keep RERANK_TOP_K."""

from __future__ import annotations

import logging

from knowledge.retrieval.hits import Hit, hit_ref
from knowledge.tables.store import pinned
from providers.llm.base import RunCancelled, log_failure, public_error
from providers.reranker import FallbackReranker, FusedRankOrder, get_reranker
from queries.pipeline import stages
from queries.pipeline.context import run_context
from queries.pipeline.state import RAGState

logger = logging.getLogger(__name__)


def rerank(state: RAGState, config) -> dict:
    """Rerank candidates; if the reranker fails, use the fallback scorer, never raw scores."""
    run = run_context(config)
    run.check_cancelled()
    run.emit(stages.STAGE_START, {"stage": stages.RERANKER, "message": "Reranking candidates..."})
    candidates = [Hit.from_state(h) for h in state.get("candidates", [])]
    if not candidates:
        run.emit(
            stages.STAGE_COMPLETE, {"stage": stages.RERANKER, "message": "No documents to rerank"}
        )
        return {"context_docs": []}
    reranker = run.reranker or (get_reranker() if run.config.reranker_enabled else FusedRankOrder())
    query = state.get("retrieval_query") or state["query"]
    # A table program's computed passage and the rows it read lead, as computed; the rest
    # fill the top K by the reranker.
    total = len(candidates)
    computed, candidates = pinned(candidates, run.config.rerank_top_k)
    room = run.config.rerank_top_k - len(computed)
    try:
        ranked = computed + _best_by(run, reranker, query, candidates, room)
    except RunCancelled:
        raise
    except Exception as exc:
        log_failure(logger, f"reranker {reranker.name} failed", exc)
        run.emit(stages.STAGE_ERROR, {"stage": stages.RERANKER, "error": public_error(exc)})
        try:
            reranker = FallbackReranker()
            ranked = computed + _best_by(run, reranker, query, candidates, room)
        except Exception:
            logger.exception("fallback reranker failed too; keeping the fused order")
            ranked = candidates[: run.config.rerank_top_k]
            for hit in ranked:
                hit.rerank_score = hit.fusion_score
            ranked = computed + ranked[: max(room, 0)]
        return {"context_docs": [hit.to_state() for hit in ranked], "reranker": reranker.describe()}
    scores = [round(hit.rerank_score, 4) for hit in ranked]
    run.emit(
        stages.STAGE_COMPLETE,
        {
            "stage": stages.RERANKER,
            "message": f"Top {len(ranked)} of {total} by {reranker.kind} (best {scores[0]:.4f})",
            "top_k": len(ranked),
            "scores": scores,
            "sources": [hit.source_type for hit in ranked],
            "reranker": reranker.describe(),
            # Additive: what each score belongs to (chunk ids; URLs for web results).
            "ids": [hit_ref(hit.to_state()) for hit in ranked],
        },
    )
    return {"context_docs": [hit.to_state() for hit in ranked], "reranker": reranker.describe()}


def _best_by(run, reranker, query: str, candidates: list[Hit], room: int) -> list:
    """Return the best `room` candidates by the reranker over the run's stores (none when
    there is no room)."""
    if room <= 0:
        return []
    return run.stores.rerank(
        query=query, hits=candidates, kb_ids=run.kb_ids, top_k=room, reranker=reranker
    )
