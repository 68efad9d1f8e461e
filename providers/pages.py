"""The providers page, where a user picks a default provider and model."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


@login_required
def providers_view(request: HttpRequest) -> HttpResponse:
    """Render the providers page, where the user picks a default provider and model."""
    return render(request, "providers.html", {"nav": "providers"})
