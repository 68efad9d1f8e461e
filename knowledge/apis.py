"""The knowledge-base API: thin DRF views over selectors and services.

Knowledge bases, their documents and the spec's routes are here; the document viewer's routes
are in knowledge/viewer_apis.py, and web sources' in knowledge/source_apis.py."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from adrag_site.errors import ServiceError
from adrag_site.parsers import FormParser, JSONParser, MultiPartParser
from adrag_site.schema import error_responses
from knowledge import selectors, services
from knowledge.models import Document, KnowledgeBase
from knowledge.serializers import (
    ClearOutput,
    DocumentDeleteOutput,
    DocumentListOutput,
    DocumentOutput,
    KnowledgeBaseDeleteOutput,
    KnowledgeBaseListOutput,
    KnowledgeBaseOutput,
    KnowledgeBaseStatsOutput,
    SpecDocumentsOutput,
    SpecUploadInput,
    SpecUploadOutput,
    UploadFailedOutput,
    UploadInput,
    UploadNoneAcceptedOutput,
    UploadOutput,
)

KB_ID = OpenApiParameter("kb_id", int, OpenApiParameter.PATH, description="A knowledge base id.")
DOCUMENT_ID = OpenApiParameter("document_id", int, OpenApiParameter.PATH)
# What an upload may answer besides success (the ServiceErrors of knowledge.services).
UPLOAD_ERRORS = error_responses(403, 404, 409, 413, 415, 422, 429)


def _is_id(value: str) -> bool:
    # str.isdigit() also accepts "²" and other non-ASCII digits, which are no id.
    return value.isascii() and value.isdigit()


class KnowledgeBaseListApi(APIView):
    """List the knowledge bases the caller may read, newest first, or create one."""

    @extend_schema_serializer(component_name="KnowledgeBaseCreate")
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        description = serializers.CharField(required=False, allow_blank=True, default="")
        team = serializers.CharField(
            required=False, allow_null=True, default=None, help_text="A team's name or id."
        )

    @extend_schema(
        operation_id="knowledge_bases_list",
        tags=["knowledge"],
        responses={200: KnowledgeBaseListOutput},
    )
    def get(self, request):
        data = KnowledgeBaseOutput(selectors.kb_list_with_counts(user=request.user), many=True).data
        return Response({"knowledge_bases": data, "count": len(data)})

    @extend_schema(
        tags=["knowledge"],
        request=InputSerializer,
        responses={201: KnowledgeBaseOutput, **error_responses(400, 409)},
    )
    def post(self, request):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        values = serializer.validated_data
        kb = services.kb_create(
            owner=request.user,
            name=values["name"],
            description=values["description"],
            team=selectors.team_get_for_user(value=values["team"], user=request.user),
        )
        return Response(KnowledgeBaseOutput(kb).data, status=status.HTTP_201_CREATED)


class KnowledgeBaseDetailApi(APIView):
    """Get, rename or share, or delete one knowledge base."""

    @extend_schema_serializer(component_name="KnowledgeBaseUpdate")
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200, required=False)
        description = serializers.CharField(required=False, allow_blank=True)
        team = serializers.CharField(
            required=False,
            allow_null=True,
            allow_blank=True,
            help_text="A team's name or id; null or empty to stop sharing.",
        )

    @extend_schema(
        tags=["knowledge"],
        parameters=[KB_ID],
        responses={200: KnowledgeBaseOutput, **error_responses(404)},
    )
    def get(self, request, kb_id):
        kb = selectors.kb_get_for_user(kb_id=kb_id, user=request.user)
        return Response(KnowledgeBaseOutput(kb).data)

    @extend_schema(
        tags=["knowledge"],
        parameters=[KB_ID],
        request=InputSerializer,
        responses={200: KnowledgeBaseOutput, **error_responses(400, 403, 404, 409)},
    )
    def patch(self, request, kb_id):
        kb = selectors.kb_get_for_user(kb_id=kb_id, user=request.user, level=selectors.MANAGE)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        changes = dict(serializer.validated_data)
        if "team" in changes:
            changes["team"] = selectors.team_get_for_user(value=changes["team"], user=request.user)
        services.kb_update(kb=kb, user=request.user, **changes)
        return Response(KnowledgeBaseOutput(kb).data)

    put = patch

    @extend_schema(
        tags=["knowledge"],
        parameters=[
            OpenApiParameter(
                "kb_id",
                str,
                OpenApiParameter.PATH,
                description="A knowledge base id, or (the spec's route) a document's sha256: "
                "removes that file from every knowledge base the caller may write to.",
            )
        ],
        responses={200: KnowledgeBaseDeleteOutput, **error_responses(403)},
        description="Idempotent: an id the caller cannot see answers 200 with `deleted: false`.",
    )
    def delete(self, request, kb_id):
        # The spec's DELETE /api/knowledge-bases/<file_hash> removed one indexed file and was
        # idempotent; a hex id here is a document hash, an integer id is a knowledge base.
        key = str(kb_id)
        if not _is_id(key):
            return self._delete_by_hash(request, key.lower())
        try:
            kb = selectors.kb_get_for_user(kb_id=key, user=request.user, level=selectors.MANAGE)
        except Http404:
            return Response(
                {"message": "Knowledge base not found; nothing to delete.", "deleted": False}
            )
        services.kb_delete(kb=kb)
        return Response(
            {"message": f"Knowledge base {kb.name!r} deleted.", "deleted": True, "id": int(key)}
        )

    def _delete_by_hash(self, request, sha256: str):
        documents = [
            document
            for document in selectors.document_list_for_user(user=request.user)
            .select_related("knowledge_base")
            .filter(sha256=sha256)
            if selectors.kb_can_write(kb=document.knowledge_base, user=request.user)
        ]
        for document in documents:
            services.document_delete(document=document)
        return Response(
            {
                "message": f"Removed {len(documents)} document(s) with hash {sha256}.",
                "deleted": bool(documents),
                "file_hash": sha256,
            }
        )


def _upload_files(request) -> list:
    files = request.FILES.getlist("file")
    if not files:
        raise ServiceError(
            400, "no_file", "No file part: send the file in the multipart field 'file'."
        )
    return files


def _upload_into(kb: KnowledgeBase, request) -> tuple[list[dict], list[dict]]:
    """Upload every file of the request into `kb` (which the caller may write to)."""
    files = _upload_files(request)
    accepted, rejected = [], []
    for upload in files:
        try:
            document, queued = services.document_upload(
                kb=kb, file_name=upload.name or "", data=upload, user=request.user
            )
        except ServiceError as exc:
            if len(files) == 1:
                raise
            rejected.append(
                {
                    "file_name": upload.name,
                    "error": exc.message,
                    "code": exc.code,
                    "status": exc.status,
                }
            )
            continue
        accepted.append({**DocumentOutput(document).data, "queued": queued})
    return accepted, rejected


class KnowledgeBaseDocumentsApi(APIView):
    """List a knowledge base's documents, or upload files into it (field `file`, repeatable)."""

    parser_classes = [MultiPartParser, FormParser, JSONParser]

    @extend_schema(
        tags=["knowledge"],
        parameters=[
            KB_ID,
            OpenApiParameter("status", OpenApiTypes.STR, enum=Document.Status.values),
        ],
        responses={200: DocumentListOutput, **error_responses(404)},
    )
    def get(self, request, kb_id):
        kb = selectors.kb_get_for_user(kb_id=kb_id, user=request.user)
        documents = kb.documents.all()
        status_filter = request.query_params.get("status")
        if status_filter:
            if status_filter not in Document.Status.values:
                raise ServiceError(400, "invalid_request", f"Unknown status: {status_filter}.")
            documents = documents.filter(status=status_filter)
        return Response({"documents": DocumentOutput(documents, many=True).data})

    @extend_schema(
        tags=["knowledge"],
        parameters=[KB_ID],
        request={"multipart/form-data": UploadInput},
        responses={
            202: UploadOutput,
            400: OpenApiResponse(
                UploadNoneAcceptedOutput,
                description="No file was sent, or none of several files was accepted.",
            ),
            **UPLOAD_ERRORS,
        },
    )
    def post(self, request, kb_id):
        kb = selectors.kb_get_for_user(kb_id=kb_id, user=request.user, level=selectors.WRITE)
        accepted, rejected = _upload_into(kb, request)
        code = status.HTTP_202_ACCEPTED if accepted else status.HTTP_400_BAD_REQUEST
        body = {"documents": accepted, "rejected": rejected}
        if not accepted:
            body.update(error="No file was accepted.", code="no_file_accepted")
        return Response(body, status=code)


