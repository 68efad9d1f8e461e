"""The caller's own API tokens: make one (its key shown once), list them, revoke one."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from adrag_site.errors import ServiceError
from adrag_site.models import ApiToken
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
        deleted, _ = ApiToken.objects.filter(user=request.user, id=token_id).delete()
        if not deleted:
            raise ServiceError(404, "not_found", "No such token.")
        return Response(status=status.HTTP_204_NO_CONTENT)
