"""Writes of evaluations: sets made from a file or from rated answers, evaluations started,
advanced and cancelled.

An evaluation is a batch of ordinary runs on the runs queue. It never queues them all: at most
EVALUATION_RUNS_IN_FLIGHT of its runs are queued or running at once, and their jobs carry a
lower priority than people's questions, so that a question asked meanwhile waits for the runs
already running at most. `evaluation_advance` scores the runs that ended and queues the next;
the worker calls it when one of the evaluation's runs ends (queries/tasks.py), and a periodic
task calls it for every active evaluation, so that a run reaped or cancelled elsewhere never
stalls one. Every step holds the evaluation's row lock, so a cancel and an advance never
interleave: after a cancel no run of it is queued.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from adrag_site import audit, jobs
from adrag_site.audit import audit_record
from adrag_site.errors import ServiceError
from knowledge.selectors import kb_ids_readable
from providers.llm.registry import provider_names
from queries import services as run_services
from queries.evaluation.metrics import summarise
from queries.evaluation.runs import run_score
from queries.evaluation.selectors import evaluation_set_running
from queries.evaluation.sets import ParsedQuestion, set_file_parse
from queries.execution import run_execute
from queries.inputs import RerunInput
from queries.models import Evaluation, EvaluationItem, EvaluationQuestion, EvaluationSet, QueryRun

logger = logging.getLogger(__name__)

# What a re-run may change that an evaluation names at its top level instead.
TOP_LEVEL = ("provider", "model", "knowledge_bases")


def evaluation_set_create(
    *, user, name: str, questions: list[ParsedQuestion], team=None, source: str = "upload",
    file_name: str = "", description: str = "",
) -> EvaluationSet:  # fmt: skip
    """Record a set and its questions in one transaction."""
    with transaction.atomic():
        evaluation_set = EvaluationSet.objects.create(
            name=name,
            owner=user,
            team=team,
            source=source,
            file_name=file_name[:255],
            description=description,
            question_count=len(questions),
        )
        EvaluationQuestion.objects.bulk_create(
            EvaluationQuestion(
                evaluation_set=evaluation_set,
                position=parsed.position,
                external_id=parsed.external_id,
                kind=parsed.kind,
                question=parsed.question,
                gold=parsed.gold,
            )
            for parsed in questions
        )
    audit_record(
        audit.UPLOAD, target=evaluation_set, source=source, file_name=file_name,
        questions=len(questions),
    )  # fmt: skip
    return evaluation_set


def evaluation_set_upload(
    *, user, name: str, data: bytes, file_name: str, team=None
) -> EvaluationSet:
    """Parse an uploaded file (ServiceError 400 listing its bad lines) and record the set."""
    questions = set_file_parse(data=data, file_name=file_name)
    return evaluation_set_create(
        user=user, name=name or file_name, questions=questions, team=team, file_name=file_name
    )


def evaluation_set_delete(*, evaluation_set: EvaluationSet) -> None:
    """Delete a set, its evaluations and their scores; the runs stay in their owners' history.

    Refused (409 `evaluation_running`) while an evaluation of it is queued or running: its
    runs would be scored against questions that no longer exist.
    """
    running_ids = evaluation_set_running(evaluation_set=evaluation_set)
    if running_ids:
        named = ", ".join(f"#{number}" for number in running_ids[:5])
        raise ServiceError(
            409,
            "evaluation_running",
            f"An evaluation of this set is still running ({named}): cancel it or let it "
            "finish, then delete the set.",
            details={"running": running_ids},
        )
    audit_record(
        audit.EVALUATION_SET_DELETED, target=evaluation_set, questions=evaluation_set.question_count,
        evaluations=evaluation_set.evaluations.count(),
    )  # fmt: skip
    evaluation_set.delete()


def _overrides(raw: dict | None) -> dict[str, Any]:
    """Return the settings an evaluation changes, checked as a re-run's (400 otherwise)."""
    if not raw:
        return {}
    named = [key for key in TOP_LEVEL if key in raw]
    if named:
        raise ServiceError(
            400,
            "invalid_override",
            f"settings.{named[0]}: name it beside the settings, not in them.",
        )
    return RerunInput(data=raw).validated()


