"""Planner: make a follow-up stand alone, then decide whether to retrieve, whether to search
the web, and what kind of question it is."""

from __future__ import annotations

import logging

from providers.llm.base import RunCancelled, log_failure, public_error
from queries.pipeline import stages
from queries.pipeline.context import RunContext, run_context
from queries.pipeline.state import RAGState

logger = logging.getLogger(__name__)

FALLBACK = {"retrieve": True, "use_external": False, "query_type": "factual", "reasoning": ""}


def standalone_question(run: RunContext, query: str) -> str:
    """Return the question rewritten from the conversation's earlier turns to stand alone.

    With no earlier turn it is the question itself, and no model is asked. A rewrite that
    fails leaves the question as asked: a follow-up searched on its own words still answers.
    """
    if not run.history:
        return query
    try:
        standalone = run.provider.condense_query(query, run.history, run.call)
    except RunCancelled:
        raise
    except Exception as exc:
        log_failure(logger, "follow-up rewrite failed; using the question as asked", exc)
        return query
    return (standalone or "").strip() or query


def planner(state: RAGState, config) -> dict:
    """Ask the provider for a plan; on any failure, fail toward plain retrieval."""
    run = run_context(config)
    run.check_cancelled()
    run.emit(stages.STAGE_START, {"stage": stages.PLANNER, "message": "Analyzing query..."})
    standalone = standalone_question(run, state["query"])
    run.standalone_query = standalone
    try:
        plan = run.provider.plan(standalone, run.call)
        decision = {
            "retrieve": bool(plan.get("retrieve", True)),
            "use_external": bool(plan.get("use_external", False)),
            "query_type": str(plan.get("query_type") or "factual"),
            "reasoning": str(plan.get("reasoning") or ""),
        }
        # Which planner decided, when the provider has two: "rules" or "model" (additive).
        planned_by = str(plan.get("planned_by") or "")
    except RunCancelled:
        raise
    except Exception as exc:
        log_failure(logger, "planner failed", exc)
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
                    f"{f' — by the {planned_by}' if planned_by == 'model' else ''}"
                    f"{' — by rule' if planned_by == 'rules' else ''}"
                ),
                **decision,
                "standalone_query": standalone,
                **({"planned_by": planned_by} if planned_by else {}),
            },
        )
    return {
        "retrieve": decision["retrieve"],
        "use_external": decision["use_external"],
        "query_type": decision["query_type"],
        "planner_reasoning": decision["reasoning"],
        "standalone_query": standalone,
        "retrieval_query": standalone,
        "retry_count": 0,
        "feedback": "",
    }
