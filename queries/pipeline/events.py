"""The one emit function every node uses, and the sinks it writes to."""

from __future__ import annotations

import threading
import time
from typing import Any, Protocol

from queries.pipeline import stages


class EventSink(Protocol):
    """Where events go: a list in tests, the run's event log in production."""

    def write(self, event_type: str, data: dict[str, Any] | None) -> None: ...


class ListSink:
    """Keep events in memory, in order (tests and benchmarks)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def write(self, event_type: str, data: dict[str, Any] | None) -> None:
        frame: dict[str, Any] = {"type": event_type}
        if data is not None:
            frame["data"] = data
        with self._lock:
            self.events.append({**frame, "_t": time.monotonic()})

    def frames(self) -> list[dict[str, Any]]:
        return [{k: v for k, v in event.items() if k != "_t"} for event in self.events]

    def spec_events(self) -> list[dict[str, Any]]:
        """Return the events POST /api/query sends (no events-endpoint-only types)."""
        return [e for e in self.events if e["type"] not in stages.EVENTSOURCE_ONLY]

    def types(self) -> list[str]:
        return [event["type"] for event in self.spec_events()]

    def sequence(self) -> list[tuple[str, str | None]]:
        return [(e["type"], (e.get("data") or {}).get("stage")) for e in self.spec_events()]

    def answer_deltas(self) -> list[dict[str, Any]]:
        return [e["data"] for e in self.events if e["type"] == stages.ANSWER_DELTA]


def emit(sink: EventSink, event_type: str, data: dict[str, Any] | None = None) -> None:
    """Emit one event. Pipeline events carry a stage, except `retry` (the spec's contract)."""
    if event_type not in stages.EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type!r}")
    if event_type == stages.RETRY and data and "stage" in data:
        raise ValueError("retry carries no stage")
    if event_type == stages.STAGE_ERROR and data and "message" in data:
        raise ValueError("stage_error carries `error`, not `message`")
    sink.write(event_type, data)
