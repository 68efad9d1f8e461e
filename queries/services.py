"""Writes of query runs from requests: check limits, create and queue, cancel."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.http import Http404
from django.utils import timezone

from adrag_site import audit, jobs
from adrag_site.audit import audit_record
from adrag_site.errors import ServiceError
from knowledge.selectors import kb_ids_for_user, kb_ids_readable
from providers.llm.registry import get_backend
from providers.reranker import FusedRankOrder
from providers.reranker import status as reranker_status
from queries.eventlog import run_terminate
from queries.filters import filters_validate
from queries.inputs import RerunInput
from queries.models import Conversation, QueryRun, RunFeedback
from queries.pipeline import codes
from queries.pipeline.config import PipelineConfig
from queries.selectors import conversation_get_for_user

logger = logging.getLogger(__name__)


def config_snapshot(*, provider_name: str, model: str, overrides: dict | None = None) -> dict:
    """Record the settings a run ran with (a re-run's overrides applied), to read its results:
    the provider and model, the embedder and reranker, the pipeline's tunables
    (PipelineConfig.snapshot) and the chunking its documents were indexed with."""
    config = PipelineConfig.from_settings().with_overrides(overrides or {})
    reranker = reranker_status()
    if not config.reranker_enabled:
        reranker = {
            "ready": True,
            **FusedRankOrder().describe(),
            "configured": settings.RERANKER_MODEL,
            "enabled": False,
        }
    return {
        "provider": provider_name,
        "model": model,
        "embedding_model": settings.EMBEDDING_MODEL,
        "reranker": reranker,
        **config.snapshot(),
        "chunk_size": settings.CHUNK_SIZE,
        "chunk_overlap": settings.CHUNK_OVERLAP,
    }


# The namespace of the per-user advisory lock that serialises run creation.
RUN_LIMIT_LOCK = 7_311_001
# An evaluation's runs wait behind people's questions (priority 0) on the runs queue.
EVALUATION_RUN_PRIORITY = -10


def run_check_limits(*, user) -> None:
    """Raise ServiceError 429 when the user has too many active or recent runs.

    Called inside `run_create`'s transaction, after the user's advisory lock is taken, so
    that parallel requests count each other's runs.
    """
    # An evaluation's runs are bounded by its own throttle (EVALUATION_RUNS_IN_FLIGHT), not by
    # the limits of the person who started it.
    own = QueryRun.objects.filter(user=user, evaluation__isnull=True)
    active = own.filter(status__in=QueryRun.ACTIVE_STATUSES).count()
    if active >= settings.RUNS_MAX_CONCURRENT_PER_USER:
        raise ServiceError(
            429,
            "rate_limited",
            f"You already have {active} queries running (the limit is "
            f"{settings.RUNS_MAX_CONCURRENT_PER_USER}); wait for one to finish or cancel it.",
            retry_after=5,
        )
    hour_ago = timezone.now() - timedelta(hours=1)
    recent = own.filter(created_at__gte=hour_ago)
    if recent.count() >= settings.RUNS_PER_HOUR_PER_USER:
        oldest = recent.order_by("created_at").values_list("created_at", flat=True).first()
        wait = int((oldest + timedelta(hours=1) - timezone.now()).total_seconds()) + 1
        raise ServiceError(
            429,
            "rate_limited",
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
    conversation=None,
    filters: dict | None = None,
    overrides: dict | None = None,
    rerun_of: QueryRun | None = None,
    start_conversation: bool = False,
    evaluation=None,
) -> QueryRun:
    """Check the user's run limits, record a run and queue its job, in one transaction.

    The user's advisory lock makes check-then-insert atomic: of N parallel requests, exactly
    as many as the limits allow are accepted. With `start_conversation` the run opens a new
    conversation titled from its question; a run in a `conversation` brings it to the top of
    the user's list. A run of an `evaluation` skips the user's limits and its job waits behind
    people's questions. Raises ServiceError (429, or 404 for a conversation deleted meanwhile).
    """
    try:
        resolved_model = model or get_backend(provider_name).default_model()
    except Exception:  # a provider that cannot be built fails the run, with its error frame
        resolved_model = model or ""
    with transaction.atomic():
        if evaluation is None:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [RUN_LIMIT_LOCK, user.pk])
            run_check_limits(user=user)
        if start_conversation and conversation is None:
            conversation = Conversation.objects.create(user=user, title=conversation_title(query))
        elif conversation is not None:
            conversation_touch(conversation=conversation)
        run = QueryRun.objects.create(
            user=user,
            query=query,
            provider=provider_name,
            model=resolved_model,
            kb_ids=list(kb_ids),
            config=config_snapshot(
                provider_name=provider_name, model=resolved_model, overrides=overrides
            ),
            request_id=request_id,
            conversation=conversation,
            filters=filters or {},
            overrides=overrides or {},
            rerun_of=rerun_of,
            evaluation=evaluation,
        )
        run.knowledge_bases.set(kb_ids)
        priority = EVALUATION_RUN_PRIORITY if evaluation is not None else 0
        run.job_id = jobs.job_defer("queries.run_query", run_id=str(run.id), priority=priority)
        run.save(update_fields=["job_id"])
    return run


def run_start(*, user, data: dict, request_id: str = "") -> QueryRun:
    """Start a run from a checked POST /api/query body (queries/inputs.QueryInput): the
    knowledge bases it names must be readable (404 otherwise; none named: every readable one),
    the conversation it continues the user's own (404), its filters valid for those knowledge
    bases (400); then the run is created and queued (the limits apply: 429)."""
    kb_ids = kb_ids_readable(user=user, requested=data["knowledge_bases"])
    conversation = None
    if data["conversation"]:
        try:
            conversation = conversation_get_for_user(
                conversation_id=data["conversation"], user=user, own=True
            )
        except Http404:
            raise ServiceError(404, "not_found", "No such conversation.") from None
    filters = filters_validate(raw=data["filters"], user=user, kb_ids=kb_ids)
    return run_create(
        user=user,
        query=data["query"],
        provider_name=data["provider"],
        model=data["model"],
        kb_ids=kb_ids,
        request_id=request_id,
        filters=filters,
        conversation=conversation,
        start_conversation=conversation is None,
    )


TITLE_CHARS = 80


def conversation_title(query: str) -> str:
    """Return a conversation's title: its first question on one line, cut at a word."""
    title = " ".join(query.split())
    if len(title) <= TITLE_CHARS:
        return title
    cut = title[: TITLE_CHARS - 1].rsplit(" ", 1)[0] or title[: TITLE_CHARS - 1]
    return cut.rstrip(" ,;:.") + "…"


def conversation_touch(*, conversation: Conversation) -> None:
    """Mark a conversation as just used; 404 when it was deleted meanwhile."""
    touched = Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now())
    if not touched:
        raise ServiceError(404, "not_found", "No such conversation.")


