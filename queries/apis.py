"""The runs API: list, detail (with events), cancel; and conversations: list, detail, delete."""

from __future__ import annotations

import json
from datetime import datetime

from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpResponse
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response
from rest_framework.views import APIView

from adrag_site import audit
from adrag_site.audit import audit_record
from adrag_site.dates import day_start, parse_moment
from adrag_site.errors import ServiceError
from adrag_site.pagination import PageSizePagination
from adrag_site.parsers import JSONParser
from adrag_site.schema import error_responses
from knowledge.selectors import team_get_for_user
from queries import selectors, services
from queries.compare import run_compare
from queries.export import (
    FORMATS,
    conversation_export,
    conversation_markdown,
    shared_conversation_export,
)
from queries.models import QueryRun, RunFeedback
from queries.serializers import (
    ConversationDetailOutput,
    ConversationPageOutput,
    ConversationShareInput,
    ConversationShareOutput,
    ConversationSummaryOutput,
    FeedbackInput,
    FeedbackSummaryOutput,
    RunCancelOutput,
    RunCompareOutput,
    RunDetailOutput,
    RunPageOutput,
    RunSummaryOutput,
)

RUN_ID = OpenApiParameter("run_id", OpenApiTypes.UUID, OpenApiParameter.PATH)
DATE_HELP = "An ISO date (midnight UTC) or date-time (naive ones are UTC)."


def _when(value: str | None, field: str) -> datetime | None:
    """Parse an ISO date or date-time (naive ones are UTC); 400 for anything else."""
    if not value:
        return None
    parsed = parse_moment(value)
    if parsed is not None and not isinstance(parsed, datetime):
        parsed = day_start(parsed)
    if parsed is None:
        raise ServiceError(400, "invalid_request", f"{field} must be an ISO date or date-time.")
    return parsed


class RunListApi(APIView):
    """The caller's runs (staff: everyone's), filterable and paginated."""

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
        paginator = PageSizePagination()
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
        responses={202: RunCancelOutput, **error_responses(403, 404, 409)},
    )
    def post(self, request, run_id):
        run = selectors.run_get_for_user(run_id=run_id, user=request.user, level=selectors.ACT)
        run = services.run_cancel(run=run)
        return Response(
            {"id": str(run.id), "status": run.status, "cancel_requested": run.cancel_requested},
            status=status.HTTP_202_ACCEPTED,
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
        ids = {side: (request.query_params.get(side) or "").strip() for side in ("a", "b")}
        missing = [side for side, value in ids.items() if not value]
        if missing:
            raise ServiceError(
                400, "invalid_request", f"?{missing[0]}= must name a run to compare."
            )
        run_a = selectors.run_get_for_user(run_id=ids["a"], user=request.user)
        run_b = selectors.run_get_for_user(run_id=ids["b"], user=request.user)
        return Response(RunCompareOutput(run_compare(a=run_a, b=run_b, user=request.user)).data)


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
        responses={200: FeedbackSummaryOutput, **error_responses(400, 403, 404)},
    )
    def post(self, request, run_id):
        run = selectors.run_get_for_user(run_id=run_id, user=request.user, level=selectors.ACT)
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
        tags=["runs"], parameters=[RUN_ID], responses={204: None, **error_responses(403, 404)}
    )
    def delete(self, request, run_id):
        run = selectors.run_get_for_user(run_id=run_id, user=request.user, level=selectors.ACT)
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
        audit_record(audit.EXPORT, target_type="feedback", rating=rating, rows=len(lines))
        response = HttpResponse("".join(lines), content_type="application/x-ndjson")
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        response["Content-Disposition"] = f'attachment; filename="feedback-{stamp}.jsonl"'
        return response


CONVERSATION_ID = OpenApiParameter("conversation_id", OpenApiTypes.UUID, OpenApiParameter.PATH)


def _conversation_uuid(value: str):
    """Return a path's conversation id as a UUID; a malformed one is a 400, as the README says
    (an unknown or someone else's is a 404, from the selector)."""
    import uuid

    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise ServiceError(400, "invalid_conversation", "A conversation id is a UUID.") from None


