"""The evaluation pages: sets and evaluations (`/evaluations/`), one evaluation with its plots
and per-question table, and two evaluations compared. Forms post here and come back (no script
needed); a small script only refreshes a running evaluation's page."""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from adrag_site.errors import ServiceError
from knowledge.selectors import kb_list_for_user, team_get_for_user, teams_for_user
from providers.llm.registry import default_provider_name, provider_names
from queries.evaluation import plots, selectors, services
from queries.evaluation.conversation import evaluation_set_from_conversation
from queries.evaluation.feedback import evaluation_set_from_feedback
from queries.evaluation.metrics import HEADLINE
from queries.models import EvaluationItem
from queries.pipeline.config import RERUN_RANGES, PipelineConfig
from queries.selectors import conversation_get_shared, conversation_list_for_user

# The conversations the "new set" form offers, most recent first.
RECENT_CONVERSATIONS = 30
# The settings the start form offers (a re-run's integer tunables), with their defaults.
FORM_SETTINGS = tuple(RERUN_RANGES)


def form_context(request: HttpRequest) -> dict[str, Any]:
    defaults = PipelineConfig.from_settings()
    return {
        "nav": "evaluations",
        "sets": selectors.evaluation_set_list_for_user(user=request.user),
        "kbs": kb_list_for_user(user=request.user).order_by("name"),
        "teams": teams_for_user(user=request.user).order_by("name"),
        "providers": provider_names(),
        "default_provider": default_provider_name(),
        "setting_fields": [
            {"name": name, "default": getattr(defaults, name), "range": RERUN_RANGES[name]}
            for name in FORM_SETTINGS
        ],
        # The conversations a set may be built from: the user's own, most recent first.
        "conversations": conversation_list_for_user(user=request.user)[:RECENT_CONVERSATIONS],
        "start_kbs": [],
        "start_overrides": {},
    }


def _headline_cells(metrics: dict) -> list[dict]:
    headline = (metrics or {}).get("headline") or {}
    return [{"key": key, "label": label, "value": headline.get(key)} for key, label in HEADLINE]


@login_required
def evaluations_view(request: HttpRequest) -> HttpResponse:
    """Render the sets and evaluations; take the upload, build-from-feedback, build-from-a-
    conversation and start forms."""
    context = form_context(request)
    if request.method == "POST":
        try:
            return _post_action(request)
        except (ServiceError, Http404) as error:
            context["form_error"] = getattr(error, "message", str(error)) or "Not found."
            context["line_errors"] = (
                getattr(error, "extra", {}).get("details", {}).get("errors", [])
            )
            context["posted"] = request.POST
    evaluations = list(selectors.evaluation_list_for_user(user=request.user)[:100])
    context["evaluations"] = [
        {"evaluation": evaluation, "headline": _headline_cells(evaluation.metrics)}
        for evaluation in evaluations
    ]
    context["headline_labels"] = [label for _, label in HEADLINE[:4]]
    status = 400 if context.get("form_error") else 200
    return render(request, "evaluations.html", context, status=status)


def _post_action(request: HttpRequest) -> HttpResponse:
    action = request.POST.get("action")
    user = request.user
    if action in ("upload", "feedback", "conversation"):
        team = team_get_for_user(value=request.POST.get("team") or None, user=user)
        name = (request.POST.get("name") or "").strip()[:200]
        if action == "feedback":
            created = evaluation_set_from_feedback(
                user=user, name=name or "Rated answers", team=team
            )
        elif action == "conversation":
            conversation = conversation_get_shared(
                conversation_id=request.POST.get("conversation"), user=user
            )
            created = evaluation_set_from_conversation(
                user=user, conversation=conversation, name=name, team=team
            )
        else:
            upload = request.FILES.get("file")
            if upload is None:
                raise ServiceError(400, "no_file", "Choose a CSV or JSON Lines file to upload.")
            created = services.evaluation_set_upload(
                user=user,
                name=name,
                data=upload.read(),
                file_name=upload.name or "set.jsonl",
                team=team,
            )
        messages.success(
            request, f"Set “{created.name}” saved: {created.question_count} questions."
        )
        return redirect("evaluations")
    if action == "start":
        evaluation = _start_from_form(request)
        return redirect("evaluation-page", evaluation_id=evaluation.id)
    raise ServiceError(400, "invalid_request", "Unknown action.")


def _form_settings(post) -> dict[str, Any]:
    """Return the settings a start form changes: the numbers filled in, the reranker off."""
    changed: dict[str, Any] = {}
    for name in FORM_SETTINGS:
        value = (post.get(name) or "").strip()
        if value:
            if not value.lstrip("-").isdigit():
                raise ServiceError(400, "invalid_override", f"{name}: must be a whole number.")
            changed[name] = int(value)
    if post.get("reranker_off"):
        changed["reranker"] = False
    return changed


