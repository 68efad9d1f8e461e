"""The caller's own API tokens: make one (its key shown once), list them, revoke one; the audit
trail, for staff."""

from __future__ import annotations

from datetime import datetime

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from adrag_site import audit
from adrag_site.audit import audit_record
from adrag_site.dates import day_start, parse_moment
from adrag_site.errors import ServiceError
from adrag_site.models import ApiToken, AuditEvent
from adrag_site.pagination import PageSizePagination
from adrag_site.schema import error_responses
from adrag_site.tokens import token_create

MAX_TOKENS_PER_USER = 50
MAX_EXPIRY_DAYS = 3650


class TokenOutput(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "scope", "prefix", "created_at", "last_used_at", "expires_at"]


class TokenCreatedOutput(TokenOutput):
    key = serializers.CharField(help_text="The key: shown this once, never again.")

    class Meta(TokenOutput.Meta):
        fields = [*TokenOutput.Meta.fields, "key"]


class TokenInput(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    scope = serializers.ChoiceField(choices=ApiToken.Scope.choices)
    expires_in_days = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=MAX_EXPIRY_DAYS,
        help_text="Omitted or null: the token never expires.",
    )


class TokenListApi(APIView):
    """The caller's API tokens (never their keys), or a new one."""

    @extend_schema(
        operation_id="tokens_list", tags=["tokens"], responses={200: TokenOutput(many=True)}
    )
    def get(self, request):
        tokens = ApiToken.objects.filter(user=request.user)
        return Response(TokenOutput(tokens, many=True).data)

    @extend_schema(
        operation_id="tokens_create",
        tags=["tokens"],
        request=TokenInput,
        responses={201: TokenCreatedOutput, **error_responses(400, 409)},
        description="`read`: every GET; `ask`: also POST /api/query and a run's rerun, cancel "
        "and feedback; `manage`: everything the user may do. The key is in this answer only.",
    )
    def post(self, request):
        data = TokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        if ApiToken.objects.filter(user=request.user).count() >= MAX_TOKENS_PER_USER:
            raise ServiceError(
                409, "too_many_tokens", f"You have {MAX_TOKENS_PER_USER} tokens; revoke one first."
            )
        token, key = token_create(
            user=request.user,
            name=data.validated_data["name"],
            scope=data.validated_data["scope"],
            expires_in_days=data.validated_data.get("expires_in_days"),
        )
        creator = request.auth if isinstance(request.auth, ApiToken) else None
        if creator is not None and creator.expires_at is not None:
            # A token made with an expiring token expires no later than it.
            if token.expires_at is None or token.expires_at > creator.expires_at:
                token.expires_at = creator.expires_at
                token.save(update_fields=["expires_at"])
        audit_record(audit.TOKEN_CREATED, target=token, name=token.name, scope=token.scope)
        body = TokenOutput(token).data
        body["key"] = key
        return Response(body, status=status.HTTP_201_CREATED)


class TokenDetailApi(APIView):
    """Revoke one of the caller's tokens."""

    @extend_schema(
        operation_id="tokens_destroy",
        tags=["tokens"],
        parameters=[OpenApiParameter("token_id", int, OpenApiParameter.PATH)],
        responses={204: None, **error_responses(404)},
    )
    def delete(self, request, token_id):
        token = ApiToken.objects.filter(user=request.user, id=token_id).first()
        if token is None:
            raise ServiceError(404, "not_found", "No such token.")
        audit_record(audit.TOKEN_REVOKED, target=token, name=token.name, scope=token.scope)
        token.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class AuditEventOutput(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor_name")

    class Meta:
        model = AuditEvent
        fields = [
            "id",
            "at",
            "actor",
            "action",
            "target_type",
            "target_id",
            "ip",
            "request_id",
            "details",
        ]


class AuditEventPageOutput(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = AuditEventOutput(many=True)


class AuditEventListApi(APIView):
    """The audit trail, newest first (staff only), filterable and paginated."""

    @extend_schema(
        operation_id="audit_events_list",
        tags=["audit"],
        parameters=[
            OpenApiParameter("actor", str, description="A user name."),
            OpenApiParameter("action", str, enum=list(audit.ACTIONS)),
            OpenApiParameter("target_type", str, description="document, knowledgebase, ..."),
            OpenApiParameter("target_id", str),
            OpenApiParameter("since", str, description="At or after: an ISO date or date-time."),
            OpenApiParameter("until", str, description="Before: an ISO date or date-time."),
            OpenApiParameter("page", int),
            OpenApiParameter("page_size", int, description="At most 200."),
        ],
        responses={200: AuditEventPageOutput, **error_responses(400, 403)},
    )
    def get(self, request):
        if not request.user.is_staff:
            raise ServiceError(403, "permission_denied", "The audit trail is for staff.")
        params = request.query_params
        events = AuditEvent.objects.all()
        if params.get("action"):
            if params["action"] not in audit.ACTIONS:
                raise ServiceError(
                    400, "invalid_request", f"action must be one of {', '.join(audit.ACTIONS)}."
                )
            events = events.filter(action=params["action"])
        for field in ("target_type", "target_id"):
            if params.get(field):
                events = events.filter(**{field: params[field]})
        if params.get("actor"):
            events = events.filter(actor_name=params["actor"])
        for name, lookup in (("since", "at__gte"), ("until", "at__lt")):
            if params.get(name):
                moment = parse_moment(params[name])
                if moment is None:
                    raise ServiceError(
                        400, "invalid_request", f"{name} must be an ISO date or date-time."
                    )
                if not isinstance(moment, datetime):
                    moment = day_start(moment)
                events = events.filter(**{lookup: moment})
        paginator = PageSizePagination()
        page = paginator.paginate_queryset(events, request, view=self)
        return paginator.get_paginated_response(AuditEventOutput(page, many=True).data)