def conversation_share(*, conversation: Conversation, team) -> Conversation:
    """Let the members of `team` open the conversation read-only (None: stop sharing).

    The team is one the owner is in (`team_get_for_user` checked it). A member sees an answer
    only when they may read every knowledge base it searched (`conversation_export`).
    """
    before = conversation.shared_with.name if conversation.shared_with else None
    after = team.name if team is not None else None
    if before != after:
        conversation.shared_with = team
        # Sharing does not move the conversation up its owner's list: no `updated_at`.
        Conversation.objects.filter(pk=conversation.pk).update(shared_with=team)
        audit_record(audit.CONVERSATION_SHARED, target=conversation, before=before, after=after)
    return conversation


def conversation_delete(*, conversation: Conversation) -> None:
    """Delete a conversation; its runs stay in the history, in no conversation."""
    audit_record(audit.CONVERSATION_DELETED, target=conversation, title=conversation.title)
    conversation.delete()


def run_cancel(*, run: QueryRun) -> QueryRun:
    """Stop a run: a queued one at once, a running one at its next check. Idempotent."""
    with transaction.atomic():
        run = QueryRun.objects.select_for_update().get(id=run.id)
        if run.status == QueryRun.Status.CANCELLED:
            return run
        if not run.is_active:
            raise ServiceError(409, "run_finished", f"The run already ended: it is {run.status}.")
        run.cancel_requested = True
        run.save(update_fields=["cancel_requested"])
        if run.status == QueryRun.Status.QUEUED:
            # A job a worker has just taken cannot be withdrawn; it is asked to stop, and the
            # run ends here all the same: its job body starts only queued runs (run_execute).
            if run.job_id is not None and not jobs.job_cancel(run.job_id, abort=False):
                jobs.job_cancel(run.job_id, abort=True)
            run_terminate(
                run_id=run.id,
                status=QueryRun.Status.CANCELLED,
                code=codes.CANCELLED,
                message=codes.CANCELLED_MESSAGE,
            )
        elif run.job_id:
            jobs.job_cancel(run.job_id, abort=True)
    run.refresh_from_db()
    return run