def evaluation_start(
    *, user, evaluation_set: EvaluationSet, kb_ids: list[int] | None, provider: str,
    model: str | None, settings_changed: dict | None = None, label: str = "",
) -> Evaluation:  # fmt: skip
    """Start an evaluation of a set the user may read, over knowledge bases they may read (404
    otherwise), with a provider and settings; queue its first runs."""
    if provider not in provider_names():
        raise ServiceError(400, "invalid_provider", f"Unknown provider {provider!r}.")
    searched = kb_ids_readable(user=user, requested=kb_ids)
    if not searched:
        raise ServiceError(400, "invalid_knowledge_bases", "Name at least one knowledge base.")
    overrides = _overrides(settings_changed)
    questions = list(evaluation_set.questions.order_by("position"))
    with transaction.atomic():
        evaluation = Evaluation.objects.create(
            evaluation_set=evaluation_set,
            user=user,
            label=label[:200],
            kb_ids=searched,
            provider=provider,
            model=model or "",
            overrides=overrides,
            question_count=len(questions),
        )
        evaluation.knowledge_bases.set(searched)
        EvaluationItem.objects.bulk_create(
            EvaluationItem(evaluation=evaluation, question=question, position=question.position)
            for question in questions
        )
    return evaluation_advance(evaluation_id=evaluation.id)


def evaluation_advance(*, evaluation_id) -> Evaluation | None:
    """Score the evaluation's runs that ended, queue the next ones up to its window, and
    finish it when every question is scored. Safe to call any time, from any process."""
    with transaction.atomic():
        evaluation = Evaluation.objects.select_for_update().filter(id=evaluation_id).first()
        if evaluation is None or not evaluation.is_active:
            return evaluation
        _collect_ended(evaluation)
        _fill_window(evaluation)
        open_items = evaluation.items.exclude(status=EvaluationItem.Status.DONE)
        evaluation.done_count = evaluation.items.filter(status=EvaluationItem.Status.DONE).count()
        fields = ["done_count", "status", "metrics"]
        if not open_items.exists():
            evaluation.status = Evaluation.Status.SUCCEEDED
            evaluation.finished_at = timezone.now()
            fields.append("finished_at")
        elif evaluation.status == Evaluation.Status.QUEUED:
            evaluation.status = Evaluation.Status.RUNNING
            evaluation.started_at = timezone.now()
            fields.append("started_at")
        evaluation.metrics = evaluation_metrics(evaluation=evaluation)
        evaluation.save(update_fields=fields)
    return evaluation


def evaluation_metrics(*, evaluation: Evaluation) -> dict[str, Any]:
    """Return the metrics of the evaluation's questions scored so far."""
    scored = evaluation.items.filter(status=EvaluationItem.Status.DONE).order_by("position")
    return summarise([item.score for item in scored.only("score")])


def _collect_ended(evaluation: Evaluation) -> None:
    """Move each question whose run in flight ended on: a follow-up's earlier turn to its next
    turn, the question's own run to its score."""
    running = evaluation.items.filter(status=EvaluationItem.Status.RUNNING).select_related(
        "current_run", "question"
    )
    for item in running:
        run = item.current_run
        if run is not None and run.is_active:
            continue
        turns = item.question.gold.get("turns", [])
        if run is not None and item.turns_done < len(turns):
            if run.status == QueryRun.Status.SUCCEEDED:
                item.turns_done += 1
                item.conversation_id = run.conversation_id
                item.status = EvaluationItem.Status.PENDING
                item.current_run = None
                item.save(update_fields=["turns_done", "conversation", "status", "current_run"])
                continue
        # The question's own run ended (or an earlier turn failed, which fails the question).
        if run is not None:
            item.run = run
            item.score = run_score(question=item.question, run=run)
        else:
            item.score = {"kind": item.question.kind, "status": "missing", "verdict": ""}
        item.status = EvaluationItem.Status.DONE
        item.save(update_fields=["run", "score", "status"])


