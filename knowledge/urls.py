from __future__ import annotations

from django.urls import path

from knowledge import apis, source_apis, viewer_apis

urlpatterns = [
    path("knowledge-bases", apis.KnowledgeBaseListApi.as_view(), name="kb-list"),
    path("knowledge-bases/<str:kb_id>", apis.KnowledgeBaseDetailApi.as_view(), name="kb-detail"),
    path(
        "knowledge-bases/<str:kb_id>/documents",
        apis.KnowledgeBaseDocumentsApi.as_view(),
        name="kb-documents",
    ),
    path(
        "knowledge-bases/<str:kb_id>/stats", apis.KnowledgeBaseStatsApi.as_view(), name="kb-stats"
    ),
    path(
        "knowledge-bases/<str:kb_id>/sources",
        source_apis.KnowledgeBaseSourcesApi.as_view(),
        name="kb-sources",
    ),
    path("sources/<str:source_id>", source_apis.WebSourceDetailApi.as_view(), name="source-detail"),
    path(
        "sources/<str:source_id>/sync", source_apis.WebSourceSyncApi.as_view(), name="source-sync"
    ),
    path("documents", apis.SpecDocumentsApi.as_view(), name="spec-documents"),
    path("documents/<str:document_id>", apis.DocumentDetailApi.as_view(), name="document-detail"),
    path(
        "documents/<str:document_id>/cancel",
        apis.DocumentCancelApi.as_view(),
        name="document-cancel",
    ),
    path(
        "documents/<str:document_id>/reindex",
        apis.DocumentReindexApi.as_view(),
        name="document-reindex",
    ),
    path(
        "documents/<str:document_id>/passages",
        viewer_apis.DocumentPassagesApi.as_view(),
        name="document-passages",
    ),
    path(
        "documents/<str:document_id>/scan",
        viewer_apis.DocumentScanApi.as_view(),
        name="document-scan",
    ),
    path(
        "documents/<str:document_id>/file",
        viewer_apis.DocumentFileApi.as_view(),
        name="document-file",
    ),
    path("upload", apis.SpecUploadApi.as_view(), name="spec-upload"),
    path("clear", apis.SpecClearApi.as_view(), name="spec-clear"),
]
