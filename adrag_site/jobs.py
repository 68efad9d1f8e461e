"""The one adapter to Procrastinate: jobs are deferred and cancelled here, through its API, and
this module is the only place that reads or writes its tables directly (liveness of jobs and
workers, queue depths), so a change of Procrastinate's schema is a change here alone.

Jobs are deferred by task name: the services that queue them never import the tasks modules,
which import the services (a tasks module is a leaf of the import graph)."""

from __future__ import annotations

import asyncio
import atexit
import gc
import logging
import sys
import threading
import time

import psycopg
from django.db import connection
from procrastinate import manager as procrastinate_manager
from procrastinate import tasks as procrastinate_tasks
from procrastinate.contrib.django import app, connector_params
from procrastinate.contrib.django.django_connector import DjangoConnector
from procrastinate.contrib.django.settings import settings as procrastinate_settings
from procrastinate.exceptions import AlreadyEnqueued, ConnectorException
from procrastinate.job_context import AbortReason
from procrastinate.psycopg_connector import PsycopgConnector

logger = logging.getLogger(__name__)


def _django_job_manager() -> procrastinate_manager.JobManager:
    """Return a job manager that writes through Django's own connection.

    In a worker, Procrastinate swaps the app's connector for its own pool, whose writes commit at
    once: a job deferred by a job (an evaluation queueing its next run) would be committed, and
    could be taken, before the run it names. Through Django's connection the job is written in
    the caller's transaction in every process, the web's and the workers' alike.
    """
    return procrastinate_manager.JobManager(DjangoConnector())


# How long the job listener of a worker waits before listening again while the database is away:
# doubling from the first value up to the last.
LISTEN_RETRY_FIRST_SECONDS = 0.5
LISTEN_RETRY_MAX_SECONDS = 5.0
# A listener that listened this long before it failed meets a new outage: its pause starts over.
LISTEN_STABLE_SECONDS = 30.0


class ListenerRetryingConnector(PsycopgConnector):
    """A worker's connector whose job listener waits out a database restart.

    Procrastinate's listener reconnects at once when its connection drops; while the database
    is still shutting down or starting, that reconnection fails, and a worker whose listener
    fails stops, aborting the runs it was executing. This listener tries again after a pause
    instead. The heartbeat and the job fetches wait for a connection from the pool meanwhile,
    and a worker whose database stays away stops when they give up (the pool's 30 s).
    """

    async def listen_notify(self, on_notification, channels) -> None:
        delay = LISTEN_RETRY_FIRST_SECONDS
        while True:
            started = time.monotonic()
            try:
                await super().listen_notify(on_notification=on_notification, channels=channels)
            except ConnectorException as error:
                if not isinstance(error.__cause__, psycopg.OperationalError):
                    raise  # not the database away: a fault no pause mends
                if time.monotonic() - started > LISTEN_STABLE_SECONDS:
                    delay = LISTEN_RETRY_FIRST_SECONDS  # it listened a while: a new outage
                logger.warning(
                    "job listener: database unreachable (%s); listening again in %.1f s",
                    error.__cause__,
                    delay,
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, LISTEN_RETRY_MAX_SECONDS)


class WorkerDjangoConnector(DjangoConnector):
    """Procrastinate's Django connector, handing its workers a ListenerRetryingConnector."""

    def get_worker_connector(self) -> ListenerRetryingConnector:
        return ListenerRetryingConnector(
            kwargs=connector_params(procrastinate_settings.DATABASE_ALIAS)
        )


def on_app_ready(procrastinate_app) -> None:
    """PROCRASTINATE_ON_APP_READY: give the app the connector above, so that
    `manage.py procrastinate worker` runs on a ListenerRetryingConnector."""
    connector = WorkerDjangoConnector(alias=procrastinate_settings.DATABASE_ALIAS)
    procrastinate_app.connector = connector
    procrastinate_app.job_manager.connector = connector


def worker_stopping(context):
    """Return a callable telling whether a job's abort came from its worker stopping (Ctrl-C,
    a deployment, a failed side task) rather than from a cancel."""
    return lambda: context.abort_reason() == AbortReason.SHUTDOWN


def job_defer(
    task_name: str, *, queueing_lock: str | None = None, priority: int = 0, **task_kwargs
) -> int | None:
    """Queue a job of the task registered as `task_name` and return the job's id.

    Inside a transaction the job is written in it: a worker sees it once the transaction
    commits, and never if it rolls back. With a `queueing_lock`, while a job under the same lock
    waits, queueing another changes nothing and returns None. A worker takes the waiting job of
    highest `priority` first (then the oldest).
    """
    app.perform_import_paths()
    task = app.tasks[task_name]  # a KeyError for a task no module registers
    deferrer = procrastinate_tasks.configure_task(
        name=task_name,
        job_manager=_django_job_manager(),
        queue=task.queue,
        lock=task.lock,
        queueing_lock=queueing_lock,
        priority=priority,
    )
    try:
        return deferrer.defer(**task_kwargs)
    except AlreadyEnqueued:
        return None


