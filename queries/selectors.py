"""Reads of query runs and conversations, scoped to who may see them: the owner, or staff."""

from __future__ import annotations

import uuid

from django.db.models import Count, Q, QuerySet
from django.http import Http404

from queries.models import Conversation, QueryRun


def run_list_for_user(*, user) -> QuerySet[QueryRun]:
    """Return the runs the user may see."""
    if not user or not user.is_authenticated:
        return QueryRun.objects.none()
    if user.is_staff:
        return QueryRun.objects.all()
    return QueryRun.objects.filter(user=user)


def run_can_read(*, run_id, user) -> bool:
    """Tell whether the user may read the run."""
    try:
        run_id = uuid.UUID(str(run_id))
    except ValueError:
        return False
    return run_list_for_user(user=user).filter(id=run_id).exists()


def run_get_for_user(*, run_id, user) -> QueryRun:
    """Return a run the user may see, or raise Http404."""
    try:
        run_id = uuid.UUID(str(run_id))
    except ValueError:
        raise Http404("No such run.") from None
    run = run_list_for_user(user=user).filter(id=run_id).select_related("user").first()
    if run is None:
        raise Http404("No such run.")
    return run


def run_search(
    *, user, status=None, provider=None, since=None, until=None, text=None
) -> QuerySet[QueryRun]:
    """Return the user's runs filtered by status, provider, date range and text."""
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
    return runs.order_by("-created_at")


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


def conversation_runs(*, conversation: Conversation) -> QuerySet[QueryRun]:
    """Return a conversation's runs in the order they were asked."""
    return conversation.runs.order_by("created_at")
