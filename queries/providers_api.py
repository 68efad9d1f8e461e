"""GET /api/providers: each provider's availability, models and strategy; keys never leave."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from queries.answering.registry import providers_report


class ProviderOutput(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    available = serializers.BooleanField()
    models = serializers.ListField(child=serializers.CharField())
    default_model = serializers.CharField(allow_blank=True)
    strategy = serializers.CharField(
        help_text="How the provider answers (ANSWER_STRATEGIES): `model` (the model plans, "
        "answers and judges), `quote_first` (the passages quoted first, the model writes when "
        "the check does not verify the quote) or `extractive` (no model)."
    )
    error = serializers.CharField(required=False, help_text="Why the provider could not load.")


class ProviderListOutput(serializers.Serializer):
    providers = serializers.DictField(child=ProviderOutput(), help_text="By provider name.")
    default_provider = serializers.CharField()


class ProviderListApi(APIView):
    """The answer providers, whether each is available, and their models."""

    @extend_schema(tags=["providers"], responses={200: ProviderListOutput})
    def get(self, request):
        return Response(providers_report())
