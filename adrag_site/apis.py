"""The caller's own API tokens: make one (its key shown once), list them, revoke one; the audit
trail, for staff."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import Group
from django.db.models import Count
from django.http import Http404
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
from adrag_site.teams import team_create, team_member_add, team_member_remove
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


# ---- Teams (staff): make one, add and remove members, see its knowledge bases ----------------

TEAM_ID = OpenApiParameter("team_id", int, OpenApiParameter.PATH)
USER_ID = OpenApiParameter("user_id", int, OpenApiParameter.PATH)


class TeamSummaryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    member_count = serializers.IntegerField()
    knowledge_base_count = serializers.IntegerField()


class TeamMemberOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_staff = serializers.BooleanField()


class TeamKnowledgeBaseOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.CharField(source="owner.username")
    document_count = serializers.IntegerField()


class TeamDetailOutput(TeamSummaryOutput):
    members = TeamMemberOutput(many=True)
    knowledge_bases = TeamKnowledgeBaseOutput(many=True)


class TeamInput(serializers.Serializer):
    name = serializers.CharField(max_length=150)


class TeamMemberInput(serializers.Serializer):
    username = serializers.CharField(max_length=150)


def _staff_only(request) -> None:
    if not request.user.is_staff:
        raise ServiceError(403, "permission_denied", "Teams are managed by staff.")


def _teams():
    return Group.objects.annotate(
        member_count=Count("user", distinct=True),
        knowledge_base_count=Count("knowledge_bases", distinct=True),
    ).order_by("name")


def _team(request, team_id):
    _staff_only(request)
    team = _teams().filter(id=team_id).first() if str(team_id).isdigit() else None
    if team is None:
        raise Http404
    return team


def _team_detail(team) -> dict:
    return {
        "id": team.id,
        "name": team.name,
        "member_count": team.member_count,
        "knowledge_base_count": team.knowledge_base_count,
        "members": list(team.user_set.order_by("username")),
        "knowledge_bases": list(
            team.knowledge_bases.select_related("owner")
            .annotate(document_count=Count("documents"))
            .order_by("name")
        ),
    }


class TeamListApi(APIView):
    """Every team, with its member and knowledge base counts, or a new team (staff only)."""

    @extend_schema(
        operation_id="teams_list",
        tags=["teams"],
        responses={200: TeamSummaryOutput(many=True), **error_responses(403)},
    )
    def get(self, request):
        _staff_only(request)
        return Response(TeamSummaryOutput(_teams(), many=True).data)

    @extend_schema(
        operation_id="teams_create",
        tags=["teams"],
        request=TeamInput,
        responses={201: TeamSummaryOutput, **error_responses(400, 403, 409)},
    )
    def post(self, request):
        _staff_only(request)
        data = TeamInput(data=request.data)
        data.is_valid(raise_exception=True)
        team = team_create(name=data.validated_data["name"], actor=request.user)
        return Response(
            TeamSummaryOutput(_teams().get(id=team.id)).data, status=status.HTTP_201_CREATED
        )


class TeamDetailApi(APIView):
    """A team: its members and its knowledge bases (staff only)."""

    @extend_schema(
        operation_id="teams_retrieve",
        tags=["teams"],
        parameters=[TEAM_ID],
        responses={200: TeamDetailOutput, **error_responses(403, 404)},
    )
    def get(self, request, team_id):
        return Response(TeamDetailOutput(_team_detail(_team(request, team_id))).data)


class TeamMemberListApi(APIView):
    """Add a member to a team, by user name (staff only)."""

    @extend_schema(
        operation_id="teams_members_add",
        tags=["teams"],
        parameters=[TEAM_ID],
        request=TeamMemberInput,
        responses={200: TeamDetailOutput, **error_responses(400, 403, 404)},
    )
    def post(self, request, team_id):
        team = _team(request, team_id)
        data = TeamMemberInput(data=request.data)
        data.is_valid(raise_exception=True)
        team_member_add(team=team, username=data.validated_data["username"], actor=request.user)
        return Response(TeamDetailOutput(_team_detail(_team(request, team_id))).data)


class TeamMemberApi(APIView):
    """Take a member out of a team (staff only)."""

    @extend_schema(
        operation_id="teams_members_remove",
        tags=["teams"],
        parameters=[TEAM_ID, USER_ID],
        request=None,
        responses={200: TeamDetailOutput, **error_responses(403, 404)},
    )
    def delete(self, request, team_id, user_id):
        team = _team(request, team_id)
        team_member_remove(team=team, user_id=int(user_id), actor=request.user)
        return Response(TeamDetailOutput(_team_detail(_team(request, team_id))).data)
