"""An evaluation set's page: its questions, a page at a time, its evaluations, the start form
on it, and its delete (its owner or staff; never while one of its evaluations runs)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from adrag_site.errors import ServiceError
from queries.evaluation import selectors, services
from queries.evaluation.pages import form_context

# Questions shown per page of a set.
QUESTIONS_PER_PAGE = 50


@login_required
def evaluation_set_view(request: HttpRequest, set_id: int) -> HttpResponse:
    """Render a set: its questions (paginated), its evaluations, and its delete."""
    evaluation_set = selectors.evaluation_set_get_for_user(set_id=set_id, user=request.user)
    paginator = Paginator(
        selectors.evaluation_set_questions(evaluation_set=evaluation_set), QUESTIONS_PER_PAGE
    )
    page = paginator.get_page(request.GET.get("page"))
    evaluations = selectors.evaluation_list_for_user(user=request.user).filter(
        evaluation_set=evaluation_set
    )
    context = form_context(request)
    context.update(
        {
            "evaluation_set": evaluation_set,
            "page": page,
            "questions": [selectors.question_output(question) for question in page],
            "set_evaluations": evaluations.order_by("-created_at")[:50],
            "evaluation_count": evaluation_set.evaluations.count(),
            "running": selectors.evaluation_set_running(evaluation_set=evaluation_set),
            "can_delete": request.user.is_staff or evaluation_set.owner_id == request.user.id,
        }
    )
    return render(request, "evaluation_set.html", context)


@login_required
@require_POST
def evaluation_set_delete_view(request: HttpRequest, set_id: int) -> HttpResponse:
    """Delete a set from its page, with its evaluations once the form confirms them."""
    evaluation_set = selectors.evaluation_set_get_for_user(set_id=set_id, user=request.user)
    name, count = evaluation_set.name, evaluation_set.evaluations.count()
    try:
        selectors.evaluation_set_get_for_user(set_id=set_id, user=request.user, manage=True)
        if count and not request.POST.get("confirm"):
            raise ServiceError(
                400,
                "invalid_request",
                f"Tick the box to delete the set's {count} evaluation(s) with it.",
            )
        services.evaluation_set_delete(evaluation_set=evaluation_set)
    except ServiceError as error:
        messages.error(request, error.message)
        return redirect("evaluation-set-page", set_id=evaluation_set.id)
    done = f"Set “{name}” deleted" + (f", with its {count} evaluation(s)." if count else ".")
    messages.success(request, done)
    return redirect("evaluations")
