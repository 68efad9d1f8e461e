"""Reflect: grade the answer against the evidence; retry, escalate to the web, or finalize."""

from __future__ import annotations

import logging

from providers.llm.base import RunCancelled, SourceBlock, public_error
from providers.reranker import get_reranker
from queries.pipeline import stages
from queries.pipeline.context import run_context
from queries.pipeline.nodes.reason import UNABLE
from queries.pipeline.state import RAGState, question

logger = logging.getLogger(__name__)

# The critic sees at most this much of the context (the spec's limit).
REFLECT_CONTEXT_CHARS = 4000
CAVEAT = "Note: some claims in this answer may not be fully supported by the retrieved sources."


def _metadata(
    state: RAGState, *, grounded: bool, confidence: float, issues: list, retry_count: int
) -> dict:
    return {
        "query_type": state.get("query_type") or "factual",
        "sources_used": [doc.get("source_type", "vector") for doc in state.get("context_docs", [])],
        "retry_count": retry_count,
        "grounded": grounded,
        "confidence": round(float(confidence), 2),
        "issues": list(issues),
    }


def _finalize(
    run, state: RAGState, *, grounded: bool, confidence: float, issues: list, error: str = ""
) -> dict:
    answer = (state.get("answer") or "").strip() or UNABLE
    if not grounded:
        answer = f"{answer}\n\n{CAVEAT}"
    run.emit(
        stages.FINALIZE,
        {
            "stage": stages.REFLECTION,
            "grounded": grounded,
            "message": "Answer verified and finalized"
            if grounded
            else "Answer finalized with a caveat",
        },
    )
    metadata = _metadata(
        state,
        grounded=grounded,
        confidence=confidence,
        issues=issues,
        retry_count=state.get("retry_count", 0),
    )
    if error:
        metadata["error"] = error
    return {
        "final_answer": answer,
        "final_sources": state.get("sources", []),
        "grounded": grounded,
        "issues": list(issues),
        "pipeline_metadata": metadata,
    }


def reflect(state: RAGState, config) -> dict:
    """Judge grounding; retry within budget, feeding the critique into the next attempt."""
    run = run_context(config)
    run.check_cancelled()
    retry_count = state.get("retry_count", 0)
    max_attempts = run.max_retries + 1
    run.emit(
        stages.STAGE_START,
        {
            "stage": stages.REFLECTION,
            "message": f"Checking the answer against the evidence (attempt {retry_count + 1}/{max_attempts})",
            "attempt": retry_count + 1,
            "max_attempts": max_attempts,
        },
    )
    docs = state.get("context_docs", [])
    answer = (state.get("answer") or "").strip()
    try:
        if not state.get("retrieve", True) and not docs:
            # Direct-answer mode: there is no evidence to check the answer against.
            verdict = {
                "grounded": True,
                "confidence": state.get("confidence", 0.5),
                "issues": [],
                "feedback": "",
                "should_retry": False,
            }
        elif not answer or answer == UNABLE:
            # An empty answer is a failed attempt; the budget, not the recursion limit, ends it.
            verdict = {
                "grounded": False,
                "confidence": 0.0,
                "issues": ["The answer is empty."],
                "feedback": "No answer was produced; find evidence that answers the question.",
                "should_retry": True,
            }
        else:
            blocks = [
                SourceBlock(
                    index=i,
                    file_name=doc.get("file_name") or doc.get("title") or "Unknown",
                    text=doc.get("text", ""),
                    source_type=doc.get("source_type", "vector"),
                    rerank_score=doc.get("rerank_score"),
                )
                for i, doc in enumerate(docs, start=1)
            ]
            verdict = run.provider.reflect(
                question(state),
                (state.get("context") or "")[:REFLECT_CONTEXT_CHARS],
                answer,
                blocks,
                run.call,
            )
        grounded = bool(verdict.get("grounded", False))
        confidence = float(verdict.get("confidence", 0.0))
        issues = [str(issue) for issue in (verdict.get("issues") or [])]
        feedback = str(verdict.get("feedback") or "")
        should_retry = bool(verdict.get("should_retry", False))
    except RunCancelled:
        raise
    except Exception as exc:
        logger.warning("reflection failed; failing open: %s", exc)
        message = public_error(exc)
        run.emit(stages.STAGE_ERROR, {"stage": stages.REFLECTION, "error": message})
        return _finalize(
            run,
            state,
            grounded=True,
            confidence=state.get("confidence", 0.0),
            issues=[],
            error=message,
        )

    will_retry = (not grounded) and should_retry and retry_count < run.max_retries
    floor = (run.reranker or get_reranker()).floor
    scores = [doc.get("rerank_score") for doc in docs if doc.get("rerank_score") is not None]
    weak_evidence = not docs or (bool(scores) and max(scores) < floor)
    escalate = will_retry and weak_evidence and not state.get("use_external", False)
    run.emit(
        stages.STAGE_COMPLETE,
        {
            "stage": stages.REFLECTION,
            "message": "Grounded"
            if grounded
            else ("Not grounded — retrying" if will_retry else "Not grounded"),
            "grounded": grounded,
            "confidence": round(confidence, 2),
            "issues": issues,
            "will_retry": will_retry,
            "escalate_external": escalate,
        },
    )
    if not will_retry:
        return _finalize(run, state, grounded=grounded, confidence=confidence, issues=issues)
    attempt = retry_count + 2
    run.emit(
        stages.RETRY,
        {
            "attempt": attempt,
            "max_attempts": max_attempts,
            "reason": feedback
            or "; ".join(issues)
            or "The answer was not grounded in the evidence.",
            "escalate_external": escalate,
            "message": f"Retrying with adjusted strategy (attempt {attempt}/{max_attempts})",
        },
    )
    try:
        retrieval_query = run.provider.rewrite_query(
            question(state), feedback or "; ".join(issues), run.call
        )
    except RunCancelled:
        raise
    except Exception as exc:
        logger.warning("query rewrite failed: %s", exc)
        retrieval_query = question(state)
    return {
        "retry_count": retry_count + 1,
        "feedback": feedback or "; ".join(issues),
        "use_external": state.get("use_external", False) or escalate,
        "retrieval_query": retrieval_query or question(state),
        "grounded": False,
        "issues": issues,
        "final_answer": "",
    }
