"""The knowledge-base manager page (a shell that static JavaScript fills from the API)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import Group
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


@login_required
def knowledge_view(request: HttpRequest) -> HttpResponse:
    """Render the knowledge-base manager with the teams the user may share with."""
    teams = Group.objects.all() if request.user.is_staff else request.user.groups.all()
    return render(request, "knowledge.html", {"nav": "knowledge", "teams": teams.order_by("name")})
