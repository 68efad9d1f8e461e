"""An evaluation set built from a conversation the user may read: each question that was
answered becomes an item, the answer given as its expected answer (queries/evaluation/feedback.py
`answer_record`), so that a later change of settings is measured against what was said then."""

from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings

from adrag_site.errors import ServiceError
from knowledge.selectors import kb_ids_for_user
from queries.evaluation.feedback import answer_record
from queries.evaluation.services import evaluation_set_create
from queries.evaluation.sets import ParsedQuestion, question_parse
from queries.models import Conversation, EvaluationSet, QueryRun
from queries.selectors import conversation_runs


def _readable_runs(*, conversation: Conversation, user) -> Iterator[QueryRun]:
    """Yield the conversation's runs in order, as far as the user may read their answers: all
    for its owner and staff; for a member of the team it is shared with, the turns before the
    first that searched a knowledge base they cannot read (its shared page withholds that one
    and every later turn, read with it)."""
    whole = user.is_staff or conversation.user_id == user.id
    readable = None if whole else set(kb_ids_for_user(user=user))
    for run in conversation_runs(conversation=conversation):
        if readable is not None and not set(run.kb_ids or []) <= readable:
            return
        yield run


def conversation_questions(*, conversation: Conversation, user) -> list[ParsedQuestion]:
    """Return one item per distinct question of the conversation that finished: its standalone
    form where the run has one, the answer as the expected answer."""
    questions: list[ParsedQuestion] = []
    seen: set[str] = set()
    for run in _readable_runs(conversation=conversation, user=user):
        if run.status != QueryRun.Status.SUCCEEDED:
            continue
        question = (run.standalone_query or run.query).strip()
        if len(question) > settings.MAX_QUERY_CHARS:
            question = run.query.strip()
        if not question or question.lower() in seen:
            continue
        seen.add(question.lower())
        record = answer_record(
            question=question,
            answer=run.answer,
            sources=run.sources or [],
            values=(run.metadata or {}).get("answer_values"),
        )
        if record is None:
            continue
        try:
            parsed = question_parse({**record, "id": str(run.id)}, position=len(questions) + 1)
        except ValueError:
            continue  # a question longer than a run may ask: nothing to measure with it
        questions.append(parsed)
    return questions


def evaluation_set_from_conversation(
    *, user, conversation: Conversation, name: str = "", team=None
) -> EvaluationSet:
    """Record a set of a conversation's answered questions; 400 when none finished."""
    questions = conversation_questions(conversation=conversation, user=user)
    if not questions:
        raise ServiceError(
            400,
            "no_finished_runs",
            "The conversation has no answered question to take (runs that failed, were "
            "cancelled or are still running are left out).",
        )
    if len(questions) > settings.EVALUATION_MAX_QUESTIONS:
        raise ServiceError(
            400,
            "invalid_evaluation_set",
            f"The conversation has {len(questions)} questions; the limit is "
            f"{settings.EVALUATION_MAX_QUESTIONS}.",
        )
    title = conversation.title or f"Conversation of {conversation.created_at:%Y-%m-%d}"
    return evaluation_set_create(
        user=user,
        name=(name or title)[:200],
        questions=questions,
        team=team,
        source=EvaluationSet.Source.CONVERSATION,
        description=f"From the conversation “{title}” ({conversation.id}).",
    )
