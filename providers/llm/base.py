"""What every model backend shares: its one exception type, usage counts, and a call's context.

A backend (`chat.py` and the modules beside it) talks to one kind of model server and does one
thing, stream a chat reply. How a question is answered with it is the answering strategies'
business (queries/answering/).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field


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
