"""The one module that executes query runs on a worker, and ends the runs of dead workers.

`run_execute` is the job body: it takes a queued run, runs the pipeline with the run's event
log as its sink, and the log's terminal event records the outcome. `runs_reap` ends the runs
whose job can no longer make progress (its worker died); the periodic reaper and
`manage.py reap` call it, and no reader of a run does.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from adrag_site import jobs
from adrag_site.db import DISCONNECTS, reset_connection
from knowledge.selectors import kb_ids_for_user
from queries.answering.registry import get_strategy
from queries.eventlog import RunEventSink, run_terminate
from queries.models import QueryRun
from queries.pipeline import codes
from queries.pipeline.config import PipelineConfig

logger = logging.getLogger(__name__)


class CancelCheck:
    """Tell the pipeline whether to stop: cancel requested, run ended elsewhere, or job aborted.

    A job aborted because its worker is stopping (Ctrl-C, a deployment) ends its run
    `interrupted`, as the reaper would: nobody asked to cancel it.
    """

    def __init__(
        self,
        run_id,
        should_abort=lambda: False,
        worker_stopping=lambda: False,
        every: float = 0.25,
    ) -> None:
        self.run_id = run_id
        self.should_abort = should_abort
        self.worker_stopping = worker_stopping
        self.every = every
        self.checked_at = 0.0
        self.cancelled = False

    def __call__(self) -> bool:
        if self.cancelled:
            return True
        now = time.monotonic()
        if now - self.checked_at >= self.every:
            self.checked_at = now
            try:
                row = (
                    QueryRun.objects.filter(id=self.run_id)
                    .values_list("cancel_requested", "status")
                    .first()
                )
            except DISCONNECTS:
                # The database is away (a restart): go on, and ask again next time.
                reset_connection()
                return False
            if row is None or row[0] or row[1] not in QueryRun.ACTIVE_STATUSES:
                self.cancelled = True
            elif self.should_abort():
                if self.worker_stopping():
                    try:
                        run_interrupt(self.run_id)
                    except DISCONNECTS:
                        reset_connection()
                        return False  # ended at the next check, or by the reaper
                self.cancelled = True
        return self.cancelled


def run_execute(
    *, run_id, should_abort=lambda: False, worker_stopping=lambda: False
) -> QueryRun | None:
    """Run the pipeline for a queued run, writing every event to its log. `should_abort` tells
    whether the job was aborted, `worker_stopping` whether that was because its worker stops."""
    # Here, not at the top: the runner brings LangGraph (most of a second), and every process
    # imports this module through queries/tasks.py; a worker imports it at start (apps.py).
    from queries.pipeline.runner import run_pipeline

    with transaction.atomic():
        run = QueryRun.objects.select_for_update().select_related("user").filter(id=run_id).first()
        if run is None or run.status != QueryRun.Status.QUEUED:
            return run
        if run.cancel_requested:
            run_terminate(
                run_id=run.id,
                status=QueryRun.Status.CANCELLED,
                code=codes.CANCELLED,
                message=codes.CANCELLED_MESSAGE,
            )
            return run
        run.status = QueryRun.Status.RUNNING
        run.started_at = timezone.now()
        run.save(update_fields=["status", "started_at"])
    # Access is re-checked now: a KB unshared since the run was queued is not searched.
    allowed = set(kb_ids_for_user(user=run.user))
    kb_ids = [kb_id for kb_id in run.kb_ids if kb_id in allowed]
    run_pipeline(
        query=run.query,
        strategy=lambda: get_strategy(run.provider),
        kb_ids=kb_ids,
        sink=RunEventSink(run.id),
        model=run.model or None,
        config=PipelineConfig.from_settings().with_overrides(run.overrides or {}),
        is_cancelled=CancelCheck(run.id, should_abort, worker_stopping),
        filters=dict(run.filters or {}),
        history=conversation_history(run),
    )
    run.refresh_from_db()
    return run


def conversation_history(run: QueryRun, turns: int = 3) -> list[dict[str, str]]:
    """Return the last `turns` answered turns before this run in its conversation, oldest first."""
    if run.conversation_id is None:
        return []
    earlier = (
        QueryRun.objects.filter(
            conversation_id=run.conversation_id,
            created_at__lt=run.created_at,
            status=QueryRun.Status.SUCCEEDED,
        )
        .order_by("-created_at")
        .values("query", "standalone_query", "answer")[:turns]
    )
    return list(reversed(list(earlier)))


def run_interrupt(run_id) -> bool:
    """End an unfinished run as `interrupted` (its worker stopped); False if it already ended."""
    return run_terminate(
        run_id=run_id,
        status=QueryRun.Status.INTERRUPTED,
        code=codes.INTERRUPTED,
        message=codes.INTERRUPTED_MESSAGE,
    )


def runs_reap() -> int:
    """End every run whose job can no longer make progress as `interrupted`; return how many."""
    active = list(
        QueryRun.objects.filter(status__in=QueryRun.ACTIVE_STATUSES).values_list("id", "job_id")
    )
    alive = jobs.alive_job_ids(
        [job_id for _, job_id in active if job_id is not None],
        stale_seconds=settings.RUN_STALE_SECONDS,
    )
    ended = 0
    for run_id, job_id in active:
        if job_id in alive:
            continue
        if run_interrupt(run_id):
            logger.warning("run %s interrupted: its worker stopped", run_id)
            jobs.job_mark_failed(job_id)
            ended += 1
    return ended
