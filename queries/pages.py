"""The run pages: chat (ask and watch a run live), history, and one run's replay."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

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
