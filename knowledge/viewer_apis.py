"""The document viewer's API (knowledge/pages.py): a document's passages around the cited one,
its scan as an image, and its stored file as a download."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from adrag_site.audit import DOCUMENT_DOWNLOADED, audit_record
from adrag_site.errors import ServiceError
from adrag_site.schema import error_responses
from knowledge import selectors
from knowledge.apis import DOCUMENT_ID
from knowledge.serializers import DocumentOutput, PassageListOutput

# A document viewer's reading (knowledge/pages.py): its passages, and the stored file.
MAX_PASSAGES = 5000


class DocumentPassagesApi(APIView):
    """A document's passages (its chunks) in order, for the viewer a citation opens."""

    @extend_schema(
        tags=["knowledge"],
        parameters=[
            DOCUMENT_ID,
            OpenApiParameter(
                "around",
                int,
                description="A passage (chunk) id: the window of passages is centred on it.",
            ),
        ],
        responses={200: PassageListOutput, **error_responses(400, 404)},
    )
    def get(self, request, document_id):
        document = selectors.document_get_for_user(document_id=document_id, user=request.user)
        passages = document.chunks.order_by("ordinal")
        around = request.query_params.get("around", "")
        if around and not around.isdigit():
            raise ServiceError(400, "invalid_request", "around must be a passage (chunk) id.")
        cited = passages.filter(id=int(around)).first() if around else None
        if cited is not None:
            # A window of passages centred on the cited one, however long the document.
            start = max(cited.ordinal - MAX_PASSAGES // 2, 0)
            passages = passages.filter(ordinal__gte=start)
        rows = list(
            passages.values("id", "ordinal", "page", "section", "kind", "text")[: MAX_PASSAGES + 1]
        )
        # Where OCR read the lines of the cited passage's page (a scan): the viewer marks the
        # passage on the page's image.
        page = str(cited.page) if cited is not None and cited.page else ""
        boxes = (document.ocr_boxes or {}).get(page) or []
        return Response(
            {
                "document": DocumentOutput(document).data,
                "passages": rows[:MAX_PASSAGES],
                "truncated": len(rows) > MAX_PASSAGES,
                "ocr_boxes": {"page": int(page), "boxes": boxes} if boxes else None,
            }
        )


# Scans a browser shows as they are; a TIFF (which it cannot) keeps the viewer's text.
SCAN_TYPES = {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg"}


class DocumentScanApi(APIView):
    """A scanned image document as an image the viewer shows, with the cited passage marked
    over it (PNG and JPEG; 404 for any other document)."""

    @extend_schema(
        tags=["knowledge"],
        parameters=[DOCUMENT_ID],
        responses={(200, "image/png"): OpenApiTypes.BINARY, **error_responses(404)},
    )
    def get(self, request, document_id):
        document = selectors.document_get_for_user(document_id=document_id, user=request.user)
        kind = SCAN_TYPES.get(document.file_type.lower().lstrip("."))
        path = Path(settings.MEDIA_ROOT, document.stored_path)
        if kind is None or not document.stored_path or not path.is_file():
            raise Http404("The document is no image the viewer shows.")
        response = FileResponse(path.open("rb"), content_type=kind)
        response["X-Content-Type-Options"] = "nosniff"
        response["Content-Security-Policy"] = "sandbox; default-src 'none'"
        response["Cache-Control"] = "private, max-age=300"
        return response


class DocumentFileApi(APIView):
    """The stored file of a document, as uploaded: always a download, never a page."""

    @extend_schema(
        tags=["knowledge"],
        parameters=[DOCUMENT_ID],
        responses={
            (200, "application/octet-stream"): OpenApiTypes.BINARY,
            **error_responses(404),
        },
    )
    def get(self, request, document_id):
        document = selectors.document_get_for_user(document_id=document_id, user=request.user)
        path = Path(settings.MEDIA_ROOT, document.stored_path)
        if not document.stored_path or not path.is_file():
            raise Http404("The document's file is no longer stored.")
        # An uploaded HTML or SVG file must never run as a page of this site.
        response = FileResponse(
            path.open("rb"),
            as_attachment=True,
            filename=document.file_name,
            content_type="application/octet-stream",
        )
        response["X-Content-Type-Options"] = "nosniff"
        response["Content-Security-Policy"] = "sandbox; default-src 'none'"
        audit_record(
            DOCUMENT_DOWNLOADED, target=document, request=request, file_name=document.file_name
        )
        return response
