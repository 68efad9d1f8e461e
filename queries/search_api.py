"""POST /api/search: the passages a hybrid search finds, without an answer; the MCP `search`
tool's REST twin (one selector, `queries.selectors.passages_search`, serves both)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from adrag_site.parsers import JSONParser
from adrag_site.schema import error_responses
from queries.inputs import SearchInput
from queries.selectors import passages_search


class SearchPassageOutput(serializers.Serializer):
    chunk_id = serializers.IntegerField()
    document_id = serializers.IntegerField()
    knowledge_base_id = serializers.IntegerField()
    file_name = serializers.CharField()
    page = serializers.IntegerField(allow_null=True)
    section = serializers.ListField(
        child=serializers.CharField(), help_text="The headings above the passage."
    )
    kind = serializers.CharField()
    text = serializers.CharField()
    score = serializers.FloatField(help_text="The fused rank score.")
    found_by = serializers.ListField(
        child=serializers.CharField(), help_text="The stores that found it."
    )
    link = serializers.CharField(help_text="Opens the passage in the document viewer.")


class SearchOutput(serializers.Serializer):
    knowledge_bases = serializers.ListField(
        child=serializers.IntegerField(), help_text="The knowledge bases searched."
    )
    passages = SearchPassageOutput(many=True, help_text="Best first.")


class SearchApi(APIView):
    """Search knowledge bases (dense, BM25 and entity-graph retrieval fused by rank) and return
    the best passages with file, page, section, score and a link to each. No run is made."""

    parser_classes = [JSONParser]

    @extend_schema(
        operation_id="search",
        tags=["search"],
        request=SearchInput,
        responses={200: SearchOutput, **error_responses(400, 404)},
    )
    def post(self, request):
        data = SearchInput(data=request.data).validated()
        found = passages_search(
            user=request.user,
            query=data["query"],
            kb_ids=data["knowledge_bases"],
            filters=data["filters"],
            k=data["k"],
            base=request.build_absolute_uri("/").rstrip("/"),
        )
        return Response(found)
