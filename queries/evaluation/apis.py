"""The evaluations API: sets (upload, build from rated answers or a conversation, list, one
with its questions, delete), evaluations (start, list, one with its metrics and per-question
rows as JSON or CSV, cancel)."""

from __future__ import annotations

import csv
import io

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from adrag_site import audit
from adrag_site.audit import audit_record
from adrag_site.errors import ServiceError
from adrag_site.parsers import JSONParser
from adrag_site.schema import ErrorSerializer, error_responses
from knowledge.selectors import team_get_for_user
from providers.llm.registry import default_provider_name
from queries.apis import JsonLinesNegotiation
from queries.evaluation import selectors, services
from queries.evaluation.conversation import evaluation_set_from_conversation
from queries.evaluation.feedback import evaluation_set_from_feedback
from queries.evaluation.serializers import (
    EvaluationCancelOutput,
    EvaluationDetailOutput,
    EvaluationInput,
    EvaluationListOutput,
    EvaluationOutput,
    EvaluationSetBuildInput,
    EvaluationSetDetailOutput,
    EvaluationSetListOutput,
    EvaluationSetOutput,
    EvaluationSetUploadInput,
)
from queries.selectors import conversation_get_shared

SET_ID = OpenApiParameter("set_id", OpenApiTypes.INT, OpenApiParameter.PATH)
EVALUATION_ID = OpenApiParameter("evaluation_id", OpenApiTypes.INT, OpenApiParameter.PATH)
ONE_SOURCE = "Give one source: a file, from_feedback: true, or a conversation; not two."
# The most evaluations a list answers with, newest first.
LIST_LIMIT = 200
CSV_COLUMNS = (
    "position", "id", "kind", "question", "expected", "status", "run_id", "run_status",
    "verdict", "correct", "fact_first", "citation_hit", "honest_not_found", "reciprocal_rank",
    "seconds", "first_sentence",
)  # fmt: skip


class EvaluationSetListApi(APIView):
    """The evaluation sets the caller may read; upload one (multipart) or build one from the
    answers the caller rated good or from a conversation they may read (JSON)."""

    parser_classes = [MultiPartParser, FormParser, JSONParser]

    @extend_schema(
        operation_id="evaluation_sets_list",
        tags=["evaluations"],
        responses={200: EvaluationSetListOutput},
    )
    def get(self, request):
        sets = selectors.evaluation_set_list_for_user(user=request.user)
        data = EvaluationSetOutput(sets, many=True).data
        return Response({"evaluation_sets": data, "count": len(data)})

    @extend_schema(
        tags=["evaluations"],
        request={
            "multipart/form-data": EvaluationSetUploadInput,
            "application/json": EvaluationSetBuildInput,
        },
        responses={
            201: EvaluationSetOutput,
            400: OpenApiResponse(
                ErrorSerializer,
                description="A bad file (`invalid_evaluation_set`, each bad line in "
                "`details.errors` as line and error), no rated answers (`no_rated_answers`), "
                "a conversation with no finished question (`no_finished_runs`), two sources "
                "at once (`conflicting_sources`), or a bad field.",
            ),
            404: OpenApiResponse(
                ErrorSerializer, description="No such conversation (or one you may not read)."
            ),
            **error_responses(413),
        },
    )
    def post(self, request):
        if request.content_type.split(";")[0].strip().lower() == "application/json":
            created = _set_built(request)
        else:
            created = _set_uploaded(request)
        return Response(EvaluationSetOutput(created).data, status=status.HTTP_201_CREATED)


def _set_built(request):
    """Build a set from the caller's rated answers or from a conversation (a JSON body)."""
    values = EvaluationSetBuildInput(data=request.data)
    values.is_valid(raise_exception=True)
    data = values.validated_data
    if data["from_feedback"] and data["conversation"]:
        raise ServiceError(400, "conflicting_sources", ONE_SOURCE)
    if not data["from_feedback"] and not data["conversation"]:
        raise ServiceError(
            400, "invalid_request", "Upload a file, send from_feedback: true, or a conversation."
        )
    if data["from_feedback"] and not data["name"].strip():
        raise ServiceError(400, "invalid_request", "name: give the set a name.")
    team = team_get_for_user(value=data["team"], user=request.user)
    if data["conversation"]:
        conversation = conversation_get_shared(
            conversation_id=data["conversation"], user=request.user
        )
        return evaluation_set_from_conversation(
            user=request.user, conversation=conversation, name=data["name"].strip(), team=team
        )
    return evaluation_set_from_feedback(user=request.user, name=data["name"].strip(), team=team)


def _set_uploaded(request):
    """Record a set from an uploaded file (a multipart body)."""
    other_source = any(key in request.data for key in ("conversation", "from_feedback"))
    if other_source and "file" in request.FILES:
        raise ServiceError(400, "conflicting_sources", ONE_SOURCE)
    if other_source:
        raise ServiceError(
            400,
            "invalid_request",
            "Send from_feedback or a conversation as JSON (Content-Type: application/json).",
        )
    values = EvaluationSetUploadInput(data=request.data)
    if "file" not in request.FILES:
        raise ServiceError(400, "no_file", "Send the set in the multipart field 'file'.")
    values.is_valid(raise_exception=True)
    upload = values.validated_data["file"]
    team = team_get_for_user(value=values.validated_data["team"], user=request.user)
    return services.evaluation_set_upload(
        user=request.user,
        name=values.validated_data["name"].strip(),
        data=upload.read(),
        file_name=upload.name or "set.jsonl",
        team=team,
    )


