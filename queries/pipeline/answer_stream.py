"""The answer as the model writes it, turned into a bounded number of `answer_delta` events.

A provider reports the whole answer text so far, as often as it likes (every token); this
class emits at most one event per `interval` and at most `max_events` per attempt, each
carrying only what changed since the last one, so the run's log stays small and a replay of
it shows the same text growing at the same pace.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from queries.pipeline import stages


class AnswerStream:
    """Coalesce one attempt's growing answer text into `answer_delta` events."""

    def __init__(
        self,
        emit: Callable[[str, dict], None],
        *,
        attempt: int,
        interval: float,
        max_events: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.emit = emit
        self.attempt = attempt
        self.interval = interval
        self.max_events = max(max_events, 1)
        self.clock = clock
        self.sent = ""
        self.latest = ""
        self.events = 0
        self.last_emit_at: float | None = None

    def __call__(self, text: str) -> None:
        self.latest = text
        now = self.clock()
        due = self.last_emit_at is None or now - self.last_emit_at >= self.interval
        # The last event is kept for `flush`, so the final text always gets through.
        if due and self.events < self.max_events - 1:
            self._send(now)

    def flush(self) -> None:
        """Send whatever is not yet sent (the call ended)."""
        if self.events < self.max_events:
            self._send(self.clock())

    def _send(self, now: float) -> None:
        text = self.latest
        if text == self.sent:
            return
        offset = 0
        limit = min(len(text), len(self.sent))
        while offset < limit and text[offset] == self.sent[offset]:
            offset += 1
        self.emit(
            stages.ANSWER_DELTA,
            {
                "stage": stages.REASONING,
                "attempt": self.attempt,
                "offset": offset,
                "text": text[offset:],
            },
        )
        self.sent = text
        self.events += 1
        self.last_emit_at = now
