"""Reads of query runs, scoped to who may see them: the run's owner, or staff."""

from __future__ import annotations

import uuid

from django.db.models import Q, QuerySet
from django.http import Http404

from queries.models import QueryRun


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
