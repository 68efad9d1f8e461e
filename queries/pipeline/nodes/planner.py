"""Planner: make a follow-up stand alone, read the question once (its frame), then decide
whether to retrieve, whether to search the web, and what kind of question it is."""

from __future__ import annotations

import logging

from providers.llm.base import RunCancelled, log_failure, public_error
from queries.answering.frame import frame_question
from queries.answering.types import Plan
from queries.pipeline import stages
from queries.pipeline.context import RunContext, run_context
from queries.pipeline.state import RAGState

logger = logging.getLogger(__name__)

FALLBACK = Plan(retrieve=True, use_external=False, query_type="factual", reasoning="")


def standalone_question(run: RunContext, query: str) -> str:
    """Return the question rewritten from the conversation's earlier turns to stand alone.

    With no earlier turn it is the question itself, and no model is asked. A rewrite that
    fails leaves the question as asked: a follow-up searched on its own words still answers.
    """
    if not run.history:
        return query
    try:
        standalone = run.strategy.condense(query, run.history, run.call)
    except RunCancelled:
        raise
    except Exception as exc:
        log_failure(logger, "follow-up rewrite failed; using the question as asked", exc)
        return query
    return (standalone or "").strip() or query


def planner(state: RAGState, config) -> dict:
    """Ask the strategy for a plan; on any failure, fail toward plain retrieval."""
    run = run_context(config)
    run.check_cancelled()
    run.emit(stages.STAGE_START, {"stage": stages.PLANNER, "message": "Analyzing query..."})
    standalone = standalone_question(run, state["query"])
    run.standalone_query = standalone
    frame = frame_question(standalone)
    try:
        plan = run.strategy.plan(frame, run.call)
    except RunCancelled:
        raise
    except Exception as exc:
        log_failure(logger, "planner failed", exc)
        run.emit(stages.STAGE_ERROR, {"stage": stages.PLANNER, "error": public_error(exc)})
        plan = FALLBACK
    else:
        by = {"model": " — by the model", "rules": " — by rule"}.get(plan.planned_by or "", "")
        run.emit(
            stages.STAGE_COMPLETE,
            {
                "stage": stages.PLANNER,
                "message": (
                    f"Plan: {'retrieve' if plan.retrieve else 'answer directly'}"
                    f"{' + web search' if plan.use_external else ''} ({plan.query_type}){by}"
                ),
                "retrieve": plan.retrieve,
                "use_external": plan.use_external,
                "query_type": plan.query_type,
                "reasoning": plan.reasoning,
                "standalone_query": standalone,
                # Additive: which planner decided, when the strategy has two ("rules" or
                # "model"), and how the question was read.
                **({"planned_by": plan.planned_by} if plan.planned_by else {}),
                "frame": frame.to_dict(),
            },
        )
    return {
        "retrieve": plan.retrieve,
        "use_external": plan.use_external,
        "query_type": plan.query_type,
        "planner_reasoning": plan.reasoning,
        "standalone_query": standalone,
        "frame": frame.to_dict(),
        "retrieval_query": standalone,
        "retry_count": 0,
        "feedback": "",
    }
