"""Which workers are alive, per queue: kept by each worker, read by /api/health and streams.

Each long-running worker (`manage.py procrastinate worker`, as runportal starts it) writes a
`WorkerPresence` row on a background thread every WORKER_SEEN_SECONDS / 3 and removes it as
it exits; a worker killed outright is no longer counted once WORKER_SEEN_SECONDS pass, and
neither is one whose row could not be removed within REMOVE_WAIT_SECONDS.
"""

from __future__ import annotations

import atexit
import logging
import os
import socket
import threading
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone

from adrag_site.jobs import is_worker_process, worker_queues
from adrag_site.models import WorkerPresence

logger = logging.getLogger(__name__)

# The queues a portal needs a live worker for, and what each one does.
RUNS, INGEST = "runs", "ingest"
REQUIRED_QUEUES = {RUNS: "answers questions", INGEST: "indexes uploaded documents"}
_stop = threading.Event()
_thread: threading.Thread | None = None
# How long an exiting worker waits for its row's removal. Right after a database restart the
# connection pool may still be waiting out its reconnection back-off, and a connection from it
# takes up to DB_POOL_TIMEOUT (30 s): the worker exited that much later, holding up runportal's
# stop.
REMOVE_WAIT_SECONDS = 3.0


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def start_in_worker() -> None:
    """In a long-running worker, keep this worker's presence row fresh until it exits."""
    if not is_worker_process():
        return
    global _thread
    queues = ",".join(worker_queues())
    started = timezone.now()
    _thread = threading.Thread(
        target=_keep_fresh, args=(queues, started), name="worker-presence", daemon=True
    )
    _thread.start()
    atexit.register(_remove)


def _keep_fresh(queues: str, started) -> None:
    from django.apps import apps

    interval = max(settings.WORKER_SEEN_SECONDS / 3, 1)
    while not apps.ready and not _stop.is_set():
        # Started from AppConfig.ready: the first write waits for the other apps.
        _stop.wait(0.1)
    while not _stop.is_set():
        _record(queues, started)
        _stop.wait(interval)
    _delete()


def _record(queues: str, started) -> None:
    try:
        WorkerPresence.objects.update_or_create(
            worker=worker_id(),
            defaults={"queues": queues, "started_at": started, "seen_at": timezone.now()},
        )
    except Exception as exc:
        # The database may be away for a moment: the next turn connects and writes again.
        logger.warning("could not record this worker's presence: %s", exc)
        connection.close()


def _remove() -> None:
    """At exit: stop the presence thread, which removes the row as it ends, and wait for that
    at most REMOVE_WAIT_SECONDS."""
    _stop.set()
    if _thread is not None and _thread.is_alive():
        _thread.join(REMOVE_WAIT_SECONDS)
    else:
        _delete()


def _delete() -> None:
    try:
        WorkerPresence.objects.filter(worker=worker_id()).delete()
    except Exception:
        pass


def live_workers() -> list:
    """Return the workers seen within WORKER_SEEN_SECONDS."""
    since = timezone.now() - timedelta(seconds=settings.WORKER_SEEN_SECONDS)
    return list(WorkerPresence.objects.filter(seen_at__gte=since))


def workers_for(queue: str, workers: list | None = None) -> int:
    """Return how many live workers take `queue` (a worker naming no queue takes them all)."""
    workers = live_workers() if workers is None else workers
    return sum(1 for w in workers if not w.queue_list or queue in w.queue_list)


def queue_status() -> dict:
    """Report each required queue's live workers for /api/health."""
    workers = live_workers()
    return {
        queue: {"workers": workers_for(queue, workers), "does": does}
        for queue, does in REQUIRED_QUEUES.items()
    }