class ConversationListApi(APIView):
    """The caller's conversations, most recently used first, paginated like the runs."""

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
        paginator = PageSizePagination()
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
            conversation_id=_conversation_uuid(conversation_id), user=request.user
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
            conversation_id=_conversation_uuid(conversation_id), user=request.user, own=True
        )
        services.conversation_delete(conversation=conversation)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ConversationExportApi(APIView):
    """A conversation as a file: its questions, answers and citations (Markdown or JSON)."""

    content_negotiation_class = JsonLinesNegotiation

    @extend_schema(
        operation_id="conversations_export",
        tags=["conversations"],
        parameters=[
            CONVERSATION_ID,
            OpenApiParameter(
                "format", str, enum=list(FORMATS), description="`md` (default) or `json`."
            ),
        ],
        responses={
            (200, "text/markdown"): OpenApiResponse(
                OpenApiTypes.STR,
                description="`format=md`: a heading per turn, the answer, its sources (file, "
                "page, section).",
            ),
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="`format=json`: id, title, user, created_at, updated_at and `turns` "
                "(question, standalone_question, status, answer, error, verdict, citations).",
            ),
            **error_responses(400, 404),
        },
    )
    def get(self, request, conversation_id):
        wanted = request.query_params.get("format") or "md"
        if wanted not in FORMATS:
            raise ServiceError(400, "invalid_request", "format must be 'md' or 'json'.")
        conversation = selectors.conversation_get_for_user(
            conversation_id=_conversation_uuid(conversation_id), user=request.user
        )
        export = conversation_export(conversation=conversation)
        audit_record(audit.EXPORT, target=conversation, format=wanted)
        if wanted == "json":
            body = json.dumps(export, ensure_ascii=False, indent=2) + "\n"
            content_type = "application/json"
        else:
            body = conversation_markdown(export)
            content_type = "text/markdown; charset=utf-8"
        response = HttpResponse(body, content_type=content_type)
        name = f"conversation-{str(conversation.id)[:8]}.{wanted}"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


def _share_output(conversation) -> dict:
    shared = conversation.shared_with is not None
    return {
        "shared_with": conversation.shared_with.name if shared else None,
        "url": reverse("shared-conversation", args=[conversation.id]) if shared else "",
    }


class ConversationShareApi(APIView):
    """Share a conversation read-only with a team its owner is in, or stop sharing it."""

    parser_classes = [JSONParser]

    @extend_schema(
        operation_id="conversations_share",
        tags=["conversations"],
        parameters=[CONVERSATION_ID],
        request=ConversationShareInput,
        responses={200: ConversationShareOutput, **error_responses(400, 404)},
        description="The owner shares the conversation with one of their teams: its members "
        "open the returned page (or `GET /api/shared/conversations/<id>`) read-only, and see "
        "an answer only when they may read every knowledge base it searched.",
    )
    def put(self, request, conversation_id):
        conversation = selectors.conversation_get_for_user(
            conversation_id=_conversation_uuid(conversation_id), user=request.user, own=True
        )
        values = ConversationShareInput(data=request.data)
        values.is_valid(raise_exception=True)
        team = team_get_for_user(value=values.validated_data["team"], user=request.user)
        conversation = services.conversation_share(conversation=conversation, team=team)
        return Response(_share_output(conversation))

    @extend_schema(
        operation_id="conversations_unshare",
        tags=["conversations"],
        parameters=[CONVERSATION_ID],
        responses={204: None, **error_responses(404)},
    )
    def delete(self, request, conversation_id):
        conversation = selectors.conversation_get_for_user(
            conversation_id=_conversation_uuid(conversation_id), user=request.user, own=True
        )
        services.conversation_share(conversation=conversation, team=None)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SharedConversationApi(APIView):
    """A conversation opened read-only: by its owner, a member of the team it is shared with,
    or staff."""

    @extend_schema(
        operation_id="conversations_shared",
        tags=["conversations"],
        parameters=[CONVERSATION_ID],
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="As `GET /api/conversations/<id>/export?format=json`; each turn "
                "also says whether it was `withheld` (it searched a knowledge base the reader "
                "cannot read: no answer, no citations).",
            ),
            **error_responses(404),
        },
    )
    def get(self, request, conversation_id):
        conversation = selectors.conversation_get_shared(
            conversation_id=_conversation_uuid(conversation_id), user=request.user
        )
        return Response(shared_conversation_export(conversation=conversation, user=request.user))
