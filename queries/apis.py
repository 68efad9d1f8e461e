"""The runs API: list, detail (with events), cancel; and conversations: list, detail, delete."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from adrag_site.errors import ServiceError
from adrag_site.schema import error_responses
from queries import selectors, services
from queries.models import Conversation, QueryRun


class RunSummaryOutput(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username")
    duration_ms = serializers.FloatField(allow_null=True)
    total_tokens = serializers.IntegerField()

    class Meta:
        model = QueryRun
        fields = [
            "id",
            "user",
            "query",
            "provider",
            "model",
            "status",
            "created_at",
            "started_at",
            "finished_at",
            "duration_ms",
            "total_tokens",
            "kb_ids",
            "error_code",
            "last_seq",
            "conversation",
            "standalone_query",
        ]


class RunEventOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    time = serializers.DateTimeField()
    frame = serializers.JSONField(help_text="The frame exactly as streamed.")


class RunDetailOutput(RunSummaryOutput):
    events = serializers.SerializerMethodField()

    class Meta(RunSummaryOutput.Meta):
        fields = RunSummaryOutput.Meta.fields + [
            "answer",
            "sources",
            "metadata",
            "usage",
            "timings",
            "config",
            "error_message",
            "cancel_requested",
            "events",
        ]

    @extend_schema_field(RunEventOutput(many=True))
    def get_events(self, run: QueryRun) -> list[dict]:
        return [
            {
                "seq": event.seq,
                "type": event.type,
                "time": event.created_at,
                "frame": json.loads(event.payload),
            }
            for event in run.events.order_by("seq")
        ]


class RunPageOutput(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = RunSummaryOutput(many=True)


class RunCancelOutput(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=QueryRun.Status.choices)
    cancel_requested = serializers.BooleanField()


RUN_ID = OpenApiParameter("run_id", OpenApiTypes.UUID, OpenApiParameter.PATH)
DATE_HELP = "An ISO date (midnight UTC) or date-time (naive ones are UTC)."


def _when(value: str | None, field: str) -> datetime | None:
    """Parse an ISO date or date-time (naive ones are UTC); 400 for anything else."""
    if not value:
        return None
    try:
        # Django's parsers return None for what does not look like a date, but raise
        # ValueError for what does and is no date: 2026-02-30, month 13, offset +99:00.
        parsed = parse_datetime(value)
        if parsed is None and parse_date(value) is not None:
            parsed = parse_datetime(value + "T00:00:00+00:00")
        if parsed is not None:
            if timezone.is_naive(parsed):
                parsed = timezone.make_aware(parsed, UTC)
            # A date near year 1 or 9999 with an offset may not exist in UTC.
            parsed = parsed.astimezone(UTC)
    except (ValueError, OverflowError):
        parsed = None
    if parsed is None:
        raise ServiceError(400, "invalid_request", f"{field} must be an ISO date or date-time.")
    return parsed


class RunListApi(APIView):
    """The caller's runs (staff: everyone's), filterable and paginated."""

    class Pagination(PageNumberPagination):
        page_size_query_param = "page_size"
        max_page_size = 200

    @extend_schema(
        operation_id="runs_list",
        tags=["runs"],
        parameters=[
            OpenApiParameter(
                "status",
                str,
                description="Comma-separated statuses: " + ", ".join(QueryRun.Status.values),
            ),
            OpenApiParameter("provider", str),
            OpenApiParameter("since", str, description=f"Created at or after. {DATE_HELP}"),
            OpenApiParameter("until", str, description=f"Created before. {DATE_HELP}"),
            OpenApiParameter("q", str, description="Text in the question or the answer."),
            OpenApiParameter("user", str, description="Staff only: one user's runs."),
            OpenApiParameter("page", int),
            OpenApiParameter("page_size", int, description="At most 200."),
        ],
        responses={200: RunPageOutput, **error_responses(400, 404)},
    )
    def get(self, request):
        params = request.query_params
        if params.get("status"):
            unknown = set(params["status"].split(",")) - set(QueryRun.Status.values)
            if unknown:
                raise ServiceError(400, "invalid_request", f"Unknown status: {sorted(unknown)[0]}.")
        runs = selectors.run_search(
            user=request.user,
            status=params.get("status"),
            provider=params.get("provider"),
            since=_when(params.get("since"), "since"),
            until=_when(params.get("until"), "until"),
            text=params.get("q"),
        )
        if params.get("user") and request.user.is_staff:
            runs = runs.filter(user__username=params["user"])
        paginator = self.Pagination()
        page = paginator.paginate_queryset(runs, request, view=self)
        return paginator.get_paginated_response(RunSummaryOutput(page, many=True).data)


class RunDetailApi(APIView):
    """One run with answer, sources, metadata, usage, timings, configuration and events."""

    @extend_schema(
        tags=["runs"], parameters=[RUN_ID], responses={200: RunDetailOutput, **error_responses(404)}
    )
    def get(self, request, run_id):
        run = selectors.run_get_for_user(run_id=run_id, user=request.user)
        return Response(RunDetailOutput(run).data)


class RunCancelApi(APIView):
    """Cancel a run (its owner or staff). Idempotent; a finished run answers 409."""

    @extend_schema(
        tags=["runs"],
        parameters=[RUN_ID],
        request=None,
        responses={202: RunCancelOutput, **error_responses(404, 409)},
    )
    def post(self, request, run_id):
        run = selectors.run_get_for_user(run_id=run_id, user=request.user)
        run = services.run_cancel(run=run)
        return Response(
            {"id": str(run.id), "status": run.status, "cancel_requested": run.cancel_requested},
            status=status.HTTP_202_ACCEPTED,
        )


class SourceRefOutput(serializers.Serializer):
    index = serializers.IntegerField()
    file_name = serializers.CharField()


class ConversationRunOutput(serializers.ModelSerializer):
    """One turn of a conversation: the question as asked and as it stood alone, the answer."""

    sources = serializers.SerializerMethodField(help_text="The answer's sources, by file.")

    class Meta:
        model = QueryRun
        fields = [
            "id",
            "query",
            "standalone_query",
            "status",
            "answer",
            "error_code",
            "created_at",
            "sources",
        ]

    @extend_schema_field(SourceRefOutput(many=True))
    def get_sources(self, run: QueryRun) -> list[dict]:
        return [
            {
                "index": int(source.get("index") or 0),
                "file_name": str(source.get("file_name") or ""),
            }
            for source in (run.sources or [])
            if isinstance(source, dict)
        ]


class ConversationSummaryOutput(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username")
    run_count = serializers.IntegerField()

    class Meta:
        model = Conversation
        fields = ["id", "title", "user", "created_at", "updated_at", "run_count"]


class ConversationDetailOutput(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username")
    runs = serializers.SerializerMethodField()

    class Meta:
        model = Conversation
        fields = ["id", "title", "user", "created_at", "updated_at", "runs"]

    @extend_schema_field(ConversationRunOutput(many=True))
    def get_runs(self, conversation: Conversation) -> list[dict]:
        runs = selectors.conversation_runs(conversation=conversation)
        return ConversationRunOutput(runs, many=True).data


class ConversationPageOutput(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = ConversationSummaryOutput(many=True)


CONVERSATION_ID = OpenApiParameter("conversation_id", OpenApiTypes.UUID, OpenApiParameter.PATH)


class ConversationListApi(APIView):
    """The caller's conversations, most recently used first, paginated like the runs."""

    class Pagination(PageNumberPagination):
        page_size_query_param = "page_size"
        max_page_size = 200

    @extend_schema(
        operation_id="conversations_list",
        tags=["conversations"],
        parameters=[
            OpenApiParameter("user", str, description="Staff only: one user's conversations."),
            OpenApiParameter("page", int),
            OpenApiParameter("page_size", int, description="At most 200."),
        ],
        responses={200: ConversationPageOutput, **error_responses(404)},
    )
    def get(self, request):
        conversations = selectors.conversation_list_for_user(
            user=request.user, username=request.query_params.get("user")
        )
        paginator = self.Pagination()
        page = paginator.paginate_queryset(conversations, request, view=self)
        return paginator.get_paginated_response(ConversationSummaryOutput(page, many=True).data)


class ConversationDetailApi(APIView):
    """One conversation with its runs in order (its owner, or staff); its owner may delete it."""

    @extend_schema(
        tags=["conversations"],
        parameters=[CONVERSATION_ID],
        responses={200: ConversationDetailOutput, **error_responses(404)},
    )
    def get(self, request, conversation_id):
        conversation = selectors.conversation_get_for_user(
            conversation_id=conversation_id, user=request.user
        )
        return Response(ConversationDetailOutput(conversation).data)

    @extend_schema(
        tags=["conversations"],
        parameters=[CONVERSATION_ID],
        responses={204: None, **error_responses(404)},
        description="Delete the conversation; its runs stay in the history, in no conversation.",
    )
    def delete(self, request, conversation_id):
        conversation = selectors.conversation_get_for_user(
            conversation_id=conversation_id, user=request.user, own=True
        )
        services.conversation_delete(conversation=conversation)
        return Response(status=status.HTTP_204_NO_CONTENT)
