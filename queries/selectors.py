"""Reads of query runs and conversations, scoped to who may see them: the owner, or staff; and
the passage search of POST /api/search and the MCP `search` tool.

A run an evaluation queued is read, besides, by whoever may see that evaluation (its set's
team, when they read every knowledge base it searched): they open, replay and compare it, and
only its owner and staff act on it (cancel, re-run, rate). Anyone else gets the 404 of a run
that does not exist.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404

from adrag_site.errors import ServiceError
from knowledge.retrieval.fusion import aggregate
from knowledge.retrieval.hybrid import search_stores
from knowledge.selectors import kb_ids_readable
from queries.evaluation.selectors import evaluation_list_for_user
from queries.filters import filters_validate
from queries.models import Conversation, QueryRun, RunFeedback

# What a caller does with a run: read it (open, replay, compare), or act on it as its owner
# (cancel, re-run, rate).
READ, ACT = "read", "act"


def run_list_for_user(*, user) -> QuerySet[QueryRun]:
    """Return the user's own runs (staff: everyone's): their history."""
    if not user or not user.is_authenticated:
        return QueryRun.objects.none()
    if user.is_staff:
        return QueryRun.objects.all()
    return QueryRun.objects.filter(user=user)


def run_list_readable(*, user) -> QuerySet[QueryRun]:
    """Return the runs the user may read: their own (staff: all), and the runs of the
    evaluations they may see."""
    if not user or not user.is_authenticated or user.is_staff:
        return run_list_for_user(user=user)
    evaluations = evaluation_list_for_user(user=user).values("id")
    return QueryRun.objects.filter(Q(user=user) | Q(evaluation__in=evaluations))


def run_get_for_user(*, run_id, user, level: str = READ) -> QueryRun:
    """Return a run the user may act on at `level`.

    Raises Http404 when the user may not even read it (exactly as for a missing run), and
    ServiceError 403 when they read it (an evaluation's run) but may not act on it.
    """
    try:
        run_id = uuid.UUID(str(run_id))
    except ValueError:
        raise Http404("No such run.") from None
    run = run_list_readable(user=user).filter(id=run_id).select_related("user").first()
    if run is None:
        raise Http404("No such run.")
    if level == ACT and not (user.is_staff or run.user_id == user.id):
        raise ServiceError(
            403, "permission_denied", "Only the run's owner or staff may change or re-run it."
        )
    return run


def run_search(
    *, user, status=None, provider=None, since=None, until=None, text=None, feedback=None
) -> QuerySet[QueryRun]:
    """Return the user's runs filtered by status, provider, date range, text and feedback."""
    runs = run_list_for_user(user=user).select_related("user")
    if status:
        runs = runs.filter(status__in=status.split(","))
    if provider:
        runs = runs.filter(provider=provider)
    if since:
        runs = runs.filter(created_at__gte=since)
    if until:
        runs = runs.filter(created_at__lt=until)
    if text:
        runs = runs.filter(Q(query__icontains=text) | Q(answer__icontains=text))
    if feedback:
        runs = runs.filter(feedback_filter(feedback))
    runs = runs.annotate(
        feedback_up=_rating_count(RunFeedback.Rating.UP),
        feedback_down=_rating_count(RunFeedback.Rating.DOWN),
    )
    return runs.order_by("-created_at")


def _rating_count(rating: str) -> Coalesce:
    ratings = (
        RunFeedback.objects.filter(run=OuterRef("pk"), rating=rating)
        .order_by()
        .values("run")
        .annotate(n=Count("id"))
        .values("n")[:1]
    )
    return Coalesce(Subquery(ratings), 0)


# ?feedback= on the history: a rating anyone gave the run, any rating, or none.
FEEDBACK_FILTERS = ("up", "down", "any", "none")


def feedback_filter(value: str) -> Q:
    """Return the condition on runs for a `feedback` filter value (one of FEEDBACK_FILTERS)."""
    rated = RunFeedback.objects.filter(run=OuterRef("pk"))
    if value in (RunFeedback.Rating.UP, RunFeedback.Rating.DOWN):
        return Q(Exists(rated.filter(rating=value)))
    if value == "any":
        return Q(Exists(rated))
    return ~Q(Exists(rated))


def feedback_summary(*, run: QueryRun, user) -> dict:
    """Return the user's own rating of a run and the counts of every rating it has."""
    counts = {
        row["rating"]: row["n"]
        for row in RunFeedback.objects.filter(run=run)
        .order_by()
        .values("rating")
        .annotate(n=Count("id"))
    }
    mine = RunFeedback.objects.filter(run=run, user=user).first()
    return {
        "mine": feedback_output(mine) if mine else None,
        "up": counts.get(RunFeedback.Rating.UP, 0),
        "down": counts.get(RunFeedback.Rating.DOWN, 0),
    }


def feedback_output(feedback: RunFeedback) -> dict:
    return {
        "rating": feedback.rating,
        "comment": feedback.comment,
        "created_at": feedback.created_at,
        "updated_at": feedback.updated_at,
    }


def feedback_export_rows(*, user, rating: str | None = None) -> Iterator[dict]:
    """Yield one record per rating the user may export, newest first: staff every rating,
    anyone else their own ratings of their own runs (as the run's page shows only one's own).

    Each record holds what an evaluation set needs: the question (and its standalone form),
    the answer, its sources, the rating and comment, who rated, and the run's id and time.
    """
    ratings = RunFeedback.objects.filter(
        run__in=run_list_for_user(user=user).values("id")
    ).select_related("run", "user")
    if not user.is_staff:
        ratings = ratings.filter(user=user)
    if rating:
        ratings = ratings.filter(rating=rating)
    for feedback in ratings.order_by("-updated_at", "-id").iterator(chunk_size=200):
        run = feedback.run
        yield {
            "run_id": str(run.id),
            "created_at": run.created_at.isoformat(),
            "question": run.query,
            "standalone_query": run.standalone_query or run.query,
            "answer": run.answer,
            "sources": run.sources,
            "rating": feedback.rating,
            "comment": feedback.comment,
            "rated_by": feedback.user.get_username(),
            "rated_at": feedback.updated_at.isoformat(),
            "provider": run.provider,
            "model": run.model,
        }


def _conversation_id(value) -> uuid.UUID:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise Http404("No such conversation.") from None


def conversation_list_for_user(*, user, username: str | None = None) -> QuerySet[Conversation]:
    """Return the user's own conversations (staff: another user's by `username`), most recently
    used first, with their run counts."""
    if not user or not user.is_authenticated:
        return Conversation.objects.none()
    owner = Q(user__username=username) if username and user.is_staff else Q(user=user)
    return (
        Conversation.objects.filter(owner)
        .select_related("user")
        .annotate(run_count=Count("runs"))
        .order_by("-updated_at")
    )


def conversation_get_for_user(*, conversation_id, user, own: bool = False) -> Conversation:
    """Return a conversation the user may read (their own; staff: any), or raise Http404.

    `own` narrows it to the user's own conversations: the ones a new run may join.
    """
    conversation_id = _conversation_id(conversation_id)
    conversations = Conversation.objects.select_related("user")
    if not user or not user.is_authenticated:
        raise Http404("No such conversation.")
    if own or not user.is_staff:
        conversations = conversations.filter(user=user)
    conversation = conversations.filter(id=conversation_id).first()
    if conversation is None:
        raise Http404("No such conversation.")
    return conversation


def conversation_get_shared(*, conversation_id, user) -> Conversation:
    """Return a conversation the user may open read-only, or raise Http404: their own, one
    shared with a team they are in, or any (staff).

    A conversation shared with another team answers as one that does not exist.
    """
    conversation_id = _conversation_id(conversation_id)
    if not user or not user.is_authenticated:
        raise Http404("No such conversation.")
    conversations = Conversation.objects.select_related("user", "shared_with")
    if not user.is_staff:
        conversations = conversations.filter(
            Q(user=user) | Q(shared_with__in=user.groups.values("id"))
        )
    conversation = conversations.filter(id=conversation_id).first()
    if conversation is None:
        raise Http404("No such conversation.")
    return conversation


def conversation_runs(*, conversation: Conversation) -> QuerySet[QueryRun]:
    """Return a conversation's runs in the order they were asked."""
    return conversation.runs.order_by("created_at")


def run_related(*, run: QueryRun, user, limit: int = 30) -> list[QueryRun]:
    """Return the runs to compare a run with: its original, its re-runs, and other runs of the
    same question, that the user may see, newest first."""
    from django.db.models import Q

    return list(
        run_list_for_user(user=user)
        .filter(Q(id=run.rerun_of_id) | Q(rerun_of=run) | Q(query=run.query))
        .exclude(id=run.id)
        .order_by("-created_at")[:limit]
    )


def passage_link(base: str, document_id: int | None, chunk_id: int | None, page) -> str:
    """Return the address that opens a passage in the portal's document viewer."""
    if not document_id or not chunk_id:
        return ""
    return f"{base}/documents/{document_id}/?chunk={chunk_id}" + (f"&page={page}" if page else "")


def passages_search(
    *, user, query: str, kb_ids: list[int] | None, filters: Any, k: int, base: str
) -> dict[str, Any]:
    """Return the k best passages of a hybrid search (the stores fused by rank, as the
    pipeline's aggregator orders them) over the knowledge bases the user names and may read.

    Raises ServiceError 400 for a query over MAX_QUERY_CHARS or bad filters, and 404 for a
    knowledge base or document the user may not read, exactly as for a missing one.
    """
    if len(query) > settings.MAX_QUERY_CHARS:
        raise ServiceError(
            400,
            "query_too_long",
            f"'query' is too long: the limit is {settings.MAX_QUERY_CHARS} characters.",
        )
    searched = kb_ids_readable(user=user, requested=kb_ids)
    document_filter = filters_validate(raw=filters, user=user, kb_ids=searched)
    result = search_stores(
        kb_ids=searched,
        query=query,
        top_k=max(k, settings.RETRIEVAL_TOP_K),
        filters=document_filter,
    )
    hits = [hit for hit in aggregate(lists=result.hits).hits if hit.chunk_id][:k]
    return {
        "knowledge_bases": searched,
        "passages": [
            {
                "chunk_id": hit.chunk_id,
                "document_id": hit.document_id,
                "knowledge_base_id": hit.knowledge_base_id,
                "file_name": hit.file_name,
                "page": hit.page,
                "section": list(hit.section),
                "kind": hit.kind,
                "text": hit.text,
                "score": round(hit.fusion_score, 6),
                "found_by": list(hit.found_by),
                "link": passage_link(base, hit.document_id, hit.chunk_id, hit.page),
            }
            for hit in hits
        ],
    }
