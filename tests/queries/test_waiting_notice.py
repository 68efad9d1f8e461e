"""A stream whose run no live worker takes says so, instead of keep-alives until a timeout."""

from __future__ import annotations

import asyncio

import pytest
from django.utils import timezone

from queries.models import QueryRun
from queries.streams import STYLE_EVENTSOURCE, STYLE_POST, WAITING_MESSAGE, run_stream

pytestmark = pytest.mark.django_db(transaction=True)


def first_frames(run_id, style: str, count: int, timeout: float = 10) -> list[str]:
    async def read() -> list[str]:
        frames = []
        stream = run_stream(run_id=run_id, style=style)
        try:
            async for frame in stream:
                frames.append(frame)
                if len(frames) == count:
                    break
        finally:
            await stream.aclose()
        return frames

    return asyncio.run(asyncio.wait_for(read(), timeout))


@pytest.fixture
def queued_run(user, settings, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    from adrag_site.models import WorkerPresence
    from queries import streams

    settings.STREAM_WAITING_SECONDS = 0.3
    settings.STREAM_HEARTBEAT_SECONDS = 0.6
    # The streams' reader thread, of this test's own, so that its connection is closed after.
    pool = ThreadPoolExecutor(max_workers=1)
    monkeypatch.setattr(streams, "_pool", pool)
    # Workers of live stacks in this process may have presence rows: they are set aside for
    # this test's time (the rows are unmanaged, so they are not rolled back or flushed).
    live = list(WorkerPresence.objects.all())
    WorkerPresence.objects.all().delete()
    yield QueryRun.objects.create(user=user, query="Anyone there?", provider="extractive")
    WorkerPresence.objects.filter(worker__in=["h:1", "h:2"]).delete()
    WorkerPresence.objects.bulk_create(live, ignore_conflicts=True)
    pool.submit(connections.close_all).result()
    pool.shutdown()


def test_a_queued_run_with_no_runs_worker_says_it_waits(queued_run):
    notice, keep_alive = first_frames(queued_run.id, STYLE_EVENTSOURCE, 2)
    assert notice.startswith("event: waiting\ndata: ") and "id:" not in notice
    assert WAITING_MESSAGE.split(":")[0] in notice and '"workers": 0' in notice
    assert keep_alive == ": keep-alive\n\n"  # said once, then the stream goes on
    # POST /api/query keeps the spec's event types: a comment line says it there.
    (comment,) = first_frames(queued_run.id, STYLE_POST, 1)
    assert comment.startswith(": waiting: ")


def test_a_live_runs_worker_means_no_notice(queued_run):
    from adrag_site.models import WorkerPresence

    now = timezone.now()
    WorkerPresence.objects.create(worker="h:1", queues="ingest", started_at=now, seen_at=now)
    assert first_frames(queued_run.id, STYLE_EVENTSOURCE, 1)[0].startswith("event: waiting")
    WorkerPresence.objects.create(worker="h:2", queues="runs,default", started_at=now, seen_at=now)
    assert first_frames(queued_run.id, STYLE_EVENTSOURCE, 1) == [": keep-alive\n\n"]


def test_a_started_stream_waits_for_its_next_deadline_not_a_busy_poll(
    queued_run, settings, monkeypatch
):
    # Once the run has begun (an event was read), the stream sleeps until a notification, its
    # next re-read or its heartbeat: never the 10 ms floor, whatever time the waiting check had.
    from queries import notify
    from queries.eventlog import run_event_append

    settings.STREAM_HEARTBEAT_SECONDS = 30
    settings.STREAM_WAITING_SECONDS = 0.05
    run_event_append(run_id=queued_run.id, event_type="stage_start", data={"stage": "planner"})
    waits: list[float] = []
    real_wait = notify.wait

    async def recorded(waiter, timeout):
        waits.append(timeout)
        return await real_wait(waiter, min(timeout, 0.1))

    monkeypatch.setattr(notify, "wait", recorded)

    async def read() -> None:
        stream = run_stream(run_id=queued_run.id, style=STYLE_EVENTSOURCE)
        try:
            await stream.__anext__()  # the event
            while len(waits) < 5:
                await asyncio.wait_for(stream.__anext__(), 0.5)
        except TimeoutError:
            pass
        finally:
            await stream.aclose()

    asyncio.run(read())
    assert waits and min(waits) > 0.05, waits