class EvaluationSetDetailApi(APIView):
    """One evaluation set with its questions; its owner or staff delete it (with its
    evaluations), never while one of them runs (409)."""

    @extend_schema(
        tags=["evaluations"],
        parameters=[SET_ID],
        responses={200: EvaluationSetDetailOutput, **error_responses(404)},
    )
    def get(self, request, set_id):
        found = selectors.evaluation_set_get_for_user(set_id=set_id, user=request.user)
        questions = [
            selectors.question_output(question)
            for question in selectors.evaluation_set_questions(evaluation_set=found)
        ]
        return Response(EvaluationSetDetailOutput(found, context={"questions": questions}).data)

    @extend_schema(
        tags=["evaluations"],
        parameters=[SET_ID],
        responses={204: None, **error_responses(403, 404, 409)},
    )
    def delete(self, request, set_id):
        found = selectors.evaluation_set_get_for_user(set_id=set_id, user=request.user, manage=True)
        services.evaluation_set_delete(evaluation_set=found)
        return Response(status=status.HTTP_204_NO_CONTENT)


class EvaluationListApi(APIView):
    """The evaluations the caller may see, newest first; start one."""

    parser_classes = [JSONParser]

    @extend_schema(
        operation_id="evaluations_list",
        tags=["evaluations"],
        parameters=[OpenApiParameter("set", OpenApiTypes.INT, description="Only this set's.")],
        responses={200: EvaluationListOutput, **error_responses(404)},
    )
    def get(self, request):
        evaluations = selectors.evaluation_list_for_user(user=request.user)
        if request.query_params.get("set"):
            found = selectors.evaluation_set_get_for_user(
                set_id=request.query_params["set"], user=request.user
            )
            evaluations = evaluations.filter(evaluation_set=found)
        data = EvaluationOutput(evaluations.order_by("-created_at")[:LIST_LIMIT], many=True).data
        return Response({"evaluations": data, "count": len(data)})

    @extend_schema(
        tags=["evaluations"],
        request=EvaluationInput,
        responses={201: EvaluationOutput, **error_responses(400, 404)},
    )
    def post(self, request):
        values = EvaluationInput(data=request.data)
        values.is_valid(raise_exception=True)
        data = values.validated_data
        found = selectors.evaluation_set_get_for_user(
            set_id=data["evaluation_set"], user=request.user
        )
        evaluation = services.evaluation_start(
            user=request.user,
            evaluation_set=found,
            kb_ids=data.get("knowledge_bases") or [],
            provider=data.get("provider") or default_provider_name(),
            model=(data.get("model") or "").strip() or None,
            settings_changed=data.get("settings"),
            label=data["label"],
        )
        return Response(EvaluationOutput(evaluation).data, status=status.HTTP_201_CREATED)


def rows_csv(rows: list[dict]) -> str:
    """Return the per-question rows as CSV, one line per question."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


class EvaluationDetailApi(APIView):
    """One evaluation: progress, metrics, and a row per question (JSON, or `?format=csv`)."""

    content_negotiation_class = JsonLinesNegotiation

    @extend_schema(
        tags=["evaluations"],
        parameters=[
            EVALUATION_ID,
            OpenApiParameter("format", str, enum=["json", "csv"], description="Default json."),
        ],
        responses={
            (200, "application/json"): EvaluationDetailOutput,
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR, description="`format=csv`: one line per question."
            ),
            **error_responses(400, 404),
        },
    )
    def get(self, request, evaluation_id):
        wanted = request.query_params.get("format") or "json"
        if wanted not in ("json", "csv"):
            raise ServiceError(400, "invalid_request", "format must be 'json' or 'csv'.")
        evaluation = selectors.evaluation_get_for_user(
            evaluation_id=evaluation_id, user=request.user
        )
        rows = selectors.evaluation_rows(evaluation=evaluation)
        if wanted == "csv":
            audit_record(audit.EXPORT, target=evaluation, format="csv", rows=len(rows))
            response = HttpResponse(rows_csv(rows), content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = (
                f'attachment; filename="evaluation-{evaluation.id}.csv"'
            )
            return response
        return Response(EvaluationDetailOutput(evaluation, context={"rows": rows}).data)


class EvaluationCancelApi(APIView):
    """Cancel an evaluation: no run of it stays queued. Idempotent; a finished one is a 409."""

    @extend_schema(
        tags=["evaluations"],
        parameters=[EVALUATION_ID],
        request=None,
        responses={202: EvaluationCancelOutput, **error_responses(403, 404, 409)},
    )
    def post(self, request, evaluation_id):
        evaluation = selectors.evaluation_get_for_user(
            evaluation_id=evaluation_id, user=request.user, manage=True
        )
        evaluation = services.evaluation_cancel(evaluation=evaluation)
        return Response(
            {"id": evaluation.id, "status": evaluation.status}, status=status.HTTP_202_ACCEPTED
        )
