"""The portal's pages: thin views rendering shells that static JavaScript fills from the API."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import Group
from django.contrib.staticfiles.views import serve as staticfiles_serve
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.templatetags.static import static

from queries.models import QueryRun
from queries.pipeline import stages
from queries.selectors import run_get_for_user

# The tracker's rows, in pipeline order; the ids are the wire contract (queries.pipeline.stages).
STAGE_LABELS = {
    stages.PLANNER: ("Planner", "Decides whether to search and how"),
    stages.RETRIEVAL: ("Hybrid retrieval", "Vector, BM25 and entity graph"),
    stages.EXTERNAL_TOOLS: ("Web search", "Only when the plan asks for it"),
    stages.AGGREGATOR: ("Aggregate", "Merge and de-duplicate"),
    # The worker's reranker (a cross-encoder or its fallback) is named when the stage completes.
    stages.RERANKER: ("Rerank", "Scores each passage against the question"),
    stages.COMPRESSOR: ("Compress", "Only above the context limit"),
    stages.REASONING: ("Reasoning", "Cited answer"),
    stages.REFLECTION: ("Reflection", "Grounding check"),
}


def _tracker_rows() -> list[dict[str, str]]:
    return [
        {"id": stage, "label": STAGE_LABELS[stage][0], "hint": STAGE_LABELS[stage][1]}
        for stage in stages.STAGES
    ]


@login_required
def chat_view(request: HttpRequest) -> HttpResponse:
    """Render the chat: question, knowledge-base and provider pickers, live tracker, answer."""
    return render(request, "chat.html", {"nav": "chat", "stages": _tracker_rows()})


@login_required
def knowledge_view(request: HttpRequest) -> HttpResponse:
    """Render the knowledge-base manager with the teams the user may share with."""
    teams = Group.objects.all() if request.user.is_staff else request.user.groups.all()
    return render(request, "knowledge.html", {"nav": "knowledge", "teams": teams.order_by("name")})


@login_required
def providers_view(request: HttpRequest) -> HttpResponse:
    """Render the providers page, where the user picks a default provider and model."""
    return render(request, "providers.html", {"nav": "providers"})


@login_required
def history_view(request: HttpRequest) -> HttpResponse:
    """Render the run history with its search and filters."""
    return render(request, "history.html", {"nav": "history", "statuses": QueryRun.Status.choices})


@login_required
def run_replay_view(request: HttpRequest, run_id) -> HttpResponse:
    """Render one run for inspection and replay; 404 for a run the user may not see."""
    run = run_get_for_user(run_id=run_id, user=request.user)
    return render(
        request, "run_detail.html", {"nav": "history", "run": run, "stages": _tracker_rows()}
    )


def static_file(request: HttpRequest, path: str) -> HttpResponse:
    """Serve the portal's own CSS and JavaScript from the app's static folders.

    uvicorn serves no static files and DEBUG is off in production; the portal's assets are a
    few small files, so the web process serves them itself rather than needing a second
    server. A CDN or proxy in front can take this over through STATIC_URL.
    """
    response = staticfiles_serve(request, path, insecure=True)
    response["Cache-Control"] = "no-cache"
    return response


def favicon_view(request: HttpRequest) -> HttpResponse:
    """Send /favicon.ico, which browsers ask for on pages without an icon link, to the SVG icon."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))
