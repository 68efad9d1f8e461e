"""Run the compiled graph for one query and frame its terminal events."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from providers.llm.base import CallContext, RunCancelled, public_error
from queries.answering.strategy import Strategy
from queries.pipeline import codes, stages
from queries.pipeline.config import TUNABLES, PipelineConfig
from queries.pipeline.context import RunContext
from queries.pipeline.events import EventSink, emit
from queries.pipeline.graph import build_graph

logger = logging.getLogger(__name__)

RECURSION_LIMIT = 60


@dataclass
class Outcome:
    """How a run ended and what it produced."""

    status: str  # succeeded | failed | cancelled
    answer: str = ""
    sources: list[dict[str, Any]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    error_code: str = ""
    usage: dict[str, dict[str, int]] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    reranker: dict[str, Any] = field(default_factory=dict)
    # The question as the planner rewrote it to stand alone ("" if the planner never ran).
    standalone_query: str = ""


def run_pipeline(
    *,
    query: str,
    strategy: Strategy | Callable[[], Strategy],
    kb_ids: list[int],
    sink: EventSink,
    model: str | None = None,
    is_cancelled: Callable[[], bool] = lambda: False,
    frame_stream_end: bool = True,
    config: PipelineConfig | None = None,
    **extras,
) -> Outcome:
    """Run the eight nodes, then emit `done` (or `error`) and `stream_end` to the sink.

    `strategy` may be a factory, so that a provider that cannot be built fails the run with
    an error frame like any other pipeline failure. `config` is the run's tunables (the
    settings' when None); `extras` are other RunContext fields (filters, history, web_search,
    reranker, and the stores and checks a test hands the run in place of the production
    ones) or tunables by name (`max_reflection_retries=0`), which change `config`.
    """
    call = CallContext(model=model, temperature=0.0, is_cancelled=is_cancelled)
    tunables = {name: extras.pop(name) for name in list(extras) if name in TUNABLES}
    config = replace(config, **tunables) if config else PipelineConfig.from_settings(**tunables)
    run = RunContext(
        sink=sink, strategy=None, call=call, kb_ids=list(kb_ids), config=config, **extras
    )
    started = time.perf_counter()
    terminal, outcome = _invoke(query, strategy, run)
    run.timings_ms["total_ms"] = round((time.perf_counter() - started) * 1000, 2)
    outcome.usage = {stage: usage.as_dict() for stage, usage in call.usage.items()}
    outcome.timings_ms = dict(run.timings_ms)
    outcome.standalone_query = run.standalone_query
    # Usage, timings and the standalone question are recorded with the terminal event, in its
    # transaction where the sink is the run's log: a client that reads the run on `done`
    # finds them.
    record = getattr(sink, "record_outcome", None)
    if record is not None:
        record(
            usage=outcome.usage,
            timings=outcome.timings_ms,
            standalone_query=outcome.standalone_query,
        )
    emit(sink, *terminal)
    if frame_stream_end:
        emit(sink, stages.STREAM_END, None)
    return outcome


def _invoke(
    query: str, strategy: Strategy | Callable[[], Strategy], run: RunContext
) -> tuple[tuple[str, dict[str, Any]], Outcome]:
    """Run the graph for the query; return the terminal event and the outcome, however the
    run ended (answered, cancelled or failed)."""
    try:
        run.strategy = strategy if isinstance(strategy, Strategy) else strategy()
        state = build_graph().invoke(
            {"query": query},
            config={"configurable": {"run": run}, "recursion_limit": RECURSION_LIMIT},
        )
        return _answered(state)
    except RunCancelled:
        terminal = (
            stages.ERROR,
            {"message": codes.CANCELLED_MESSAGE, "stage": stages.PIPELINE, "code": codes.CANCELLED},
        )
        return terminal, Outcome(
            status="cancelled", error=codes.CANCELLED_MESSAGE, error_code=codes.CANCELLED
        )
    except Exception as exc:
        logger.exception("pipeline failed")
        message = public_error(exc)
        terminal = (
            stages.ERROR,
            {"message": message, "stage": stages.PIPELINE, "code": codes.PIPELINE_FAILED},
        )
        return terminal, Outcome(status="failed", error=message, error_code=codes.PIPELINE_FAILED)


def _answered(state: dict[str, Any]) -> tuple[tuple[str, dict[str, Any]], Outcome]:
    """Return the `done` event and the outcome of a run that answered."""
    answer = state.get("final_answer") or state.get("answer", "")
    sources = state.get("final_sources") or state.get("sources", [])
    metadata = state.get("pipeline_metadata", {})
    terminal = (stages.DONE, {"answer": answer, "sources": sources, "metadata": metadata})
    return terminal, Outcome(
        status="succeeded",
        answer=answer,
        sources=sources,
        metadata=metadata,
        reranker=state.get("reranker") or {},
    )
