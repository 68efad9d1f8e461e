"""What a run gives its nodes besides the state: where events go, the strategy, the limits,
the stores it searches and the checks its answers pass.

Nodes reach the knowledge bases and the answer checks only through the run context, never by
importing the production modules: a test hands a run in-memory stores (plain objects holding
their passages) and runs the nodes with no database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from knowledge.retrieval.registry import DatabaseStores, StoreRegistry
from providers.llm.base import CallContext, RunCancelled
from queries.answering.checks import AnswerCheck, check_answer
from queries.answering.strategy import Strategy
from queries.pipeline.config import PipelineConfig
from queries.pipeline.events import EventSink, emit

WebSearch = Callable[[str, int], list[dict[str, Any]]]
# The check every answer passes: (frame, answer, blocks, term_stats=...) -> AnswerCheck.
AnswerChecks = Callable[..., AnswerCheck]


@dataclass
class RunContext:
    """The run's fixed inputs, read by every node through LangGraph's config."""

    sink: EventSink
    # How the run answers: the provider's strategy over its backend (queries/answering/).
    strategy: Strategy
    call: CallContext
    kb_ids: list[int]
    # Every tunable of the run (queries/pipeline/config.py).
    config: PipelineConfig = field(default_factory=PipelineConfig.from_settings)
    web_search: WebSearch | None = None
    # The stores the run searches and the corpus they hold (knowledge/retrieval/registry.py).
    stores: StoreRegistry = field(default_factory=DatabaseStores)
    # The deterministic check of every answer (queries/answering/checks/): support, the rules.
    checks: AnswerChecks = check_answer
    # A reranker of the caller's (tests, benches); None: the configured one.
    reranker: Any = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    # Metadata filters (documents, file types, upload dates), applied inside every store's SQL.
    filters: dict[str, Any] = field(default_factory=dict)
    # The conversation's earlier turns, oldest first: {"query", "standalone_query", "answer"}.
    history: list[dict[str, str]] = field(default_factory=list)
    # Set by the planner: the question as rewritten to stand alone, recorded with the outcome.
    standalone_query: str = ""
    # The model's replies to the table queries this run asked, by (question, tables, problem,
    # temperature): a retry's second retrieval of the same question asks it nothing new.
    table_queries: dict[tuple[str, str, str, float], str] = field(default_factory=dict)

    def emit(self, event_type: str, data: dict[str, Any] | None = None) -> None:
        emit(self.sink, event_type, data)

    def check_cancelled(self) -> None:
        if self.call.is_cancelled():
            raise RunCancelled()


def run_context(config: dict) -> RunContext:
    """Return the RunContext a graph invocation carries in its config."""
    return config["configurable"]["run"]
