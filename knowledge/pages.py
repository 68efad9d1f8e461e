"""The knowledge-base manager and the document viewer (shells that static JavaScript fills
from the API)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import Group
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from knowledge import selectors


@login_required
def knowledge_view(request: HttpRequest) -> HttpResponse:
    """Render the knowledge-base manager with the teams the user may share with."""
    teams = Group.objects.all() if request.user.is_staff else request.user.groups.all()
    return render(request, "knowledge.html", {"nav": "knowledge", "teams": teams.order_by("name")})


@login_required
def document_view(request: HttpRequest, document_id: int) -> HttpResponse:
    """A document opened at a cited passage (?chunk=<id>): a PDF at its page with the
    passage highlighted (pdf.js), any other file as its passages with the cited one marked."""
    document = selectors.document_get_for_user(document_id=document_id, user=request.user)
    chunk = request.GET.get("chunk", "")
    page = request.GET.get("page", "")
    return render(
        request,
        "document_view.html",
        {
            "nav": "knowledge",
            "document": document,
            "chunk": chunk if chunk.isdigit() else "",
            "page": page if page.isdigit() else "",
        },
    )