def job_cancel(job_id: int, *, abort: bool) -> bool:
    """Cancel a job that still waits; with `abort`, ask a running one to stop as well (it sees
    the request at its next check). Return False when the job was in neither state."""
    return app.job_manager.cancel_job_by_id(job_id, abort=abort)


# A job is alive while it waits ('todo'), or runs ('doing') on a worker whose heartbeat is
# fresh. Anything else (finished, failed, cancelled, aborted, gone, or held by a dead worker)
# cannot make progress any more.
_ALIVE_SQL = """
    SELECT j.id FROM procrastinate_jobs j
    LEFT JOIN procrastinate_workers w ON w.id = j.worker_id
    WHERE j.id = ANY(%s) AND (
        j.status = 'todo'
        OR (j.status = 'doing' AND w.last_heartbeat >= now() - make_interval(secs => %s))
    )
"""


def alive_job_ids(job_ids: list[int], *, stale_seconds: float) -> set[int]:
    """Return those of the jobs that can still make progress."""
    if not job_ids:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(_ALIVE_SQL, [list(job_ids), stale_seconds])
        return {row[0] for row in cursor.fetchall()}


def job_mark_failed(job_id: int | None) -> None:
    """Mark a job its worker left in 'doing' as failed, so nothing waits on it any more."""
    if job_id is None:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE procrastinate_jobs SET status = 'failed' WHERE id = %s AND status = 'doing'",
            [job_id],
        )


def workers_seen(*, window_seconds: float) -> tuple[int, object]:
    """Return how many workers sent a heartbeat in the window, and the latest heartbeat."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), max(last_heartbeat) FROM procrastinate_workers "
            "WHERE last_heartbeat > now() - make_interval(secs => %s)",
            [window_seconds],
        )
        count, last = cursor.fetchone()
    return int(count), last


def queue_depths() -> list[tuple[str, str, int]]:
    """Return (queue, status, jobs) for every queue and status that has jobs."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT queue_name, status::text, count(*) FROM procrastinate_jobs GROUP BY 1, 2"
        )
        return [(queue, status, int(count)) for queue, status, count in cursor.fetchall()]


def is_worker_process() -> bool:
    """True in a long-running Procrastinate worker (`manage.py procrastinate worker`, as runportal
    starts it); not in a `--one-shot` worker, which exits after the jobs it finds."""
    return "procrastinate" in sys.argv and "worker" in sys.argv and "--one-shot" not in sys.argv


def exit_without_collecting() -> None:
    """In a long-running worker, skip the garbage collection of the interpreter's exit: a
    worker's heap (LangGraph, spaCy's pipeline, the embedder) took 3-4 s to collect after its
    last job, so each stop (runportal's Ctrl-C, a restart, a test's teardown) waited for it.
    At exit the objects are frozen (`gc.freeze`, before the exit handlers registered earlier,
    such as presence's), so that the interpreter frees them without collecting them first."""
    if is_worker_process():
        atexit.register(gc.freeze)


def worker_queues() -> list[str]:
    """Return the queues this worker process takes (`--queues a,b`), [] if it names none."""
    for index, arg in enumerate(sys.argv):
        if arg == "--queues" and index + 1 < len(sys.argv):
            return [queue.strip() for queue in sys.argv[index + 1].split(",") if queue.strip()]
        if arg.startswith("--queues="):
            return [queue.strip() for queue in arg.split("=", 1)[1].split(",") if queue.strip()]
    return []


def takes_any_of(queues: tuple[str, ...]) -> bool:
    """True when this worker takes one of `queues` (a worker that names none takes every queue)."""
    taken = worker_queues()
    return not taken or any(queue in taken for queue in queues)


def warm_up_in_worker(name: str, load, *, queues: tuple[str, ...]) -> None:
    """In a worker that takes one of `queues`, call `load` on a background thread at start, so
    that the first job does not wait for what it loads (models, LangGraph); elsewhere (web,
    commands, a worker only for other queues) load nothing. The log says when it is done (a job
    that needs it before then waits for it)."""
    if not is_worker_process() or not takes_any_of(queues):
        return

    def warm_up() -> None:
        started = time.monotonic()
        try:
            load()
        except Exception:
            # The first job that needs it tries again, and fails with the reason.
            logger.exception("warm-up of the %s failed", name)
        else:
            logger.info("warm-up of the %s done in %.1f s", name, time.monotonic() - started)

    threading.Thread(target=warm_up, name=f"warm-up-{name}", daemon=True).start()
