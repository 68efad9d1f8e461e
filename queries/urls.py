from __future__ import annotations

from django.urls import path

from queries import apis, providers_api, search_api, views
from queries.evaluation import apis as evaluation_apis

urlpatterns = [
    path("providers", providers_api.ProviderListApi.as_view(), name="providers"),
    path("query", views.query_view, name="query"),
    path("search", search_api.SearchApi.as_view(), name="search"),
    path("runs", apis.RunListApi.as_view(), name="run-list"),
    # Before runs/<run_id>: "compare" is no run id.
    path("runs/compare", apis.RunCompareApi.as_view(), name="run-compare"),
    path("feedback/export", apis.FeedbackExportApi.as_view(), name="feedback-export"),
    path("runs/<str:run_id>", apis.RunDetailApi.as_view(), name="run-detail"),
    path("runs/<str:run_id>/events", views.run_events_view, name="run-events"),
    path("runs/<str:run_id>/cancel", apis.RunCancelApi.as_view(), name="run-cancel"),
    path("runs/<str:run_id>/rerun", views.run_rerun_view, name="run-rerun"),
    path("runs/<str:run_id>/feedback", apis.RunFeedbackApi.as_view(), name="run-feedback"),
    path(
        "evaluation-sets",
        evaluation_apis.EvaluationSetListApi.as_view(),
        name="evaluation-set-list",
    ),
    path(
        "evaluation-sets/<str:set_id>",
        evaluation_apis.EvaluationSetDetailApi.as_view(),
        name="evaluation-set-detail",
    ),
    path("evaluations", evaluation_apis.EvaluationListApi.as_view(), name="evaluation-list"),
    path(
        "evaluations/<str:evaluation_id>",
        evaluation_apis.EvaluationDetailApi.as_view(),
        name="evaluation-detail",
    ),
    path(
        "evaluations/<str:evaluation_id>/cancel",
        evaluation_apis.EvaluationCancelApi.as_view(),
        name="evaluation-cancel",
    ),
    path("conversations", apis.ConversationListApi.as_view(), name="conversation-list"),
    path(
        "conversations/<str:conversation_id>/share",
        apis.ConversationShareApi.as_view(),
        name="conversation-share",
    ),
    path(
        "shared/conversations/<str:conversation_id>",
        apis.SharedConversationApi.as_view(),
        name="shared-conversation-api",
    ),
    path(
        "conversations/<str:conversation_id>/export",
        apis.ConversationExportApi.as_view(),
        name="conversation-export",
    ),
    path(
        "conversations/<str:conversation_id>",
        apis.ConversationDetailApi.as_view(),
        name="conversation-detail",
    ),
]
