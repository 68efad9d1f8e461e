"""What a run gives its nodes besides the state: where events go, the strategy, the limits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from providers.llm.base import CallContext, RunCancelled
from queries.answering.strategy import Strategy
from queries.pipeline.events import EventSink, emit

WebSearch = Callable[[str, int], list[dict[str, Any]]]

# The spec's web search: five results, each scored 0.7 for the reranker.
WEB_RESULTS = 5
WEB_SCORE = 0.7


@dataclass
class RunContext:
    """The run's fixed inputs, read by every node through LangGraph's config."""

    sink: EventSink
    # How the run answers: the provider's strategy over its backend (queries/answering/).
    strategy: Strategy
    call: CallContext
    kb_ids: list[int]
    retrieval_top_k: int = field(default_factory=lambda: settings.RETRIEVAL_TOP_K)
    rerank_top_k: int = field(default_factory=lambda: settings.RERANK_TOP_K)
    max_context_chars: int = field(default_factory=lambda: settings.MAX_CONTEXT_CHARS)
    max_retries: int = field(default_factory=lambda: settings.MAX_REFLECTION_RETRIES)
    retry_temperature: float = field(default_factory=lambda: settings.RETRY_TEMPERATURE)
    web_results: int = WEB_RESULTS
    web_score: float = WEB_SCORE
    web_search: WebSearch | None = None
    reranker: Any = None
    # The RRF weight of each candidate list (vector, bm25, graph, web); None: the settings'.
    fusion_weights: dict[str, float] | None = None
    answer_delta_seconds: float = field(default_factory=lambda: settings.ANSWER_DELTA_SECONDS)
    answer_delta_max_events: int = field(default_factory=lambda: settings.ANSWER_DELTA_MAX_EVENTS)
    timings_ms: dict[str, float] = field(default_factory=dict)
    # Metadata filters (documents, file types, upload dates), applied inside every store's SQL.
    filters: dict[str, Any] = field(default_factory=dict)
    # The conversation's earlier turns, oldest first: {"query", "standalone_query", "answer"}.
    history: list[dict[str, str]] = field(default_factory=list)
    # Set by the planner: the question as rewritten to stand alone, recorded with the outcome.
    standalone_query: str = ""

    def emit(self, event_type: str, data: dict[str, Any] | None = None) -> None:
        emit(self.sink, event_type, data)

    def check_cancelled(self) -> None:
        if self.call.is_cancelled():
            raise RunCancelled()


def run_context(config: dict) -> RunContext:
    """Return the RunContext a graph invocation carries in its config."""
    return config["configurable"]["run"]
