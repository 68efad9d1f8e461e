"""The runs API: list, detail (with events), cancel."""

from __future__ import annotations

import json

from django.utils.dateparse import parse_date, parse_datetime
from rest_framework import serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from adrag_site.errors import ApiError
from queries import selectors, services
from queries.models import QueryRun


class RunSummaryOutput(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username")
    duration_ms = serializers.FloatField()
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
        ]


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


def _when(value: str | None, field: str):
    if not value:
        return None
    parsed = parse_datetime(value) or (
        parse_date(value) and parse_datetime(value + "T00:00:00+00:00")
    )
    if parsed is None:
        raise ApiError(400, f"{field} must be an ISO date or date-time.", "invalid_request")
    return parsed


class RunListApi(APIView):
    """The caller's runs (staff: everyone's), filterable and paginated."""

    class Pagination(PageNumberPagination):
        page_size_query_param = "page_size"
        max_page_size = 200

    def get(self, request):
        params = request.query_params
        if params.get("status"):
            unknown = set(params["status"].split(",")) - set(QueryRun.Status.values)
            if unknown:
                raise ApiError(400, f"Unknown status: {sorted(unknown)[0]}.", "invalid_request")
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

    def get(self, request, run_id):
        from queries.services import run_check_liveness

        run = selectors.run_get_for_user(run_id=run_id, user=request.user)
        if run.is_active and run_check_liveness(run_id=run.id):
            run.refresh_from_db()
        return Response(RunDetailOutput(run).data)


class RunCancelApi(APIView):
    """Cancel a run (its owner or staff). Idempotent; a finished run answers 409."""

    def post(self, request, run_id):
        run = selectors.run_get_for_user(run_id=run_id, user=request.user)
        try:
            run = services.run_cancel(run=run)
        except services.RunConflict as exc:
            raise ApiError(409, str(exc), "run_finished") from None
        return Response(
            {"id": str(run.id), "status": run.status, "cancel_requested": run.cancel_requested},
            status=status.HTTP_202_ACCEPTED,
        )
