"""One small interface for every answer provider: plan, compress, answer, reflect.

The pipeline's nodes call these four tasks (plus `direct_answer`) and never build prompts
themselves. Chat-model providers (OpenAI, Ollama) implement them with prompts in `prompts.py`;
the offline `extractive` provider implements them without any generative model.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class ProviderError(Exception):
    """A provider failed. `permanent` tells a configuration error from a passing one."""

    def __init__(self, message: str, *, permanent: bool = False, code: str = "provider_error"):
        super().__init__(message)
        self.permanent = permanent
        self.code = code


def public_error(exc: BaseException) -> str:
    """Return what a user may be told of a failure.

    A ProviderError's message is written for users; any other exception may carry internal
    detail (addresses, paths, SQL), so only its kind is shown and the rest goes to the log.
    """
    if isinstance(exc, ProviderError):
        return str(exc)
    return f"{type(exc).__name__} (the details are in the server log)"


def log_failure(logger: logging.Logger, what: str, exc: BaseException) -> None:
    """Log a failure that a stage survives, where `public_error` tells the user to look.

    A ProviderError is expected (a server down, a reply that did not parse) and its message
    says it all; any other exception is a defect and is logged with its traceback.
    """
    if isinstance(exc, ProviderError):
        logger.warning("%s: %s", what, exc)
    else:
        logger.warning("%s: %s", what, exc, exc_info=exc)


class RunCancelled(Exception):
    """The run was cancelled while a provider was working."""


@dataclass
class Usage:
    """Tokens a provider reported for one call."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    calls: int = 0
    # True when the server reported no usage and the counts were estimated from the stream.
    estimated: bool = False

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.total_tokens += other.total_tokens
        self.calls += other.calls
        self.estimated = self.estimated or other.estimated

    def as_dict(self) -> dict[str, int]:
        counts = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "calls": self.calls,
        }
        if self.estimated:
            counts["estimated"] = True
        return counts


# Joins a block's file name and the headings above it in its label: "policy.md › Leave".
SECTION_SEPARATOR = " › "
# What a passage is (a chunk's kind): a run of prose, part of a list, one table row with its
# headers, or a run of table rows.
KIND_PROSE = "prose"
KIND_LIST = "list"
KIND_ROW = "row"
KIND_TABLE = "table"


@dataclass
class SourceBlock:
    """One numbered evidence block the answer may cite as [index].

    `section` is the headings the passage sits under; `kind` says what it is (prose, list,
    row, table) and `structure` holds a row's headers and cells, a run of rows, or a list's
    item count (knowledge/ingest/chunking.py).
    """

    index: int
    file_name: str
    text: str
    source_type: str = "vector"
    rerank_score: float | None = None
    section: tuple[str, ...] = ()
    kind: str = ""
    structure: dict[str, Any] | None = None

    @property
    def context_text(self) -> str:
        """Return the text with what frames it (section path, caption, column headers)."""
        frame = [*self.section]
        structure = self.structure or {}
        if structure.get("caption"):
            frame.append(str(structure["caption"]))
        if structure.get("headers"):
            frame.append(" ".join(str(h) for h in structure["headers"]))
        return "\n".join([*frame, self.text])


@dataclass
class CallContext:
    """What every provider call gets besides its inputs: model, temperature, cancel check.

    `on_answer_text`, when set, receives the answer written so far (the whole text each time)
    while an answer is being generated, so the run can show it before the answer is done.
    """

    model: str | None = None
    temperature: float = 0.0
    is_cancelled: Callable[[], bool] = lambda: False
    usage: dict[str, Usage] = field(default_factory=dict)
    on_answer_text: Callable[[str], None] | None = None
    # The size compression aims for: the run's context limit (None: MAX_CONTEXT_CHARS).
    context_chars: int | None = None

    def record(self, stage: str, usage: Usage) -> None:
        self.usage.setdefault(stage, Usage()).add(usage)


class AnswerProvider:
    """The tasks the pipeline asks of a provider. Each raises ProviderError on failure."""

    name: str = ""
    label: str = ""

    def plan(self, query: str, ctx: CallContext) -> dict[str, Any]:
        """Return {retrieve, use_external, query_type, reasoning}."""
        raise NotImplementedError

    def compress(self, query: str, context: str, ctx: CallContext) -> str:
        """Return a shorter context that keeps the [n] block labels."""
        raise NotImplementedError

    def context_budget(self, context: str, ctx: CallContext) -> int | None:
        """Return how many characters of this context the model reads well, or None when the
        run's own limit (MAX_CONTEXT_CHARS) is the only one."""
        return None

    def answer(
        self,
        query: str,
        context: str,
        sources: list[SourceBlock],
        ctx: CallContext,
        feedback: str = "",
    ) -> dict[str, Any]:
        """Return {answer, confidence, cited_sources, key_facts, is_sufficient}."""
        raise NotImplementedError

    def answer_plain(
        self,
        query: str,
        context: str,
        sources: list[SourceBlock],
        ctx: CallContext,
        feedback: str = "",
    ) -> str:
        """Return an answer as plain text (the fallback when the JSON answer failed)."""
        raise NotImplementedError

    def direct_answer(self, query: str, ctx: CallContext) -> str:
        """Answer without any retrieved context (the planner's direct-answer branch)."""
        raise NotImplementedError

    def reflect(
        self, query: str, context: str, answer: str, sources: list[SourceBlock], ctx: CallContext
    ) -> dict[str, Any]:
        """Return {grounded, confidence, issues, feedback, should_retry}."""
        raise NotImplementedError

    def retries_other_way(self) -> bool:
        """Whether a retry answers the other way: a quote of the passages after the model's
        answer, or the model after a quote (a small model, `small.py`).

        Such a retry neither asks the model the same again nor needs a new search, so any
        answer the check does not verify is worth one; otherwise only what a new search can
        mend is retried.
        """
        return False

    def rewrite_query(self, query: str, feedback: str, ctx: CallContext) -> str:
        """Return a retrieval query for a retry that takes the critic's feedback into account."""
        return query

    def condense_query(self, query: str, history: list[dict[str, str]], ctx: CallContext) -> str:
        """Return a follow-up rewritten to stand alone, given the earlier turns (oldest first).

        Each turn is {"query", "standalone_query", "answer"}. A provider that cannot rewrite
        returns the question as asked.
        """
        return query

    # Reported by GET /api/providers.
    def available(self) -> bool:
        raise NotImplementedError

    def models(self) -> list[str]:
        raise NotImplementedError

    def default_model(self) -> str:
        raise NotImplementedError
