from __future__ import annotations

from django.urls import path

from queries import pages
from queries.evaluation import pages as evaluation_pages
from queries.evaluation import set_pages as evaluation_set_pages

urlpatterns = [
    path("", pages.chat_view, name="home"),
    path("history/", pages.history_view, name="history"),
    path("history/compare/", pages.compare_view, name="run-compare-page"),
    path("history/<uuid:run_id>/", pages.run_replay_view, name="run-replay"),
    path("evaluations/", evaluation_pages.evaluations_view, name="evaluations"),
    path(
        "evaluations/compare/", evaluation_pages.evaluation_compare_view, name="evaluation-compare"
    ),
    path(
        "evaluations/<int:evaluation_id>/", evaluation_pages.evaluation_view, name="evaluation-page"
    ),
    path(
        "evaluations/sets/<int:set_id>/",
        evaluation_set_pages.evaluation_set_view,
        name="evaluation-set-page",
    ),
    path(
        "evaluations/sets/<int:set_id>/delete/",
        evaluation_set_pages.evaluation_set_delete_view,
        name="evaluation-set-delete-page",
    ),
    path(
        "evaluations/<int:evaluation_id>/cancel/",
        evaluation_pages.evaluation_cancel_view,
        name="evaluation-cancel-page",
    ),
    path(
        "shared/conversations/<uuid:conversation_id>/",
        pages.shared_conversation_view,
        name="shared-conversation",
    ),
]
