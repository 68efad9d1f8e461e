"""Readers of the run event log, framed as SSE: the POST stream and the EventSource endpoint.

Both read the same log from a cursor, so a live stream, a resumed one and a replay of a
finished run send the same bytes for the same events.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import sync_to_async
from django.conf import settings
from django_eventstream.eventrequest import EventRequest
from django_eventstream.eventstream import get_events

from adrag_site.db import DISCONNECTS, reset_connection
from queries import notify
from queries.eventstream_backend import channel_for
from queries.metrics import OPEN_STREAMS
from queries.pipeline import stages

logger = logging.getLogger(__name__)

STYLE_POST = "post"
STYLE_EVENTSOURCE = "eventsource"
KEEP_ALIVE = ": keep-alive\n\n"
METRICS_ENDPOINT = {STYLE_POST: "query", STYLE_EVENTSOURCE: "events"}
TIMEOUT_FRAME = json.dumps({"type": stages.ERROR, "data": {"message": "Stream timeout"}})


def encode(event, style: str) -> str:
    """Frame one logged event: `id: <seq>` and the one-line data frame (plus `event:`)."""
    lines = f"id: {event.id}\ndata: {event.data}\n\n"
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


def _read(run_id, user, after: int) -> tuple[list, bool]:
    """Read the next events through django-eventstream (its channel manager checks access)."""
    try:
        return _read_events(run_id, user, after)
    except DISCONNECTS as exc:
        reset_connection()
        raise ReadFailed(str(exc)) from exc


def _read_events(run_id, user, after: int) -> tuple[list, bool]:
    request = EventRequest()
    channel = channel_for(run_id)
    request.channels = {channel}
    request.channel_last_ids = {channel: str(after)}
    request.is_next = False
    request.is_recover = False
    request.user = user
    response = get_events(request, limit=200)
    return response.channel_items.get(channel, []), channel in response.channel_more


def _check_liveness(run_id) -> None:
    from queries.services import run_check_liveness

    try:
        run_check_liveness(run_id=run_id)
    except DISCONNECTS as exc:
        reset_connection()
        raise ReadFailed(str(exc)) from exc


async def run_stream(*, run_id, user, after: int = 0, style: str = STYLE_POST):
    """Yield the run's frames after `after` until `stream_end`, waking on NOTIFY."""
    heartbeat = settings.STREAM_HEARTBEAT_SECONDS
    idle_timeout = settings.STREAM_IDLE_TIMEOUT_SECONDS
    poll = settings.STREAM_POLL_SECONDS
    liveness_every = settings.STREAM_LIVENESS_SECONDS
    read = sync_to_async(_read, thread_sensitive=False, executor=_reader_pool())
    waiter = notify.hub.register(run_id)
    cursor = after
    now = time.monotonic()
    last_event_at = last_sent_at = now
    next_liveness = now + liveness_every
    open_streams = OPEN_STREAMS.labels(METRICS_ENDPOINT[style])
    # Counted only once the generator runs (a response never iterated opened no stream), and
    # uncounted in the same finally that unregisters the waiter, however the stream ends.
    open_streams.inc()
    try:
        while True:
            waiter.clear()
            try:
                events, more = await read(run_id, user, cursor)
            except ReadFailed as exc:
                # A database restart: keep the client (heartbeats) and read again shortly.
                logger.warning("reading run %s failed (%s); retrying", run_id, exc)
                events, more = [], False
            for event in events:
                if style == STYLE_POST and event.type in stages.EVENTSOURCE_ONLY:
                    # POST /api/query sends the spec's event types only.
                    cursor = event.id
                    last_event_at = time.monotonic()
                    continue
                yield encode(event, style)
                cursor = event.id
                last_event_at = last_sent_at = time.monotonic()
                if event.type == stages.STREAM_END:
                    return
            if more:
                continue
            now = time.monotonic()
            if now - last_event_at >= idle_timeout:
                # The stream ends; the run goes on and can be resumed from the events endpoint.
                prefix = f"event: {stages.ERROR}\n" if style == STYLE_EVENTSOURCE else ""
                yield f"{prefix}data: {TIMEOUT_FRAME}\n\n"
                return
            if now >= next_liveness:
                next_liveness = now + liveness_every
                try:
                    await sync_to_async(
                        _check_liveness, thread_sensitive=False, executor=_reader_pool()
                    )(run_id)
                except ReadFailed:
                    pass
            if now - last_sent_at >= heartbeat:
                yield KEEP_ALIVE
                last_sent_at = now
            timeout = min(
                poll,
                heartbeat - (now - last_sent_at),
                idle_timeout - (now - last_event_at),
                max(next_liveness - now, 0.05),
            )
            await notify.wait(waiter, max(timeout, 0.01))
    except (asyncio.CancelledError, GeneratorExit):
        # The client went away. The run is a job of its own and carries on.
        logger.info("stream reader for run %s closed by the client at seq %s", run_id, cursor)
        raise
    finally:
        open_streams.dec()
        notify.hub.unregister(run_id, waiter)