def _fill_window(evaluation: Evaluation) -> None:
    """Queue the next runs while fewer than EVALUATION_RUNS_IN_FLIGHT are in flight."""
    in_flight = evaluation.items.filter(status=EvaluationItem.Status.RUNNING).count()
    room = settings.EVALUATION_RUNS_IN_FLIGHT - in_flight
    if room <= 0:
        return
    waiting = evaluation.items.filter(status=EvaluationItem.Status.PENDING).select_related(
        "question", "conversation"
    )
    for item in waiting.order_by("position")[:room]:
        turns = item.question.gold.get("turns", [])
        asking = turns[item.turns_done] if item.turns_done < len(turns) else item.question.question
        run = run_services.run_create(
            user=evaluation.user,
            query=asking,
            provider_name=evaluation.provider,
            model=evaluation.model or None,
            kb_ids=list(evaluation.kb_ids),
            overrides=evaluation.overrides,
            conversation=item.conversation,
            start_conversation=bool(turns) and item.conversation is None,
            evaluation=evaluation,
        )
        item.current_run = run
        item.conversation_id = run.conversation_id
        item.status = EvaluationItem.Status.RUNNING
        item.save(update_fields=["current_run", "conversation", "status"])


def evaluation_cancel(*, evaluation: Evaluation) -> Evaluation:
    """Stop an evaluation: its queued runs end at once, a running one at its next check, and no
    other is queued. Idempotent; a finished evaluation answers 409."""
    with transaction.atomic():
        evaluation = Evaluation.objects.select_for_update().get(id=evaluation.id)
        if evaluation.status == Evaluation.Status.CANCELLED:
            return evaluation
        if not evaluation.is_active:
            raise ServiceError(409, "evaluation_finished", "The evaluation already finished.")
        # Cancelled first: from its commit on, no advance queues another of its runs.
        evaluation.status = Evaluation.Status.CANCELLED
        evaluation.finished_at = timezone.now()
        evaluation.save(update_fields=["status", "finished_at"])
    # Then its runs, each in its own transaction and outside the evaluation's lock: a run that
    # ended meanwhile (its worker finished it between the query and the cancel) is left as it
    # ended, instead of failing the whole cancel with its 409.
    for run in evaluation.runs.filter(status__in=QueryRun.ACTIVE_STATUSES):
        try:
            run_services.run_cancel(run=run)
        except ServiceError as exc:
            if exc.code != "run_finished":
                raise
    with transaction.atomic():
        evaluation = Evaluation.objects.select_for_update().get(id=evaluation.id)
        evaluation.items.exclude(status=EvaluationItem.Status.DONE).update(
            status=EvaluationItem.Status.CANCELLED
        )
        evaluation.metrics = evaluation_metrics(evaluation=evaluation)
        evaluation.save(update_fields=["metrics"])
    return evaluation


def evaluations_advance_active() -> int:
    """Advance every active evaluation (the periodic safety net); return how many."""
    active = list(
        Evaluation.objects.filter(status__in=Evaluation.ACTIVE_STATUSES).values_list(
            "id", flat=True
        )
    )
    for evaluation_id in active:
        evaluation_advance(evaluation_id=evaluation_id)
    return len(active)


def evaluation_run_inline(*, evaluation_id, on_progress=None) -> Evaluation:
    """Run an evaluation's runs in this process (`manage.py evaluate` with no worker): each
    queued run's job is withdrawn from the queue first, so no worker runs it twice; a run a
    worker already took is left to it. Return the evaluation once it has ended."""
    while True:
        evaluation = Evaluation.objects.get(id=evaluation_id)
        if not evaluation.is_active:
            return evaluation
        queued = evaluation.runs.filter(status=QueryRun.Status.QUEUED).order_by("created_at")
        ran = 0
        for run in list(queued):
            if run.job_id is None or jobs.job_cancel(run.job_id, abort=False):
                run_execute(run_id=run.id)
                ran += 1
        evaluation = evaluation_advance(evaluation_id=evaluation_id)
        if on_progress is not None:
            on_progress(evaluation)
        if not ran and evaluation.is_active:
            time.sleep(0.2)  # the runs in flight are a worker's: wait for them
