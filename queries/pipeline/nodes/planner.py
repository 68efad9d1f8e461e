"""Planner: decide whether to retrieve, whether to search the web, and what kind of question."""

from __future__ import annotations

import logging

from providers.llm.base import RunCancelled, public_error
from queries.pipeline import stages
from queries.pipeline.context import run_context
from queries.pipeline.state import RAGState

logger = logging.getLogger(__name__)

FALLBACK = {"retrieve": True, "use_external": False, "query_type": "factual", "reasoning": ""}


def planner(state: RAGState, config) -> dict:
    """Ask the provider for a plan; on any failure, fail toward plain retrieval."""
    run = run_context(config)
    run.check_cancelled()
    run.emit(stages.STAGE_START, {"stage": stages.PLANNER, "message": "Analyzing query..."})
    try:
        plan = run.provider.plan(state["query"], run.call)
        decision = {
            "retrieve": bool(plan.get("retrieve", True)),
            "use_external": bool(plan.get("use_external", False)),
            "query_type": str(plan.get("query_type") or "factual"),
            "reasoning": str(plan.get("reasoning") or ""),
        }
    except RunCancelled:
        raise
    except Exception as exc:
        logger.warning("planner failed: %s", exc)
        run.emit(stages.STAGE_ERROR, {"stage": stages.PLANNER, "error": public_error(exc)})
        decision = dict(FALLBACK)
    else:
        run.emit(
            stages.STAGE_COMPLETE,
            {
                "stage": stages.PLANNER,
                "message": (
                    f"Plan: {'retrieve' if decision['retrieve'] else 'answer directly'}"
                    f"{' + web search' if decision['use_external'] else ''} "
                    f"({decision['query_type']})"
                ),
                **decision,
            },
        )
    return {
        "retrieve": decision["retrieve"],
        "use_external": decision["use_external"],
        "query_type": decision["query_type"],
        "planner_reasoning": decision["reasoning"],
        "retrieval_query": state["query"],
        "retry_count": 0,
        "feedback": "",
    }
