"""The web-source API: a knowledge base's web sources, each one's sync and its deletion."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from adrag_site.schema import error_responses
from knowledge import selectors
from knowledge.apis import KB_ID
from knowledge.models import WebSource
from knowledge.serializers import WebSourceInput, WebSourceOutput
from knowledge.web_sources import web_source_create, web_source_delete, web_source_queue

SOURCE_ID = OpenApiParameter("source_id", int, OpenApiParameter.PATH)


def _source_for(request, source_id, level: str) -> WebSource:
    """Return a web source of a knowledge base the caller may use at `level`, or raise 404."""
    key = str(source_id)
    source = None
    if key.isascii() and key.isdigit():
        source = WebSource.objects.select_related("knowledge_base").filter(id=key).first()
    if source is None:
        raise Http404("No such web source.")
    selectors.kb_get_for_user(kb_id=source.knowledge_base_id, user=request.user, level=level)
    return source


class KnowledgeBaseSourcesApi(APIView):
    """A knowledge base's web sources, or a new one (crawled at once, then on its schedule)."""

    @extend_schema(
        operation_id="knowledge_bases_sources_list",
        tags=["knowledge"],
        parameters=[KB_ID],
        responses={200: WebSourceOutput(many=True), **error_responses(404)},
    )
    def get(self, request, kb_id):
        kb = selectors.kb_get_for_user(kb_id=kb_id, user=request.user)
        return Response(WebSourceOutput(kb.web_sources.all(), many=True).data)

    @extend_schema(
        operation_id="knowledge_bases_sources_create",
        tags=["knowledge"],
        parameters=[KB_ID],
        request=WebSourceInput,
        responses={201: WebSourceOutput, **error_responses(400, 403, 404)},
        description="Pages of the start URL's site, to `depth` links away and at most "
        "`max_pages`, honouring robots.txt; private, loopback and link-local addresses are "
        "refused (`forbidden_address`) unless WEB_SOURCES_ALLOWED_HOSTS names them.",
    )
    def post(self, request, kb_id):
        kb = selectors.kb_get_for_user(kb_id=kb_id, user=request.user, level=selectors.WRITE)
        data = WebSourceInput(data=request.data)
        data.is_valid(raise_exception=True)
        source = web_source_create(kb=kb, user=request.user, **data.validated_data)
        return Response(WebSourceOutput(source).data, status=status.HTTP_201_CREATED)


class WebSourceDetailApi(APIView):
    """One web source with its sync's progress and counts; delete it with its pages."""

    @extend_schema(
        operation_id="sources_retrieve",
        tags=["knowledge"],
        parameters=[SOURCE_ID],
        responses={200: WebSourceOutput, **error_responses(404)},
    )
    def get(self, request, source_id):
        return Response(WebSourceOutput(_source_for(request, source_id, selectors.READ)).data)

    @extend_schema(
        operation_id="sources_destroy",
        tags=["knowledge"],
        parameters=[SOURCE_ID],
        responses={204: None, **error_responses(403, 404)},
    )
    def delete(self, request, source_id):
        web_source_delete(source=_source_for(request, source_id, selectors.WRITE))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebSourceSyncApi(APIView):
    """Sync a web source now."""

    @extend_schema(
        operation_id="sources_sync_create",
        tags=["knowledge"],
        parameters=[SOURCE_ID],
        request=None,
        responses={202: WebSourceOutput, **error_responses(403, 404)},
    )
    def post(self, request, source_id):
        source = web_source_queue(source=_source_for(request, source_id, selectors.WRITE))
        return Response(WebSourceOutput(source).data, status=status.HTTP_202_ACCEPTED)
