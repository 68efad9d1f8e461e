"""Readers of the run event log, framed as SSE: the POST stream and the EventSource endpoint.

Both read the same log from a cursor, so a live stream, a resumed one and a replay of a
finished run send the same bytes for the same events. Access is checked once, when the
stream opens (the views); a reader never writes.

A reader catches up from the log, then lives on notifications: a small event arrives inside
its NOTIFY (queries/notify.py) and is sent without a query; a large one, a gap in the seqs or
a notification the LISTEN connection missed sends it back to the log. A slow re-read of the
log (STREAM_POLL_SECONDS) is the safety net for a lost notification.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NamedTuple

from asgiref.sync import sync_to_async
from django.conf import settings

from adrag_site import presence
from adrag_site.db import DISCONNECTS, reset_connection
from queries import notify
from queries.eventlog import run_events_after
from queries.metrics import OPEN_STREAMS
from queries.pipeline import stages

logger = logging.getLogger(__name__)

STYLE_POST = "post"
STYLE_EVENTSOURCE = "eventsource"
KEEP_ALIVE = ": keep-alive\n\n"
METRICS_ENDPOINT = {STYLE_POST: "query", STYLE_EVENTSOURCE: "events"}
TIMEOUT_FRAME = json.dumps({"type": stages.ERROR, "data": {"message": "Stream timeout"}})
READ_BATCH = 500
WAITING_MESSAGE = (
    "Waiting: no worker is running for questions (the runs queue), so this run starts when "
    "one does. An administrator can start one with `manage.py runportal`."
)


class Logged(NamedTuple):
    """One event of a run's log as a stream sends it."""

    seq: int
    type: str
    frame: str


def encode(event: Logged, style: str) -> str:
    """Frame one logged event: `id: <seq>` and the one-line data frame (plus `event:`)."""
    lines = f"id: {event.seq}\ndata: {event.frame}\n\n"
    if style == STYLE_EVENTSOURCE:
        return f"event: {event.type}\n" + lines
    return lines


_pool: ThreadPoolExecutor | None = None


def _reader_pool() -> ThreadPoolExecutor:
    """Return the threads that read run logs for this process's streams.

    Concurrent streams read in parallel on these threads instead of queueing on Django's one
    shared sync thread, and the pool's size bounds the database connections streams hold
    (each thread keeps its own).
    """
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(
            max_workers=settings.STREAM_READ_THREADS, thread_name_prefix="run-log"
        )
    return _pool


class ReadFailed(Exception):
    """The log could not be read this time (the database is away); the stream waits."""


def _read(run_id, after: int) -> list[Logged]:
    """Read the run's events after `after`, at most READ_BATCH of them."""
    try:
        events = run_events_after(run_id=run_id, after=after, limit=READ_BATCH)
    except DISCONNECTS as exc:
        reset_connection()
        raise ReadFailed(str(exc)) from exc
    return [Logged(event.seq, event.type, event.payload) for event in events]


def _runs_workers() -> int | None:
    """Return how many live workers take the runs queue (None: the database cannot say)."""
    try:
        return presence.workers_for(presence.RUNS)
    except DISCONNECTS:
        reset_connection()
        return None


def waiting_frame(style: str, deltas: bool = False) -> str:
    """Frame the notice that no live worker takes the run: an `event: waiting` frame for
    EventSource (no id: it is not in the log); for POST a comment (the spec's types only), or
    a data frame when the client asked for the events endpoint's extra types."""
    if style == STYLE_POST and not deltas:
        return f": {stages.WAITING}: {WAITING_MESSAGE}\n\n"
    data = json.dumps(
        {
            "type": stages.WAITING,
            "data": {"message": WAITING_MESSAGE, "queue": "runs", "workers": 0},
        }
    )
    prefix = f"event: {stages.WAITING}\n" if style == STYLE_EVENTSOURCE else ""
    return f"{prefix}data: {data}\n\n"


def _carried(waiter, cursor: int) -> tuple[list[Logged], bool]:
    """Return the events the notifications carried after `cursor`, in order, and whether they
    are all there (a frame not carried, or a gap, means the log must be read)."""
    pending: list[Logged] = []
    while waiter.frames:
        seq, kind, frame = waiter.frames.popleft()
        if seq <= cursor:
            continue
        if kind is None or seq != cursor + 1 + len(pending):
            waiter.frames.clear()
            return pending, False
        pending.append(Logged(seq, kind, frame))
    return pending, True


async def _read_log(read, run_id, cursor: int, poll: float) -> tuple[list[Logged], float]:
    """Read the log after `cursor`; return the events and when to read it next (0: at once)."""
    try:
        logged = await read(run_id, cursor)
    except ReadFailed as exc:
        # A database restart: keep the client (heartbeats) and read again shortly.
        logger.warning("reading run %s failed (%s); retrying", run_id, exc)
        return [], time.monotonic() + 1.0
    # A full batch means more is waiting; otherwise live on notifications, with a slow re-read
    # in case one is lost (a quick one while not listening).
    every = poll if notify.hub.listening else min(poll, 1.0)
    return logged, 0.0 if len(logged) == READ_BATCH else time.monotonic() + every