def _start_from_form(request: HttpRequest):
    post = request.POST
    evaluation_set = selectors.evaluation_set_get_for_user(
        set_id=post.get("evaluation_set"), user=request.user
    )
    kb_ids = [int(value) for value in post.getlist("knowledge_bases") if value.isdigit()]
    provider = (post.get("provider") or default_provider_name()).strip().lower()
    return services.evaluation_start(
        user=request.user,
        evaluation_set=evaluation_set,
        kb_ids=kb_ids,
        provider=provider,
        model=(post.get("model") or "").strip() or None,
        settings_changed=_form_settings(post),
        label=(post.get("label") or "").strip(),
    )


@login_required
def evaluation_view(request: HttpRequest, evaluation_id: int) -> HttpResponse:
    """Render one evaluation: progress, plots, the per-question table, run it again changed."""
    evaluation = selectors.evaluation_get_for_user(evaluation_id=evaluation_id, user=request.user)
    metrics = evaluation.metrics or {}
    scored = list(
        evaluation.items.filter(status=EvaluationItem.Status.DONE).values_list("score", flat=True)
    )
    others = (
        selectors.evaluation_list_for_user(user=request.user)
        .filter(evaluation_set=evaluation.evaluation_set)
        .exclude(id=evaluation.id)
    )
    context = form_context(request)
    context.update(
        {
            "evaluation": evaluation,
            "progress": selectors.evaluation_progress(evaluation=evaluation),
            "headline": _headline_cells(metrics),
            "metrics": metrics,
            "rows": selectors.evaluation_rows(evaluation=evaluation),
            "metric_plot": plots.metric_bars(
                [(f"#{evaluation.id}", metrics.get("headline") or {})]
            ),
            "latency_plot": plots.latency_strips(scored, metrics.get("latency_ms") or {}),
            "verdict_plots": _verdict_plots(metrics),
            "others": others[:50],
            "kb_ids": list(evaluation.kb_ids),
            "overrides": evaluation.overrides or {},
            "can_cancel": request.user.is_staff or evaluation.user_id == request.user.id,
            "kb_names": list(evaluation.knowledge_bases.values_list("name", flat=True)),
            "wall_seconds": _wall_seconds(evaluation),
        }
    )
    return render(request, "evaluation_detail.html", context)


def _wall_seconds(evaluation) -> float | None:
    if evaluation.started_at and evaluation.finished_at:
        return round((evaluation.finished_at - evaluation.started_at).total_seconds(), 1)
    return None


def _verdict_plots(metrics: dict) -> list[dict]:
    verdicts = (metrics or {}).get("verdicts") or {}
    return [
        {"group": group, "plot": plots.verdict_bar(counts, f"plot-verdicts-{group}")}
        for group, counts in verdicts.items()
        if sum(counts.values())
    ]


@login_required
@require_POST
def evaluation_cancel_view(request: HttpRequest, evaluation_id: int) -> HttpResponse:
    """Cancel an evaluation from its page."""
    evaluation = selectors.evaluation_get_for_user(
        evaluation_id=evaluation_id, user=request.user, manage=True
    )
    try:
        services.evaluation_cancel(evaluation=evaluation)
        messages.success(request, "Evaluation cancelled: none of its runs is left queued.")
    except ServiceError as error:
        messages.error(request, error.message)
    return redirect("evaluation-page", evaluation_id=evaluation.id)


def settings_parts(overrides: dict | None) -> list[str]:
    """Return the settings an evaluation changed in words: "rerank_top_k 1", "reranker off"."""
    parts = []
    for key, value in (overrides or {}).items():
        if key == "reranker":
            parts.append("reranker " + ("on" if value else "off"))
        elif isinstance(value, dict):
            parts.extend(f"{key} {name} {weight}" for name, weight in value.items())
        else:
            parts.append(f"{key} {value}")
    return parts


def evaluation_caption(evaluation) -> str:
    """Return how the compare page names an evaluation: its label, provider (model) and the
    settings it changed, leaving out the settings its label already says."""
    label = evaluation.label.strip()
    provider = evaluation.provider + (f" ({evaluation.model})" if evaluation.model else "")
    changed = [
        part
        for part in settings_parts(evaluation.overrides)
        if not re.search(rf"(?<!\w){re.escape(part)}(?!\w)", label, re.IGNORECASE)
    ]
    return " · ".join(part for part in (label, provider, ", ".join(changed)) if part)


@login_required
def evaluation_compare_view(request: HttpRequest) -> HttpResponse:
    """Render two evaluations compared: metric deltas and the questions that changed."""
    a = selectors.evaluation_get_for_user(evaluation_id=request.GET.get("a"), user=request.user)
    b = selectors.evaluation_get_for_user(evaluation_id=request.GET.get("b"), user=request.user)
    result = selectors.evaluation_compare(a=a, b=b)
    series = [(f"A #{a.id}", (a.metrics or {}).get("headline") or {})]
    series.append((f"B #{b.id}", (b.metrics or {}).get("headline") or {}))
    return render(
        request,
        "evaluation_compare.html",
        {
            "nav": "evaluations",
            "a": a,
            "b": b,
            "captions": {"a": evaluation_caption(a), "b": evaluation_caption(b)},
            "cmp": result,
            "metric_plot": plots.metric_bars(series, plot_id="plot-compare"),
            "changed_counts": {
                change: sum(1 for entry in result["changed"] if entry["change"] == change)
                for change in ("better", "worse", "same")
            },
        },
    )
