"""GET /api/providers: availability and models per provider; keys never leave the server."""

from __future__ import annotations

from rest_framework.response import Response
from rest_framework.views import APIView

from providers.llm.registry import providers_report


class ProviderListApi(APIView):
    def get(self, request):
        return Response(providers_report())
