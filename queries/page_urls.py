from __future__ import annotations

from django.urls import path

from queries import pages

urlpatterns = [
    path("", pages.chat_view, name="home"),
    path("history/", pages.history_view, name="history"),
    path("history/compare/", pages.compare_view, name="run-compare-page"),
    path("history/<uuid:run_id>/", pages.run_replay_view, name="run-replay"),
    path(
        "shared/conversations/<uuid:conversation_id>/",
        pages.shared_conversation_view,
        name="shared-conversation",
    ),
]
