from __future__ import annotations

from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html

from knowledge import services
from knowledge.models import Chunk, Document, KnowledgeBase, Table, TableRow, WebSource


@admin.register(KnowledgeBase)
class KnowledgeBaseAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "team", "document_total", "chunk_count", "created_at"]
    list_filter = ["team", "created_at"]
    search_fields = ["name", "description", "owner__username"]
    readonly_fields = ["chunk_count", "token_total", "created_at", "updated_at"]
    autocomplete_fields = ["owner"]

    @admin.display(description="documents")
    def document_total(self, kb: KnowledgeBase) -> int:
        return kb.documents.count()

    def delete_model(self, request, obj: KnowledgeBase) -> None:
        services.kb_delete(kb=obj)

    def delete_queryset(self, request, queryset) -> None:
        for kb in queryset:
            services.kb_delete(kb=kb)


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = [
        "file_name",
        "kb_link",
        "status",
        "progress",
        "chunk_count",
        "entity_count",
        "edge_count",
        "size",
        "error_code",
        "updated_at",
    ]
    list_filter = ["status", "file_type", "knowledge_base"]
    search_fields = ["file_name", "sha256", "error"]
    actions = ["reindex", "cancel"]
    readonly_fields = [
        "knowledge_base",
        "kb_link",
        "file_name",
        "stored_path",
        "sha256",
        "size",
        "file_type",
        "encoding",
        "status",
        "progress_done",
        "progress_total",
        "cancel_requested",
        "error",
        "error_code",
        "page_count",
        "ocr_pages",
        "unreadable_pages",
        "chunk_count",
        "entity_count",
        "edge_count",
        "job_id",
        "uploaded_by",
        "created_at",
        "updated_at",
        "started_at",
        "indexed_at",
    ]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.display(description="knowledge base", ordering="knowledge_base__name")
    def kb_link(self, document: Document):
        url = reverse("admin:knowledge_knowledgebase_change", args=[document.knowledge_base_id])
        return format_html('<a href="{}">{}</a>', url, document.knowledge_base)

    @admin.display(description="progress")
    def progress(self, document: Document) -> str:
        if document.progress_total:
            return f"{document.progress_done}/{document.progress_total}"
        return "—"

    @admin.action(description="Re-index selected documents", permissions=["change"])
    def reindex(self, request, queryset) -> None:
        queued = sum(services.document_reindex(document=document) for document in queryset)
        self.message_user(
            request, f"Queued {queued} document(s) for re-indexing.", messages.SUCCESS
        )

    @admin.action(description="Cancel ingestion of selected documents", permissions=["change"])
    def cancel(self, request, queryset) -> None:
        active = [document for document in queryset if document.is_active]
        for document in active:
            services.document_cancel(document=document)
        self.message_user(request, f"Cancelled {len(active)} ingestion(s).", messages.SUCCESS)

    def delete_model(self, request, obj: Document) -> None:
        services.document_delete(document=obj)

    def delete_queryset(self, request, queryset) -> None:
        for document in queryset:
            services.document_delete(document=document)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Index rows, shown and never edited: they are written and deleted with their document."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Chunk)
class ChunkAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "document",
        "ordinal",
        "kind",
        "section_path",
        "page",
        "char_start",
        "char_end",
        "bm25_length",
        "preview",
    ]
    list_filter = ["knowledge_base", "kind"]
    search_fields = ["text", "document__file_name"]
    list_select_related = ["document"]
    exclude = ["embedding"]
    readonly_fields = [
        "document",
        "knowledge_base",
        "ordinal",
        "text",
        "text_md5",
        "page",
        "char_start",
        "char_end",
        "bm25_length",
        "kind",
        "section",
        "structure",
    ]

    @admin.display(description="section")
    def section_path(self, chunk: Chunk) -> str:
        return " › ".join(chunk.section or [])

    @admin.display(description="text")
    def preview(self, chunk: Chunk) -> str:
        return chunk.text[:120]


class TableRowInline(admin.TabularInline):
    model = TableRow
    fields = ["number", "cells", "values", "chunk"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    """A document's table as data (knowledge/tables/): read-only, it goes with its document."""

    list_display = ["id", "document", "ordinal", "caption", "column_names", "row_count"]
    list_filter = ["knowledge_base"]
    search_fields = ["caption", "document__file_name"]
    list_select_related = ["document"]
    readonly_fields = [
        "document", "knowledge_base", "ordinal", "caption", "section", "page", "columns",
        "row_count", "dropped",
    ]  # fmt: skip
    inlines = [TableRowInline]

    @admin.display(description="columns")
    def column_names(self, table: Table) -> str:
        return ", ".join(f"{column['name']} ({column['type']})" for column in table.columns)


@admin.register(WebSource)
class WebSourceAdmin(admin.ModelAdmin):
    """Web pages kept in sync with a knowledge base: the last sync's status and counts."""

    list_display = ["url", "knowledge_base", "status", "every_minutes", "last_synced_at", "counts"]
    list_filter = ["status"]
    search_fields = ["url", "knowledge_base__name"]
    readonly_fields = ["status", "progress_done", "progress_total", "counts", "error",
                       "last_synced_at", "next_sync_at", "created_by"]  # fmt: skip
