from __future__ import annotations

from django.contrib import admin, messages
from django.utils.html import format_html

from adrag_site.errors import ServiceError
from queries import services
from queries.models import Conversation, Evaluation, EvaluationSet, QueryRun, RunEvent, RunFeedback


class RunEventInline(admin.TabularInline):
    model = RunEvent
    fields = ["seq", "type", "payload", "created_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["seq"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class RunFeedbackInline(admin.TabularInline):
    model = RunFeedback
    fields = ["user", "rating", "comment", "updated_at"]
    readonly_fields = fields
    extra = 0
    ordering = ["-updated_at"]
    verbose_name_plural = "feedback"

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(QueryRun)
class QueryRunAdmin(admin.ModelAdmin):
    list_display = [
        "short_query",
        "user",
        "status",
        "provider",
        "model",
        "created_at",
        "duration",
        "tokens",
        "events_sent",
        "replay_link",
    ]
    list_filter = ["status", "provider", "user", "created_at"]
    search_fields = ["query", "answer", "id", "user__username"]
    date_hierarchy = "created_at"
    actions = ["cancel_runs"]
    inlines = [RunFeedbackInline, RunEventInline]
    readonly_fields = [
        "id",
        "user",
        "query",
        "provider",
        "model",
        "kb_ids",
        "status",
        "cancel_requested",
        "created_at",
        "started_at",
        "finished_at",
        "answer",
        "sources",
        "metadata",
        "config",
        "usage",
        "timings",
        "error_code",
        "error_message",
        "job_id",
        "last_seq",
        "request_id",
        "replay_link",
        "conversation",
        "standalone_query",
        "rerun_of",
        "overrides",
        "filters",
    ]
    exclude = ["knowledge_bases"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.display(description="query")
    def short_query(self, run: QueryRun) -> str:
        return run.query[:80]

    @admin.display(description="duration")
    def duration(self, run: QueryRun) -> str:
        return f"{run.duration_ms / 1000:.1f}s" if run.duration_ms is not None else "—"

    @admin.display(description="tokens")
    def tokens(self, run: QueryRun) -> int:
        return run.total_tokens

    @admin.display(description="events")
    def events_sent(self, run: QueryRun) -> int:
        return run.last_seq

    @admin.display(description="replay")
    def replay_link(self, run: QueryRun):
        return format_html('<a href="/history/{}/">replay</a>', run.id)

    @admin.action(description="Cancel selected runs", permissions=["change"])
    def cancel_runs(self, request, queryset) -> None:
        cancelled = 0
        for run in queryset:
            try:
                services.run_cancel(run=run)
                cancelled += 1
            except ServiceError:
                continue
        self.message_user(request, f"Cancelled {cancelled} run(s).", messages.SUCCESS)


@admin.register(RunEvent)
class RunEventAdmin(admin.ModelAdmin):
    list_display = ["run", "seq", "type", "created_at"]
    list_filter = ["type"]
    search_fields = ["run__id", "payload"]
    readonly_fields = ["run", "seq", "type", "payload", "created_at"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(RunFeedback)
class RunFeedbackAdmin(admin.ModelAdmin):
    list_display = ["short_question", "rating", "short_comment", "user", "updated_at", "run_link"]
    list_filter = ["rating", "updated_at"]
    search_fields = ["comment", "run__query", "run__answer", "user__username", "run__id"]
    date_hierarchy = "updated_at"
    list_select_related = ["run", "user"]
    readonly_fields = ["run", "user", "rating", "comment", "created_at", "updated_at", "run_link"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="question")
    def short_question(self, feedback: RunFeedback) -> str:
        return feedback.run.query[:80]

    @admin.display(description="comment")
    def short_comment(self, feedback: RunFeedback) -> str:
        return feedback.comment[:80]

    @admin.display(description="run")
    def run_link(self, feedback: RunFeedback):
        return format_html('<a href="/history/{}/">open run</a>', feedback.run_id)


class ConversationRunInline(admin.TabularInline):
    model = QueryRun
    fk_name = "conversation"
    fields = ["created_at", "query", "standalone_query", "status", "replay_link"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["created_at"]
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="replay")
    def replay_link(self, run: QueryRun):
        return format_html('<a href="/history/{}/">replay</a>', run.id)


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ["title", "user", "turns", "created_at", "updated_at"]
    list_filter = ["user", "updated_at"]
    search_fields = ["title", "id", "user__username", "runs__query"]
    date_hierarchy = "updated_at"
    readonly_fields = ["id", "user", "created_at", "updated_at"]
    inlines = [ConversationRunInline]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.display(description="turns")
    def turns(self, conversation: Conversation) -> int:
        return conversation.runs.count()


@admin.register(EvaluationSet)
class EvaluationSetAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "team", "source", "question_count", "created_at"]
    list_filter = ["source"]
    search_fields = ["name", "owner__username"]
    readonly_fields = ["source", "file_name", "question_count", "created_at"]


@admin.register(Evaluation)
class EvaluationAdmin(admin.ModelAdmin):
    """Evaluations are started and cancelled from the portal (a batch of runs with its own
    throttle); the admin only shows them."""

    list_display = [
        "id",
        "evaluation_set",
        "user",
        "provider",
        "status",
        "done_count",
        "created_at",
    ]
    list_filter = ["status", "provider"]
    readonly_fields = [
        "evaluation_set", "user", "label", "kb_ids", "provider", "model", "overrides", "status",
        "question_count", "done_count", "metrics", "created_at", "started_at", "finished_at",
    ]  # fmt: skip
    exclude = ["knowledge_bases"]

    def has_add_permission(self, request) -> bool:
        return False
