"""The runs API: list, detail (with events), cancel; and conversations: list, detail, delete."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpResponse
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from adrag_site.errors import ServiceError
from adrag_site.parsers import JSONParser
from adrag_site.schema import error_responses
from queries import selectors, services
from queries.models import Conversation, QueryRun, RunFeedback


class RatingCountsOutput(serializers.Serializer):
    up = serializers.IntegerField()
    down = serializers.IntegerField()


class RunSummaryOutput(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username")
    duration_ms = serializers.FloatField(allow_null=True)
    total_tokens = serializers.IntegerField()
    ratings = serializers.SerializerMethodField()

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
            "rerun_of",
            "ratings",
            "conversation",
            "standalone_query",
        ]

    @extend_schema_field(RatingCountsOutput)
    def get_ratings(self, run: QueryRun) -> dict:
        """Count the run's ratings (annotated by `run_search`, else counted here)."""
        if hasattr(run, "feedback_up"):
            return {"up": run.feedback_up, "down": run.feedback_down}
        ratings = list(run.feedback.values_list("rating", flat=True))
        return {"up": ratings.count("up"), "down": ratings.count("down")}


class RunEventOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    time = serializers.DateTimeField()
    frame = serializers.JSONField(help_text="The frame exactly as streamed.")


class RunFiltersOutput(serializers.Serializer):
    """The metadata filters a run was narrowed to (only the keys that were set)."""

    documents = serializers.ListField(child=serializers.IntegerField(), required=False)
    file_types = serializers.ListField(child=serializers.CharField(), required=False)
    uploaded_after = serializers.CharField(required=False)
    uploaded_before = serializers.CharField(required=False)


class FeedbackOutput(serializers.Serializer):
    rating = serializers.ChoiceField(choices=RunFeedback.Rating.choices)
    comment = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class FeedbackSummaryOutput(serializers.Serializer):
    mine = FeedbackOutput(allow_null=True, help_text="The caller's own rating, if any.")
    up = serializers.IntegerField(help_text="Ratings up, by anyone.")
    down = serializers.IntegerField(help_text="Ratings down, by anyone.")


class RerunBriefOutput(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=QueryRun.Status.choices)
    created_at = serializers.DateTimeField()
    overrides = serializers.JSONField()


