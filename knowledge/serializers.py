"""The knowledge API's output serializers, and the shapes of the bodies its views build as dicts.

Several views answer with plain dicts (the spec's shapes); the serializers of those only
describe them, so that the OpenAPI schema, and the fuzzer that checks responses against it,
see the real shapes.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from knowledge.models import Document, KnowledgeBase, WebSource


class TeamOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class ProgressOutput(serializers.Serializer):
    stage = serializers.ChoiceField(choices=Document.Status.choices)
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.FloatField()


class UnreadablePageOutput(serializers.Serializer):
    page = serializers.IntegerField(allow_null=True)
    reason = serializers.ChoiceField(
        choices=["over_budget", "no_text_found", "unreadable_image", "over_page_limit"]
    )
    message = serializers.CharField()


class KnowledgeBaseDeleteOutput(serializers.Serializer):
    message = serializers.CharField()
    deleted = serializers.BooleanField()
    id = serializers.IntegerField(required=False, help_text="The deleted knowledge base.")
    file_hash = serializers.CharField(
        required=False, help_text="When the id was a document hash: the hash."
    )


class RejectedFileOutput(serializers.Serializer):
    file_name = serializers.CharField(allow_null=True)
    error = serializers.CharField()
    code = serializers.CharField()
    status = serializers.IntegerField()


class UploadInput(serializers.Serializer):
    file = serializers.FileField(help_text="A file to index; repeat the field for several.")


class SpecUploadInput(UploadInput):
    knowledge_base = serializers.IntegerField(
        required=False, help_text="The knowledge base; default the caller's own `Default`."
    )


class UploadFailedOutput(serializers.Serializer):
    """The error body of an upload: one file's error, or each file's when several were sent."""

    error = serializers.CharField()
    code = serializers.CharField()
    rejected = RejectedFileOutput(
        many=True, required=False, help_text="When several files were sent: why each failed."
    )


class KnowledgeBaseStatsOutput(serializers.Serializer):
    id = serializers.IntegerField()
    documents = serializers.IntegerField()
    documents_by_status = serializers.DictField(child=serializers.IntegerField())
    chunks = serializers.IntegerField()
    tokens = serializers.IntegerField()
    average_chunk_tokens = serializers.FloatField()
    postings = serializers.IntegerField()
    entities = serializers.IntegerField()
    edges = serializers.IntegerField()
    bytes = serializers.IntegerField()


class GraphCountsOutput(serializers.Serializer):
    nodes = serializers.IntegerField()
    edges = serializers.IntegerField()
    entities = serializers.IntegerField()


class SpecDocumentsOutput(serializers.Serializer):
    vector_count = serializers.IntegerField()
    bm25_count = serializers.IntegerField()
    graph = GraphCountsOutput()
    documents = serializers.IntegerField()
    knowledge_bases = serializers.IntegerField()


class DocumentDeleteOutput(serializers.Serializer):
    message = serializers.CharField()
    deleted = serializers.BooleanField()
    id = serializers.IntegerField()


class ClearOutput(serializers.Serializer):
    message = serializers.CharField()
    documents_deleted = serializers.IntegerField()


class KnowledgeBaseOutput(serializers.ModelSerializer):
    team = serializers.SerializerMethodField()
    owner = serializers.CharField(source="owner.username")
    document_count = serializers.SerializerMethodField()

    class Meta:
        model = KnowledgeBase
        fields = [
            "id",
            "name",
            "description",
            "owner",
            "team",
            "chunk_count",
            "document_count",
            "created_at",
            "updated_at",
        ]

    @extend_schema_field(TeamOutput(allow_null=True))
    def get_team(self, kb: KnowledgeBase):
        return {"id": kb.team_id, "name": kb.team.name} if kb.team_id else None

    def get_document_count(self, kb: KnowledgeBase) -> int:
        annotated = getattr(kb, "document_total", None)
        return annotated if annotated is not None else kb.documents.count()


class DocumentOutput(serializers.ModelSerializer):
    knowledge_base = serializers.IntegerField(source="knowledge_base_id")
    progress = serializers.SerializerMethodField()
    ocr_pages = serializers.ListField(
        child=serializers.IntegerField(), help_text="The pages read by OCR (scans, images)."
    )
    unreadable_pages = UnreadablePageOutput(
        many=True, help_text="The pages OCR could not turn into text, and why."
    )

    class Meta:
        model = Document
        fields = [
            "id",
            "knowledge_base",
            "file_name",
            "sha256",
            "size",
            "file_type",
            "encoding",
            "status",
            "progress",
            "error",
            "error_code",
            "page_count",
            "ocr_pages",
            "unreadable_pages",
            "chunk_count",
            "entity_count",
            "edge_count",
            "created_at",
            "updated_at",
            "indexed_at",
        ]

    @extend_schema_field(ProgressOutput)
    def get_progress(self, document: Document) -> dict:
        total = document.progress_total
        return {
            "stage": document.status,
            "done": document.progress_done,
            "total": total,
            "percent": round(100 * document.progress_done / total, 1)
            if total
            else (100.0 if document.status == Document.Status.READY else 0.0),
        }


class UploadedDocumentOutput(DocumentOutput):
    queued = serializers.BooleanField(
        help_text="False when the same bytes were already being indexed."
    )

    class Meta(DocumentOutput.Meta):
        fields = [*DocumentOutput.Meta.fields, "queued"]


class UploadOutput(serializers.Serializer):
    documents = UploadedDocumentOutput(many=True)
    rejected = RejectedFileOutput(many=True)


class UploadNoneAcceptedOutput(UploadFailedOutput):
    documents = UploadedDocumentOutput(many=True, required=False)


class KnowledgeBaseListOutput(serializers.Serializer):
    knowledge_bases = KnowledgeBaseOutput(many=True)
    count = serializers.IntegerField()


class DocumentListOutput(serializers.Serializer):
    documents = DocumentOutput(many=True)


class SpecUploadOutput(serializers.Serializer):
    message = serializers.CharField()
    file_name = serializers.CharField()
    file_hash = serializers.CharField()
    knowledge_base = serializers.IntegerField()
    document_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Document.Status.choices)
    chunks = serializers.IntegerField()
    vectors = serializers.IntegerField()
    entities = serializers.IntegerField()
    edges = serializers.IntegerField()
    documents = UploadedDocumentOutput(many=True)
    rejected = RejectedFileOutput(many=True)


class WebSourceOutput(serializers.ModelSerializer):
    knowledge_base = serializers.IntegerField(source="knowledge_base_id")
    documents = serializers.SerializerMethodField(help_text="Its pages indexed now.")

    class Meta:
        model = WebSource
        fields = [
            "id",
            "knowledge_base",
            "url",
            "depth",
            "max_pages",
            "every_minutes",
            "status",
            "progress_done",
            "progress_total",
            "counts",
            "error",
            "created_at",
            "last_synced_at",
            "next_sync_at",
            "documents",
        ]

    def get_documents(self, source: WebSource) -> int:
        return source.documents.count()


class WebSourceInput(serializers.Serializer):
    url = serializers.CharField(max_length=2000, help_text="The start page (http or https).")
    depth = serializers.IntegerField(
        min_value=0, max_value=3, default=1, help_text="Links followed from the start page."
    )
    max_pages = serializers.IntegerField(min_value=1, max_value=500, default=50)
    every_minutes = serializers.IntegerField(
        min_value=0, max_value=60 * 24 * 30, default=0, help_text="0: only when asked; else >= 15."
    )


class PassageOutput(serializers.Serializer):
    id = serializers.IntegerField(help_text="The chunk's id (a source's `chunk_id`).")
    ordinal = serializers.IntegerField()
    page = serializers.IntegerField(allow_null=True)
    section = serializers.ListField(child=serializers.CharField())
    kind = serializers.CharField()
    text = serializers.CharField()


class PassageListOutput(serializers.Serializer):
    document = DocumentOutput()
    passages = PassageOutput(many=True)
    truncated = serializers.BooleanField(help_text="More passages than one answer holds.")
