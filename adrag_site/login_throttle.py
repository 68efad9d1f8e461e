"""Login throttling (django-axes): the answer a locked-out sign-in gets.

Axes counts failed sign-ins per username and client address, on the portal's login form and
the admin's alike; past LOGIN_FAILURE_LIMIT failures it refuses that pair until
LOGIN_COOLOFF_MINUTES have passed since the last failure. Its own lockout page says neither
when to come back nor sends `Retry-After`; this one does both, with 429.
"""

from __future__ import annotations

import math
from datetime import datetime

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone


def _locked_until(request: HttpRequest, credentials: dict | None) -> datetime:
    from axes.helpers import get_client_username, get_cool_off
    from axes.models import AccessAttempt

    cool_off = get_cool_off(request)
    now = timezone.now()
    last_failure = (
        AccessAttempt.objects.filter(
            username=get_client_username(request, credentials),
            ip_address=getattr(request, "axes_ip_address", None),
        )
        .order_by("-attempt_time")
        .values_list("attempt_time", flat=True)
        .first()
    )
    return (last_failure or now) + cool_off


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    """Answer 429 with a page saying when sign-in may be tried again, and `Retry-After`."""
    retry_at = _locked_until(request, credentials)
    seconds = max(1, math.ceil((retry_at - timezone.now()).total_seconds()))
    response = render(
        request,
        "registration/locked_out.html",
        {"retry_at": retry_at, "retry_minutes": math.ceil(seconds / 60)},
        status=429,
    )
    response["Retry-After"] = str(seconds)
    return response