class RunDetailOutput(RunSummaryOutput):
    events = serializers.SerializerMethodField()
    filters = RunFiltersOutput(read_only=True)
    feedback = serializers.SerializerMethodField()
    reruns = serializers.SerializerMethodField()

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
            "filters",
            "events",
            "overrides",
            "reruns",
            "feedback",
        ]

    @extend_schema_field(FeedbackSummaryOutput)
    def get_feedback(self, run: QueryRun) -> dict:
        request = self.context.get("request")
        return selectors.feedback_summary(run=run, user=request.user if request else None)

    @extend_schema_field(RerunBriefOutput(many=True))
    def get_reruns(self, run: QueryRun) -> list[dict]:
        request = self.context.get("request")
        reruns = selectors.run_list_for_user(user=request.user if request else None)
        return list(
            reruns.filter(rerun_of=run)
            .order_by("created_at")
            .values("id", "status", "created_at", "overrides")
        )

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
            OpenApiParameter(
                "feedback",
                str,
                enum=list(selectors.FEEDBACK_FILTERS),
                description="Runs rated up, down, rated at all (any) or not (none).",
            ),
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
        if params.get("feedback") and params["feedback"] not in selectors.FEEDBACK_FILTERS:
            raise ServiceError(
                400,
                "invalid_request",
                f"feedback must be one of {', '.join(selectors.FEEDBACK_FILTERS)}.",
            )
        runs = selectors.run_search(
            user=request.user,
            status=params.get("status"),
            provider=params.get("provider"),
            since=_when(params.get("since"), "since"),
            until=_when(params.get("until"), "until"),
            text=params.get("q"),
            feedback=params.get("feedback"),
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
        return Response(RunDetailOutput(run, context={"request": request}).data)


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


class RunBriefOutput(serializers.Serializer):
    id = serializers.UUIDField()
    query = serializers.CharField()
    status = serializers.ChoiceField(choices=QueryRun.Status.choices)
    provider = serializers.CharField()
    model = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    duration_ms = serializers.FloatField(allow_null=True)
    total_tokens = serializers.IntegerField()
    rerun_of = serializers.UUIDField(allow_null=True)
    overrides = serializers.JSONField()
    attempts = serializers.IntegerField(help_text="Passes through retrieval..reflection.")


class CompareSummaryOutput(serializers.Serializer):
    config_changes = serializers.ListField(child=serializers.CharField())
    changed_stages = serializers.ListField(child=serializers.CharField())


class ConfigChangeOutput(serializers.Serializer):
    key = serializers.CharField(
        help_text="A dotted configuration key, e.g. `fusion.weights.graph`."
    )
    a = serializers.JSONField(allow_null=True)
    b = serializers.JSONField(allow_null=True)


class ConfigDiffOutput(serializers.Serializer):
    changed = ConfigChangeOutput(many=True)
    same = serializers.IntegerField(help_text="How many keys are equal.")


def _section(help_text: str) -> serializers.JSONField:
    return serializers.JSONField(help_text=help_text)


class CompareStagesOutput(serializers.Serializer):
    planner = _section("`a`, `b` (status, retrieve, use_external, query_type), `changed`.")
    retrieval = _section(
        "`a`, `b` (status and counts per store); `stores`: per store `in_both` (with "
        "`rank_a`, `rank_b`, `moved`), `only_a`, `only_b`, `overlap`, `same` (null for runs "
        "logged without hit ids); `changed`."
    )
    external_tools = _section("`a`, `b` (status, web_count), `changed`.")
    aggregator = _section(
        "`a`, `b` (status, before, after, sources); `ranked`: the fused order "
        "compared like a store; `changed`."
    )
    reranker = _section(
        "`a`, `b` (status, kind, name, top_k, best_score, scores); `passages`: each kept "
        "passage with its rank and score in a and b, `score_delta`, `moved`; `changed`."
    )
    compressor = _section(
        "`a`, `b` (status, original_chars, compressed_chars, ratio, compressed), `changed`."
    )
    reasoning = _section("`a`, `b` (status, confidence, is_sufficient), `changed`.")
    answer = _section(
        "`a`, `b` (the answers), `same`, `similarity`, `words_added`, `words_removed`, "
        "`segments` (a word diff: `op` equal/delete/insert and `text`), `changed`."
    )
    citations = _section(
        "Counts (`a_count`, `b_count`, `in_both`, `only_a`, `only_b`) and `sources`, each with "
        "its index and rerank score in a and b; `changed`."
    )
    reflection = _section(
        "`a`, `b` (grounded, verdict, confidence, issues, retry_count, attempts, query_type), "
        "`changed`."
    )


class RunCompareOutput(serializers.Serializer):
    a = RunBriefOutput()
    b = RunBriefOutput()
    same_run = serializers.BooleanField()
    summary = CompareSummaryOutput()
    config = ConfigDiffOutput()
    stages = CompareStagesOutput()
    timings = serializers.JSONField(
        help_text="`stages`: per stage the milliseconds in a and b (summed over attempts) and "
        "the delta; `run`: the recorded run timings likewise."
    )
    tokens = serializers.JSONField(
        help_text="`stages`: per stage input/output/total tokens in a and b and the delta; "
        "`total_a`, `total_b`, `delta`."
    )
    hits = serializers.DictField(
        child=serializers.JSONField(),
        help_text="Each compared hit key (`chunk:<id>`, `web:<url>`): file_name, page, preview.",
    )


class RunCompareApi(APIView):
    """Compare two runs stage by stage: config, hits, scores, compression, answer, citations."""

    @extend_schema(
        tags=["runs"],
        parameters=[
            OpenApiParameter("a", OpenApiTypes.UUID, required=True, description="A run id."),
            OpenApiParameter("b", OpenApiTypes.UUID, required=True, description="A run id."),
        ],
        responses={200: RunCompareOutput, **error_responses(400, 404)},
    )
    def get(self, request):
        from queries.compare import run_compare

        ids = {side: (request.query_params.get(side) or "").strip() for side in ("a", "b")}
        missing = [side for side, value in ids.items() if not value]
        if missing:
            raise ServiceError(
                400, "invalid_request", f"?{missing[0]}= must name a run to compare."
            )
        run_a = selectors.run_get_for_user(run_id=ids["a"], user=request.user)
        run_b = selectors.run_get_for_user(run_id=ids["b"], user=request.user)
        return Response(RunCompareOutput(run_compare(a=run_a, b=run_b, user=request.user)).data)


class FeedbackInput(serializers.Serializer):
    rating = serializers.ChoiceField(choices=RunFeedback.Rating.choices)
    comment = serializers.CharField(
        required=False, allow_blank=True, max_length=services.FEEDBACK_COMMENT_MAX_CHARS
    )


FEEDBACK_KEYS = ("rating", "comment")


def feedback_body(request) -> dict:
    """Return a feedback body: a JSON object with no keys but `rating` and `comment`, as the
    other JSON endpoints hold their bodies (a form body or an unknown key is a 400)."""
    if request.content_type.split(";")[0].strip().lower() != "application/json":
        raise ServiceError(
            400,
            "invalid_request",
            "The body must be a JSON object (Content-Type: application/json).",
        )
    body = request.data
    if not isinstance(body, dict):
        raise ServiceError(400, "invalid_request", "The body must be a JSON object.")
    unknown = sorted(key for key in body if key not in FEEDBACK_KEYS)
    if unknown:
        raise ServiceError(
            400,
            "invalid_request",
            f"Unknown field {unknown[0]!r}; a rating takes {' and '.join(FEEDBACK_KEYS)}.",
        )
    return body


class RunFeedbackApi(APIView):
    """The caller's rating of a run (one per user per run, editable) and the run's counts."""

    parser_classes = [JSONParser]

    @extend_schema(
        tags=["runs"],
        parameters=[RUN_ID],
        responses={200: FeedbackSummaryOutput, **error_responses(404)},
    )
    def get(self, request, run_id):
        run = selectors.run_get_for_user(run_id=run_id, user=request.user)
        return Response(
            FeedbackSummaryOutput(selectors.feedback_summary(run=run, user=request.user)).data
        )

    @extend_schema(
        tags=["runs"],
        parameters=[RUN_ID],
        request=FeedbackInput,
        responses={200: FeedbackSummaryOutput, **error_responses(400, 404)},
    )
    def post(self, request, run_id):
        run = selectors.run_get_for_user(run_id=run_id, user=request.user)
        body = feedback_body(request)
        # Checked by the service rather than FeedbackInput, so that any bad rating (missing,
        # null, a number) answers the one stable code `invalid_rating`.
        comment = body.get("comment") or ""
        if not isinstance(comment, str):
            raise ServiceError(400, "invalid_request", "comment must be a string.")
        services.feedback_set(
            run=run, user=request.user, rating=body.get("rating"), comment=comment
        )
        return Response(
            FeedbackSummaryOutput(selectors.feedback_summary(run=run, user=request.user)).data
        )

    @extend_schema(
        tags=["runs"], parameters=[RUN_ID], responses={204: None, **error_responses(404)}
    )
    def delete(self, request, run_id):
        run = selectors.run_get_for_user(run_id=run_id, user=request.user)
        services.feedback_delete(run=run, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class JsonLinesNegotiation(BaseContentNegotiation):
    """Answer errors as JSON whatever the Accept header; the export itself is JSON Lines."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return (renderers[0], renderers[0].media_type)


class FeedbackExportApi(APIView):
    """Rated runs as JSON Lines, one line per rating, for building an evaluation set."""

    content_negotiation_class = JsonLinesNegotiation

    @extend_schema(
        tags=["runs"],
        parameters=[
            OpenApiParameter(
                "rating", str, enum=list(RunFeedback.Rating.values), description="Only these."
            )
        ],
        responses={
            (200, "application/x-ndjson"): OpenApiResponse(
                OpenApiTypes.STR,
                description="One JSON object per line: run_id, created_at, question, "
                "standalone_query, answer, sources, rating, comment, rated_by, rated_at, "
                "provider, model. The caller's runs (staff: every run).",
            ),
            **error_responses(400),
        },
    )
    def get(self, request):
        rating = request.query_params.get("rating") or None
        if rating and rating not in RunFeedback.Rating.values:
            raise ServiceError(400, "invalid_rating", "rating must be 'up' or 'down'.")
        lines = [
            json.dumps(row, ensure_ascii=False, cls=DjangoJSONEncoder) + "\n"
            for row in selectors.feedback_export_rows(user=request.user, rating=rating)
        ]
        response = HttpResponse("".join(lines), content_type="application/x-ndjson")
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        response["Content-Disposition"] = f'attachment; filename="feedback-{stamp}.jsonl"'
        return response


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
