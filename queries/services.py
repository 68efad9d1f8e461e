"""Writes of query runs: create and queue, execute on a worker, cancel, and reap the dead."""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from adrag_site.db import DISCONNECTS, reset_connection
from queries.eventlog import RunEventSink, run_terminate
from queries.models import QueryRun

logger = logging.getLogger(__name__)

INTERRUPTED_MESSAGE = "The worker running this query stopped before it finished."
CANCELLED_MESSAGE = "Run cancelled"


class RunConflict(Exception):
    """The run is in a state that does not allow the operation."""


class RunLimitExceeded(Exception):
    """The user is over a run limit."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def config_snapshot(*, provider_name: str, model: str) -> dict:
    """Record the settings a run ran with, so its results can be read later."""
    from knowledge.retrieval.fusion import fusion_weights
    from providers.reranker import status as reranker_status

    return {
        "provider": provider_name,
        "model": model,
        "embedding_model": settings.EMBEDDING_MODEL,
        "reranker": reranker_status(),
        "retrieval_top_k": settings.RETRIEVAL_TOP_K,
        "graph_top_k": max(settings.RETRIEVAL_TOP_K // 2, 3),
        "rerank_top_k": settings.RERANK_TOP_K,
        "max_context_chars": settings.MAX_CONTEXT_CHARS,
        "max_reflection_retries": settings.MAX_REFLECTION_RETRIES,
        "retry_temperature": settings.RETRY_TEMPERATURE,
        "fusion": {"rrf_k": settings.FUSION_RRF_K, "weights": fusion_weights()},
        "chunk_size": settings.CHUNK_SIZE,
        "chunk_overlap": settings.CHUNK_OVERLAP,
        "web_results": 5,
        "web_score": 0.7,
    }


# The namespace of the per-user advisory lock that serialises run creation.
RUN_LIMIT_LOCK = 7_311_001


def run_check_limits(*, user) -> None:
    """Raise RunLimitExceeded when the user has too many active or recent runs.

    Called inside `run_create`'s transaction, after the user's advisory lock is taken, so
    that parallel requests count each other's runs.
    """
    active = QueryRun.objects.filter(user=user, status__in=QueryRun.ACTIVE_STATUSES).count()
    if active >= settings.RUNS_MAX_CONCURRENT_PER_USER:
        raise RunLimitExceeded(
            f"You already have {active} queries running (the limit is "
            f"{settings.RUNS_MAX_CONCURRENT_PER_USER}); wait for one to finish or cancel it.",
            retry_after=5,
        )
    hour_ago = timezone.now() - timedelta(hours=1)
    recent = QueryRun.objects.filter(user=user, created_at__gte=hour_ago)
    if recent.count() >= settings.RUNS_PER_HOUR_PER_USER:
        oldest = recent.order_by("created_at").values_list("created_at", flat=True).first()
        wait = int((oldest + timedelta(hours=1) - timezone.now()).total_seconds()) + 1
        raise RunLimitExceeded(
            f"You have started {settings.RUNS_PER_HOUR_PER_USER} queries in the last hour, the limit.",
            retry_after=max(wait, 1),
        )


def run_create(
    *,
    user,
    query: str,
    provider_name: str,
    model: str | None,
    kb_ids: list[int],
    request_id: str = "",
) -> QueryRun:
    """Check the user's run limits, record a run and queue its job, in one transaction.

    The user's advisory lock makes check-then-insert atomic: of N parallel requests, exactly
    as many as the limits allow are accepted. Raises RunLimitExceeded.
    """
    from providers.llm.registry import get_provider
    from queries.tasks import run_query

    try:
        resolved_model = model or get_provider(provider_name).default_model()
    except Exception:  # a provider that cannot be built fails the run, with its error frame
        resolved_model = model or ""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [RUN_LIMIT_LOCK, user.pk])
        run_check_limits(user=user)
        run = QueryRun.objects.create(
            user=user,
            query=query,
            provider=provider_name,
            model=resolved_model,
            kb_ids=list(kb_ids),
            config=config_snapshot(provider_name=provider_name, model=resolved_model),
            request_id=request_id,
        )
        run.knowledge_bases.set(kb_ids)
        run.job_id = run_query.defer(run_id=str(run.id))
        run.save(update_fields=["job_id"])
    return run


class CancelCheck:
    """Tell the pipeline whether to stop: cancel requested, run ended elsewhere, or job aborted."""

    def __init__(self, run_id, should_abort=lambda: False, every: float = 0.25) -> None:
        self.run_id = run_id
        self.should_abort = should_abort
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
                self.cancelled = True
        return self.cancelled


def run_execute(*, run_id, should_abort=lambda: False) -> QueryRun | None:
    """Run the pipeline for a queued run, writing every event to its log."""
    from knowledge.selectors import kb_ids_for_user
    from providers.llm.registry import get_provider
    from queries.pipeline.runner import run_pipeline

    with transaction.atomic():
        run = QueryRun.objects.select_for_update().select_related("user").filter(id=run_id).first()
        if run is None or run.status != QueryRun.Status.QUEUED:
            return run
        if run.cancel_requested:
            run_terminate(
                run_id=run.id,
                status=QueryRun.Status.CANCELLED,
                code="cancelled",
                message=CANCELLED_MESSAGE,
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
        provider=lambda: get_provider(run.provider),
        kb_ids=kb_ids,
        sink=RunEventSink(run.id),
        model=run.model or None,
        is_cancelled=CancelCheck(run.id, should_abort),
    )
    run.refresh_from_db()
    return run


def run_cancel(*, run: QueryRun) -> QueryRun:
    """Stop a run: a queued one at once, a running one at its next check. Idempotent."""
    from procrastinate.contrib.django import app

    with transaction.atomic():
        run = QueryRun.objects.select_for_update().get(id=run.id)
        if run.status == QueryRun.Status.CANCELLED:
            return run
        if not run.is_active:
            raise RunConflict(f"The run already ended: it is {run.status}.")
        run.cancel_requested = True
        run.save(update_fields=["cancel_requested"])
        if run.status == QueryRun.Status.QUEUED:
            if run.job_id is None or app.job_manager.cancel_job_by_id(run.job_id, abort=False):
                run_terminate(
                    run_id=run.id,
                    status=QueryRun.Status.CANCELLED,
                    code="cancelled",
                    message=CANCELLED_MESSAGE,
                )
        elif run.job_id:
            app.job_manager.cancel_job_by_id(run.job_id, abort=True)
    run.refresh_from_db()
    return run


_DEAD_RUNS_SQL = """
    SELECT r.id FROM queries_queryrun r
    LEFT JOIN procrastinate_jobs j ON j.id = r.job_id
    LEFT JOIN procrastinate_workers w ON w.id = j.worker_id
    WHERE {filter} AND (
        (r.status = 'running' AND (
            j.id IS NULL OR j.status <> 'doing' OR j.worker_id IS NULL
            OR w.last_heartbeat < now() - make_interval(secs => %s)))
        OR (r.status = 'queued' AND (j.id IS NULL OR j.status NOT IN ('todo', 'doing')))
    )
"""


def _dead_runs(run_id=None) -> list:
    where, params = ("r.id = %s", [run_id]) if run_id else ("r.status IN ('queued', 'running')", [])
    with connection.cursor() as cursor:
        cursor.execute(_DEAD_RUNS_SQL.format(filter=where), [*params, settings.RUN_STALE_SECONDS])
        return [row[0] for row in cursor.fetchall()]


def _interrupt(run_id) -> bool:
    ended = run_terminate(
        run_id=run_id,
        status=QueryRun.Status.INTERRUPTED,
        code="interrupted",
        message=INTERRUPTED_MESSAGE,
    )
    if ended:
        logger.warning("run %s interrupted: its worker stopped", run_id)
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE procrastinate_jobs SET status = 'failed' WHERE id = "
                "(SELECT job_id FROM queries_queryrun WHERE id = %s) AND status = 'doing'",
                [run_id],
            )
    return ended


def run_check_liveness(*, run_id) -> bool:
    """Mark the run interrupted if its worker is gone; return whether it was."""
    return any(_interrupt(dead) for dead in _dead_runs(run_id))


def runs_reap() -> int:
    """Mark every run whose worker is gone as interrupted; return how many."""
    return sum(1 for dead in _dead_runs() if _interrupt(dead))