class KnowledgeBaseStatsApi(APIView):
    """Counts of one knowledge base's documents and its three stores."""

    @extend_schema(
        tags=["knowledge"],
        parameters=[KB_ID],
        responses={200: KnowledgeBaseStatsOutput, **error_responses(404)},
    )
    def get(self, request, kb_id):
        kb = selectors.kb_get_for_user(kb_id=kb_id, user=request.user)
        return Response(selectors.kb_stats(kb=kb))


class DocumentDetailApi(APIView):
    """Get one document (poll it for ingestion progress), or delete it."""

    @extend_schema(
        tags=["knowledge"],
        parameters=[DOCUMENT_ID],
        responses={200: DocumentOutput, **error_responses(404)},
    )
    def get(self, request, document_id):
        document = selectors.document_get_for_user(document_id=document_id, user=request.user)
        return Response(DocumentOutput(document).data)

    @extend_schema(
        tags=["knowledge"],
        parameters=[DOCUMENT_ID],
        responses={200: DocumentDeleteOutput, **error_responses(403, 404)},
    )
    def delete(self, request, document_id):
        document = selectors.document_get_for_user(
            document_id=document_id, user=request.user, level=selectors.WRITE
        )
        services.document_delete(document=document)
        return Response(
            {"message": f"{document.file_name} deleted.", "deleted": True, "id": document.id}
        )


