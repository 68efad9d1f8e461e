"""The run event log: append with a seq and NOTIFY in one transaction; read after a cursor.

Every stream is a reader of this log, in any process: the producer (a worker) never talks to
a reader directly. A NOTIFY on CHANNEL wakes readers; they also re-check on a short timeout,
so a lost notification only delays.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from adrag_site.db import retry_while_unreachable
from queries.models import QueryRun, RunEvent
from queries.pipeline import codes, stages

CHANNEL = "adrag_run_events"
# PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; events up to this size travel in
# the notification itself, larger ones are read from the log.
MAX_NOTIFY_FRAME_BYTES = 7000


def notify_payload(run_id, seq: int, event_type: str, frame: str) -> str:
    """Return the notification of an appended event: with the event when it is small."""
    if len(frame.encode()) <= MAX_NOTIFY_FRAME_BYTES:
        return f"{run_id}:{seq}:{event_type}:{frame}"
    return f"{run_id}:{seq}"


def encode_frame(event_type: str, data: dict[str, Any] | None) -> str:
    """Return the frame's JSON as the stream sends it (the spec's json.dumps defaults)."""
    frame: dict[str, Any] = {"type": event_type}
    if data is not None:
        frame["data"] = data
    return json.dumps(frame)


def run_event_append(
    *,
    run_id,
    event_type: str,
    data: dict[str, Any] | None,
    run_updates: dict[str, Any] | None = None,
) -> int:
    """Append one event to a run's log and return its seq, or 0 if the log is closed.

    A log closes with its `stream_end`; nothing is appended after it (a worker that lost a
    race with the interrupted-run reaper must not add frames behind the end). `run_updates`
    are saved on the run in the same transaction, so a reader that sees a terminal event
    always finds the run's final status too.
    """
    payload = encode_frame(event_type, data)

    def append() -> int:
        with transaction.atomic():
            with connection.cursor() as cursor:
                # The row lock on the run serialises concurrent appends to one run's log.
                cursor.execute(
                    "UPDATE queries_queryrun SET last_seq = last_seq + 1 WHERE id = %s AND NOT EXISTS "
                    "(SELECT 1 FROM queries_runevent WHERE run_id = %s AND type = %s) RETURNING last_seq",
                    [run_id, run_id, stages.STREAM_END],
                )
                row = cursor.fetchone()
                if row is None:
                    return 0
                seq = row[0]
                cursor.execute(
                    "INSERT INTO queries_runevent (run_id, seq, type, payload, created_at) "
                    "VALUES (%s, %s, %s, %s, %s)",
                    [run_id, seq, event_type, payload, timezone.now()],
                )
                cursor.execute(
                    "SELECT pg_notify(%s, %s)",
                    [CHANNEL, notify_payload(run_id, seq, event_type, payload)],
                )
            if run_updates:
                QueryRun.objects.filter(id=run_id).update(**run_updates)
        return seq

    def appended_before() -> int | None:
        # The connection broke after COMMIT was sent: the event may be in the log already.
        last = RunEvent.objects.filter(run_id=run_id).order_by("-seq").first()
        if last is not None and last.type == event_type and last.payload == payload:
            return last.seq
        return None

    # A database restart must cost the run a pause, not its events.
    return retry_while_unreachable(
        append,
        what=f"the append of {event_type} to run {run_id}",
        patience=settings.DB_RETRY_SECONDS,
        already_done=appended_before,
    )


def run_events_after(*, run_id, after: int = 0, limit: int = 500) -> list[RunEvent]:
    """Return a run's events with seq > after, in order."""
    return list(RunEvent.objects.filter(run_id=run_id, seq__gt=after).order_by("seq")[:limit])


def run_terminate(*, run_id, status: str, code: str, message: str) -> bool:
    """End an unfinished run with an error frame and stream_end; False if it already ended."""
    with transaction.atomic():
        run = QueryRun.objects.select_for_update().filter(id=run_id).first()
        if run is None or not run.is_active:
            return False
        now = timezone.now()
        run_event_append(
            run_id=run_id,
            event_type=stages.ERROR,
            data={"message": message, "stage": stages.PIPELINE, "code": code},
            run_updates={
                "status": status,
                "error_code": code,
                "error_message": message,
                "finished_at": now,
                "started_at": run.started_at or now,
            },
        )
        run_event_append(run_id=run_id, event_type=stages.STREAM_END, data=None)
    return True


class RunEventSink:
    """The pipeline's sink in production: each event goes to the run's log.

    A terminal event (`done` or `error`) also records the run's outcome in the same
    transaction.
    """

    def __init__(self, run_id) -> None:
        self.run_id = run_id
        self.outcome_updates: dict[str, Any] = {}

    def record_outcome(self, *, usage: dict, timings: dict, standalone_query: str = "") -> None:
        """Save usage, timings and the standalone question with the terminal event that follows."""
        self.outcome_updates = {"usage": usage, "timings": timings}
        if standalone_query:
            self.outcome_updates["standalone_query"] = standalone_query

    def write(self, event_type: str, data: dict[str, Any] | None) -> None:
        updates = None
        if event_type == stages.DONE:
            updates = {
                "status": QueryRun.Status.SUCCEEDED,
                "answer": data.get("answer", ""),
                "sources": data.get("sources", []),
                "metadata": data.get("metadata", {}),
                "finished_at": timezone.now(),
            }
        elif event_type == stages.ERROR:
            code = (data or {}).get("code", codes.PIPELINE_FAILED)
            updates = {
                "status": QueryRun.Status.CANCELLED
                if code == codes.CANCELLED
                else QueryRun.Status.FAILED,
                "error_code": code,
                "error_message": (data or {}).get("message", ""),
                "finished_at": timezone.now(),
            }
        if updates is not None:
            updates.update(self.outcome_updates)
        run_event_append(run_id=self.run_id, event_type=event_type, data=data, run_updates=updates)
