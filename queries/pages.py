"""The run pages: chat (ask and watch a run live), history, and one run's replay."""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from knowledge.retrieval.stores import store_names
from knowledge.selectors import teams_for_user
from queries.compare import run_compare
from queries.export import shared_conversation_export
from queries.models import QueryRun
from queries.pipeline import stages
from queries.selectors import conversation_get_shared, run_get_for_user, run_related

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
    teams = teams_for_user(user=request.user).order_by("name")
    return render(request, "chat.html", {"nav": "chat", "stages": _tracker_rows(), "teams": teams})


@login_required
def history_view(request: HttpRequest) -> HttpResponse:
    """Render the run history with its search and filters."""
    return render(request, "history.html", {"nav": "history", "statuses": QueryRun.Status.choices})


@login_required
def run_replay_view(request: HttpRequest, run_id) -> HttpResponse:
    """Render one run for inspection and replay; 404 for a run the user may not see."""
    run = run_get_for_user(run_id=run_id, user=request.user)
    # An evaluation's run a teammate reads: no rating, re-run or conversation link for them.
    can_act = request.user.is_staff or run.user_id == request.user.id
    return render(
        request,
        "run_detail.html",
        {"nav": "history", "run": run, "stages": _tracker_rows(), "can_act": can_act},
    )


@login_required
def shared_conversation_view(request: HttpRequest, conversation_id) -> HttpResponse:
    """Render a conversation read-only for its owner, a member of the team it is shared with,
    or staff; 404 for anyone else."""
    conversation = conversation_get_shared(conversation_id=conversation_id, user=request.user)
    export = shared_conversation_export(conversation=conversation, user=request.user)
    return render(
        request,
        "shared_conversation.html",
        {
            "nav": "history",
            "conversation": export,
            "owner": conversation.user_id == request.user.id,
        },
    )


# The compare page's stage sections, in pipeline order, with what each shows.
COMPARE_SECTIONS = (
    ("planner", "Planner", "What the planner decided"),
    ("retrieval", "Hybrid retrieval", "Each store's hits, best first"),
    ("external_tools", "Web search", "Only when the plan asks for it"),
    ("aggregator", "Aggregate", "The candidates in fused order"),
    ("reranker", "Rerank", "The passages kept, with their scores"),
    ("compressor", "Compress", "The context given to the answer"),
    ("answer", "Answer", "Word by word: removed from A, added in B"),
    ("citations", "Citations", "The sources the answer cites"),
    ("reflection", "Reflection", "Grounding check"),
)


def _shown(value) -> str:
    """Show a configuration value: text as it is, anything else as JSON; none as a dash."""
    if value is None:
        return "—"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _signed(value, unit: str) -> str:
    if value is None:
        return "—"
    if not value:
        return "0" + unit
    text = f"{value:,.1f}".rstrip("0").rstrip(".") if isinstance(value, float) else f"{value:,}"
    return ("+" if value > 0 else "") + text + unit


def _hit_rows(diff: dict | None, hits: dict, side: str) -> list[dict] | None:
    """Return one side of a ranked comparison, best first, each hit labelled and marked."""
    if diff is None:
        return None
    rows = []
    for item in diff["in_both"]:
        rank = item["rank_a"] if side == "a" else item["rank_b"]
        rows.append({"key": item["key"], "rank": rank, "state": "both", "moved": item["moved"]})
    for item in diff["only_a" if side == "a" else "only_b"]:
        rows.append({"key": item["key"], "rank": item["rank"], "state": "only", "moved": 0})
    rows.sort(key=lambda row: row["rank"])
    for row in rows:
        row.update(hits.get(row["key"], {}))
    return rows


def _compare_context(result: dict) -> dict:
    """Shape a comparison for the template: labelled hit columns, rows side by side."""
    hits = result["hits"]
    stage_data = result["stages"]
    stores = stage_data["retrieval"].get("stores")
    retrieval_columns = None
    if stores is not None:
        retrieval_columns = [
            {
                "store": store,
                "diff": diff,
                "a": _hit_rows(diff, hits, "a"),
                "b": _hit_rows(diff, hits, "b"),
            }
            for store, diff in stores.items()
        ]
    retrieval = stage_data["retrieval"]
    # Runs logged without hit ids: each store's counts only.
    count_rows = [
        {
            "store": name,
            "a": retrieval["a"].get(f"{name}_count"),
            "b": retrieval["b"].get(f"{name}_count"),
        }
        for name in store_names()
    ]
    ranked = stage_data["aggregator"].get("ranked")
    fused = {"a": _hit_rows(ranked, hits, "a"), "b": _hit_rows(ranked, hits, "b")}
    passages = [
        {**entry, **hits.get(entry["key"], {})}
        for entry in (stage_data["reranker"].get("passages") or [])
    ]
    sections = [
        {"id": key, "label": label, "hint": hint, "data": stage_data[key]}
        for key, label, hint in COMPARE_SECTIONS
    ]
    config_rows = [
        {"key": change["key"], "a": _shown(change["a"]), "b": _shown(change["b"])}
        for change in result["config"]["changed"]
    ]
    for row in result["timings"]["stages"] + result["timings"]["run"]:
        row["delta_text"] = _signed(row["delta"], " ms")
    for row in result["tokens"]["stages"]:
        row["delta_text"] = _signed(row["delta"], "")
    return {
        "cmp": result,
        "config_rows": config_rows,
        "tokens_delta": _signed(result["tokens"]["delta"], ""),
        "sections": sections,
        "retrieval_columns": retrieval_columns,
        "count_rows": count_rows,
        "fused": fused,
        "passages": passages,
    }


@login_required
def compare_view(request: HttpRequest) -> HttpResponse:
    """Render two runs side by side, stage by stage; pick the second run when only one is given."""
    a_id, b_id = request.GET.get("a", "").strip(), request.GET.get("b", "").strip()
    if not a_id:
        raise Http404("Name a run to compare: ?a=<run id>.")
    run_a = run_get_for_user(run_id=a_id, user=request.user)
    if not b_id:
        related = run_related(run=run_a, user=request.user)
        return render(
            request,
            "compare.html",
            {"nav": "history", "run_a": run_a, "choices": related, "choosing": True},
        )
    run_b = run_get_for_user(run_id=b_id, user=request.user)
    context = {"nav": "history", "run_a": run_a, "run_b": run_b, "choosing": False}
    context["active"] = run_a.is_active or run_b.is_active
    context.update(_compare_context(run_compare(a=run_a, b=run_b, user=request.user)))
    return render(request, "compare.html", context)