class DocumentCancelApi(APIView):
    """Cancel a queued or running ingestion."""

    @extend_schema(
        tags=["knowledge"],
        parameters=[DOCUMENT_ID],
        request=None,
        responses={202: DocumentOutput, **error_responses(403, 404, 409)},
    )
    def post(self, request, document_id):
        document = selectors.document_get_for_user(
            document_id=document_id, user=request.user, level=selectors.WRITE
        )
        document = services.document_cancel(document=document, strict=True)
        return Response(DocumentOutput(document).data, status=status.HTTP_202_ACCEPTED)


class DocumentReindexApi(APIView):
    """Queue a fresh ingestion of a stored document."""

    @extend_schema(
        tags=["knowledge"],
        parameters=[DOCUMENT_ID],
        request=None,
        responses={202: DocumentOutput, **error_responses(403, 404, 409)},
    )
    def post(self, request, document_id):
        document = selectors.document_get_for_user(
            document_id=document_id, user=request.user, level=selectors.WRITE
        )
        if not services.document_reindex(document=document):
            raise ServiceError(
                409, "already_active", "An ingestion of this document is already under way."
            )
        document.refresh_from_db()
        return Response(DocumentOutput(document).data, status=status.HTTP_202_ACCEPTED)


# The spec's routes, with its response shapes, scoped to what the caller may see.


class SpecUploadApi(APIView):
    """POST /api/upload: into `knowledge_base` (form field) or the caller's default KB."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        tags=["knowledge"],
        request={"multipart/form-data": SpecUploadInput},
        responses={
            202: SpecUploadOutput,
            400: OpenApiResponse(UploadFailedOutput, description="No file was accepted."),
            **UPLOAD_ERRORS,
        },
    )
    def post(self, request):
        kb_id = request.data.get("knowledge_base") or request.query_params.get("knowledge_base")
        if kb_id:
            kb = selectors.kb_get_for_user(kb_id=kb_id, user=request.user, level=selectors.WRITE)
        else:
            kb = services.kb_default_for_user(user=request.user)
        accepted, rejected = _upload_into(kb, request)
        if not accepted:
            return Response(
                {
                    "error": "No file was accepted.",
                    "code": "no_file_accepted",
                    "rejected": rejected,
                },
                status=status.HTTP_400_BAD_REQUEST,
            )
        first = accepted[0]
        return Response(
            {
                "message": f"{first['file_name']} queued for indexing",
                "file_name": first["file_name"],
                "file_hash": first["sha256"],
                "knowledge_base": kb.id,
                "document_id": first["id"],
                "status": first["status"],
                "chunks": first["chunk_count"],
                "vectors": first["chunk_count"],
                "entities": first["entity_count"],
                "edges": first["edge_count"],
                "documents": accepted,
                "rejected": rejected,
            },
            status=status.HTTP_202_ACCEPTED,
        )


class SpecDocumentsApi(APIView):
    """GET /api/documents: index counts over the knowledge bases the caller may read."""

    @extend_schema(
        operation_id="documents_counts",
        tags=["knowledge"],
        responses={200: SpecDocumentsOutput},
    )
    def get(self, request):
        return Response(selectors.index_counts_for_user(user=request.user))


class SpecClearApi(APIView):
    """DELETE /api/clear: remove every document of the caller's own KBs (staff: of all KBs)."""

    @extend_schema(tags=["knowledge"], responses={200: ClearOutput})
    def delete(self, request):
        deleted = services.kb_clear_for_user(user=request.user)
        return Response(
            {"message": f"Cleared {deleted} document(s).", "documents_deleted": deleted}
        )
