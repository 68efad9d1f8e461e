from __future__ import annotations

from django.urls import path

from knowledge import pages

urlpatterns = [
    path("knowledge/", pages.knowledge_view, name="knowledge"),
    path("documents/<int:document_id>/", pages.document_view, name="document-view"),
]