async def run_stream(*, run_id, after: int = 0, style: str = STYLE_POST, deltas: bool = False):
    """Yield the run's frames after `after` until `stream_end`, woken by NOTIFY.

    POST /api/query's stream (STYLE_POST) carries the spec's event types only, unless the
    client asked for `deltas`: then also the events endpoint's answer_delta frames.
    """
    # Registered before the first read, so nothing appended meanwhile is missed.
    waiter = notify.hub.register(run_id)
    position = _Position(after)
    open_streams = OPEN_STREAMS.labels(METRICS_ENDPOINT[style])
    # Counted only once the generator runs (a response never iterated opened no stream), and
    # uncounted in the same finally that unregisters the waiter, however the stream ends.
    open_streams.inc()
    frames = _frames(run_id, waiter, position, style, deltas)
    try:
        async for frame in frames:
            yield frame
    except (asyncio.CancelledError, GeneratorExit):
        # The client went away. The run is a job of its own and carries on.
        logger.info("stream reader for run %s closed by the client at seq %s", run_id, position.seq)
        raise
    finally:
        await frames.aclose()
        open_streams.dec()
        notify.hub.unregister(run_id, waiter)


@dataclass
class _Position:
    """The seq of the last event a stream has read (its cursor)."""

    seq: int


async def _frames(run_id, waiter, position: _Position, style: str, deltas: bool):
    """Yield the frames of the run's events after `position`, keep-alives, a waiting notice and
    the idle timeout's frame, reading the log and waiting on the run's notifications."""
    heartbeat = settings.STREAM_HEARTBEAT_SECONDS
    idle_timeout = settings.STREAM_IDLE_TIMEOUT_SECONDS
    poll = settings.STREAM_POLL_SECONDS
    read = sync_to_async(_read, thread_sensitive=False, executor=_reader_pool())
    now = time.monotonic()
    last_event_at = last_sent_at = now
    next_read_at = now  # read the log at once: catching up
    # A run not started yet is checked for a live worker once it has waited a while.
    waiting_check_at = now + settings.STREAM_WAITING_SECONDS if position.seq == 0 else None
    count_workers = sync_to_async(_runs_workers, thread_sensitive=False, executor=_reader_pool())
    while True:
        pending, next_read_at = await _next_events(
            waiter, read, run_id, position.seq, poll, next_read_at
        )
        for event in pending:
            if event.seq <= position.seq:
                continue
            position.seq = event.seq
            last_event_at = time.monotonic()
            if style == STYLE_POST and not deltas and event.type in stages.EVENTSOURCE_ONLY:
                continue  # POST /api/query sends the spec's event types only
            yield encode(event, style)
            last_sent_at = last_event_at
            if event.type == stages.STREAM_END:
                return
        if next_read_at == 0.0:
            continue
        now = time.monotonic()
        if now - last_event_at >= idle_timeout:
            # The stream ends; the run goes on and can be resumed from the events endpoint.
            prefix = f"event: {stages.ERROR}\n" if style == STYLE_EVENTSOURCE else ""
            yield f"{prefix}data: {TIMEOUT_FRAME}\n\n"
            return
        if waiting_check_at is not None and (position.seq > 0 or now >= waiting_check_at):
            # Checked once, and never once the run has begun: a check left pending past its
            # time made every later wait 10 ms (each stream polling a hundred times a
            # second: p50 at 500 streams went from 2 to 10-30 ms, bench/streams.py).
            waiting_check_at, unstarted = None, position.seq == 0
            if unstarted and await count_workers() == 0:
                yield waiting_frame(style, deltas)
                last_sent_at = now
        if now - last_sent_at >= heartbeat:
            yield KEEP_ALIVE
            last_sent_at = now
        timeout = min(
            next_read_at - now,
            heartbeat - (now - last_sent_at),
            idle_timeout - (now - last_event_at),
            *([waiting_check_at - now] if waiting_check_at is not None else []),
        )
        if not waiter.frames:
            await notify.wait(waiter, max(timeout, 0.01))


async def _next_events(
    waiter, read, run_id, cursor: int, poll: float, next_read_at: float
) -> tuple[list[Logged], float]:
    """Return the events after `cursor` the notifications carried, with the log's read in when
    it is due (or when they carried too little), and when to read the log next."""
    waiter.clear()
    if waiter.must_read:
        waiter.must_read = False
        next_read_at = 0.0
    pending, complete = _carried(waiter, cursor)
    if not complete:
        next_read_at = 0.0
    if time.monotonic() >= next_read_at:
        logged, next_read_at = await _read_log(read, run_id, cursor, poll)
        newest = logged[-1].seq if logged else cursor
        pending = logged + [event for event in pending if event.seq > newest]
    return pending, next_read_at