def run_rerun(*, run: QueryRun, user, overrides, request_id: str = "") -> QueryRun:
    """Start a new run of a past run's question with some settings changed, linked to it.

    The re-run inherits the original's overrides, provider, model, knowledge bases and filters,
    then applies the new overrides (checked here: ServiceError 400, 404 for a KB the user
    cannot read). It asks the question as it stood alone (a follow-up's standalone form) and
    belongs to no conversation: it is an experiment beside the thread, not a turn of it.
    Rate limits apply as for any run (429).
    """
    if run.conversation_id and not run.standalone_query:
        # A follow-up's standalone question is recorded when it finishes: without it, the
        # re-run would ask the bare follow-up ("and when?") with no conversation to read it by.
        raise ServiceError(
            409,
            "run_unfinished",
            "This follow-up has no standalone question yet; re-run it once it has finished.",
        )
    changes = RerunInput(data=overrides).validated() if overrides is not None else {}
    if "knowledge_bases" in changes:
        kb_ids_readable(user=user, requested=changes["knowledge_bases"])
    inherited = dict(run.overrides or {})
    effective = {**inherited, **changes}
    if "fusion_weights" in changes and "fusion_weights" in inherited:
        # Weights not named this time keep the original's.
        effective["fusion_weights"] = {**inherited["fusion_weights"], **changes["fusion_weights"]}
    provider_name = changes.get("provider", run.provider)
    if "model" in changes:
        model = changes["model"]
    elif provider_name != run.provider:
        model = None  # another provider: its own default model
        effective.pop("model", None)
    else:
        model = run.model or None
    if "knowledge_bases" in changes:
        kb_ids = changes["knowledge_bases"]  # checked readable above
    else:
        # A knowledge base deleted or unshared since the original ran is not searched again.
        readable = set(kb_ids_for_user(user=user))
        kb_ids = [kb_id for kb_id in run.kb_ids or [] if kb_id in readable]
    # The original's filters, checked again against the knowledge bases searched now.
    filters = filters_validate(raw=run.filters or None, user=user, kb_ids=kb_ids)
    rerun = run_create(
        user=user,
        query=run.standalone_query or run.query,
        provider_name=provider_name,
        model=model,
        kb_ids=kb_ids,
        request_id=request_id,
        conversation=None,
        filters=filters,
        overrides=effective,
        rerun_of=run,
    )
    audit_record(
        audit.RERUN, target=rerun, actor=user, rerun_of=str(run.id), changed=sorted(changes)
    )
    return rerun


# A comment says why an answer was good or bad, not a document.
FEEDBACK_COMMENT_MAX_CHARS = 2000


def feedback_set(*, run: QueryRun, user, rating: str, comment: str = "") -> RunFeedback:
    """Record the user's rating of a run, replacing their earlier one (one per user per run)."""
    if rating not in RunFeedback.Rating.values:
        raise ServiceError(400, "invalid_rating", "rating must be 'up' or 'down'.")
    limit = FEEDBACK_COMMENT_MAX_CHARS
    comment = (comment or "").strip()
    if len(comment) > limit:
        raise ServiceError(
            400, "comment_too_long", f"The comment is too long: the limit is {limit} characters."
        )
    feedback, _ = RunFeedback.objects.update_or_create(
        run=run, user=user, defaults={"rating": rating, "comment": comment}
    )
    return feedback


def feedback_delete(*, run: QueryRun, user) -> bool:
    """Remove the user's rating of a run; tell whether there was one."""
    deleted, _ = RunFeedback.objects.filter(run=run, user=user).delete()
    return bool(deleted)
