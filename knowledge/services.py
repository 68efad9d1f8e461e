"""Writes to knowledge bases and documents."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q, Sum

from adrag_site import audit, jobs
from adrag_site.audit import audit_record
from adrag_site.errors import ServiceError
from knowledge.index import delete_document_rows, delete_orphan_entities
from knowledge.ingest.extracted import ExtractionError
from knowledge.ingest.filetypes import UnsupportedFileType, file_extension, safe_file_name
from knowledge.ingest.inspect import inspect_upload
from knowledge.models import Document, KnowledgeBase
from knowledge.selectors import NO_SUCH_TEAM, teams_for_user

logger = logging.getLogger(__name__)

# Request errors are 400; a file we received but cannot use is 422 (the spec's "no text" case).
EXTRACTION_STATUS = {
    "unsupported_type": 400,
    "ocr_disabled": 400,
    "too_many_pages": 413,
    "image_too_large": 413,
}


def kb_create(
    *, owner, name: str, description: str = "", team: Group | None = None
) -> KnowledgeBase:
    """Create a knowledge base owned by `owner`, optionally shared with one of their teams."""
    _check_team(user=owner, team=team)
    try:
        with transaction.atomic():
            return KnowledgeBase.objects.create(
                owner=owner, name=name.strip(), description=description, team=team
            )
    except IntegrityError:
        raise ServiceError(
            409, "name_taken", f"You already have a knowledge base named {name!r}."
        ) from None


def kb_default_for_user(*, user) -> KnowledgeBase:
    """Return the user's own default knowledge base, creating it on first use."""
    kb, _ = KnowledgeBase.objects.get_or_create(
        owner=user, name="Default", defaults={"description": "Created for uploads with no KB."}
    )
    return kb


def kb_update(*, kb: KnowledgeBase, user, **changes) -> KnowledgeBase:
    """Rename, describe or (un)share a knowledge base."""
    fields = []
    if "team" in changes:
        _check_team(user=user, team=changes["team"])
        if changes["team"] != kb.team:
            audit_record(
                audit.KB_SHARED,
                target=kb,
                actor=user,
                before=kb.team.name if kb.team else None,
                after=changes["team"].name if changes["team"] else None,
            )
        kb.team = changes["team"]
        fields.append("team")
    for field in ("name", "description"):
        if field in changes and changes[field] is not None:
            setattr(kb, field, changes[field].strip() if field == "name" else changes[field])
            fields.append(field)
    if fields:
        try:
            with transaction.atomic():
                kb.save(update_fields=[*fields, "updated_at"])
        except IntegrityError:
            raise ServiceError(
                409, "name_taken", f"You already have a knowledge base named {kb.name!r}."
            ) from None
    return kb


def _check_team(*, user, team: Group | None) -> None:
    if team is not None and not teams_for_user(user=user).filter(id=team.id).exists():
        raise ServiceError(400, "invalid_team", NO_SUCH_TEAM)


def kb_clear_for_user(*, user) -> int:
    """Delete every document of the user's own knowledge bases (staff: of every one), the
    spec's DELETE /api/clear; return how many were deleted."""
    kbs = KnowledgeBase.objects.all() if user.is_staff else KnowledgeBase.objects.filter(owner=user)
    deleted = sum(kb_clear(kb=kb) for kb in kbs)
    audit_record(audit.KB_CLEARED, actor=user, documents=deleted)
    return deleted


def kb_clear(*, kb: KnowledgeBase) -> int:
    """Delete every document of a knowledge base and return how many were deleted."""
    documents = list(kb.documents.all())
    for document in documents:
        document_delete(document=document, audited=False)
    return len(documents)


def kb_delete(*, kb: KnowledgeBase) -> None:
    """Delete a knowledge base with its documents, chunks, postings and graph."""
    audit_record(audit.KB_DELETED, target=kb, name=kb.name, documents=kb.documents.count())
    kb_clear(kb=kb)
    with transaction.atomic():
        _delete_kb_rows(kb.id)
        kb.delete()
    # Its HNSW index, if it had one, is dropped by the periodic vector_indexes_build task.


def _delete_kb_rows(kb_id: int) -> None:
    # Bulk SQL: Django's cascade would load every chunk and posting into memory first.
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM knowledge_tablerow WHERE table_id IN "
            "(SELECT id FROM knowledge_table WHERE knowledge_base_id = %s)",
            [kb_id],
        )
        cursor.execute("DELETE FROM knowledge_table WHERE knowledge_base_id = %s", [kb_id])
        cursor.execute("DELETE FROM knowledge_chunkentity WHERE knowledge_base_id = %s", [kb_id])
        cursor.execute("DELETE FROM knowledge_posting WHERE knowledge_base_id = %s", [kb_id])
        cursor.execute("DELETE FROM knowledge_termstat WHERE knowledge_base_id = %s", [kb_id])
        cursor.execute("DELETE FROM knowledge_termblockset WHERE knowledge_base_id = %s", [kb_id])
        cursor.execute("DELETE FROM knowledge_termblock WHERE knowledge_base_id = %s", [kb_id])
        cursor.execute("DELETE FROM knowledge_entity WHERE knowledge_base_id = %s", [kb_id])
        cursor.execute("DELETE FROM knowledge_chunk WHERE knowledge_base_id = %s", [kb_id])


def storage_path(sha256: str, extension: str) -> Path:
    """Return where the bytes with this hash are kept: by content, never by name."""
    return Path(settings.MEDIA_ROOT) / "uploads" / sha256[:2] / f"{sha256}.{extension}"


@dataclass
class StagedUpload:
    """An upload copied to a temporary file beside the store, hashed on the way."""

    path: Path
    sha256: str
    size: int

    def discard(self) -> None:
        self.path.unlink(missing_ok=True)


def _stage(source: bytes | BinaryIO) -> StagedUpload:
    """Copy an upload (bytes, or a file Django spooled to disk) to a staging file, hashing it.

    Memory stays flat: the bytes move in blocks, never as one string.
    """
    folder = Path(settings.MEDIA_ROOT) / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    size = 0
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".upload-")
    with os.fdopen(fd, "wb") as handle:
        if isinstance(source, bytes | bytearray):
            blocks = [bytes(source)]
        else:
            source.seek(0)
            blocks = iter(lambda: source.read(1024 * 1024), b"")
        for block in blocks:
            digest.update(block)
            size += len(block)
            handle.write(block)
    return StagedUpload(path=Path(tmp), sha256=digest.hexdigest(), size=size)


def _store_staged(staged: StagedUpload, extension: str) -> Path:
    path = storage_path(staged.sha256, extension)
    if path.exists():
        staged.discard()
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    # Rename into place, so a concurrent reader never sees half a file.
    os.replace(staged.path, path)
    return path


def validate_upload(*, file_name: str, staged: StagedUpload) -> tuple[str, str]:
    """Check a staged upload with light checks only; return its safe name and extension.

    Type sniffing, a PDF's page count and encryption, a DOCX's zip directory: what a request
    can afford. The text itself is extracted by the worker, in a sandbox.
    """
    if not file_name:
        raise ServiceError(400, "no_file_name", "The uploaded file has no name.")
    try:
        name = safe_file_name(file_name)
    except UnsupportedFileType as exc:
        raise ServiceError(400, "unsupported_type", str(exc)) from None
    if not staged.size:
        raise ServiceError(400, "empty_file", f"{name!r} is empty.")
    limit = settings.MAX_UPLOAD_MB * 1024 * 1024
    if staged.size > limit:
        raise ServiceError(
            413, "file_too_large", f"{name!r} is larger than {settings.MAX_UPLOAD_MB} MB."
        )
    try:
        with staged.path.open("rb") as handle:
            inspect_upload(
                handle,
                name,
                size=staged.size,
                max_pdf_pages=settings.MAX_PDF_PAGES,
                max_docx_bytes=settings.MAX_DOCX_UNCOMPRESSED_MB * 1024 * 1024,
                ocr_enabled=settings.OCR_ENABLED,
            )
    except ExtractionError as exc:
        raise ServiceError(EXTRACTION_STATUS.get(exc.code, 422), exc.code, exc.message) from None
    return name, file_extension(name)


# The namespace of the advisory lock that serialises one quota owner's uploads.
UPLOAD_QUOTA_LOCK = 7_311_002


def _check_upload_limits(*, kb: KnowledgeBase, user, size: int) -> None:
    """Refuse an upload over the user's pending ingestions or the owner's storage quota.

    Called in the upload's transaction after the quota owner's advisory lock is taken, so
    parallel uploads count each other.
    """
    pending_limit = settings.INGESTIONS_MAX_PENDING_PER_USER
    if pending_limit:
        pending = Document.objects.filter(
            uploaded_by=user, status__in=Document.ACTIVE_STATUSES
        ).count()
        if pending >= pending_limit:
            raise ServiceError(
                429,
                "too_many_ingestions",
                f"You have {pending} documents waiting to be indexed (the limit is "
                f"{pending_limit}); wait for some to finish.",
            )
    quota = settings.STORAGE_QUOTA_MB * 1024 * 1024
    if quota:
        owned = (
            Q(knowledge_base__team=kb.team)
            if kb.team_id
            else Q(knowledge_base__owner_id=kb.owner_id, knowledge_base__team__isnull=True)
        )
        used = Document.objects.filter(owned).aggregate(total=Sum("size"))["total"] or 0
        if used + size > quota:
            whose = f"team {kb.team.name!r}" if kb.team_id else "your knowledge bases"
            raise ServiceError(
                413,
                "quota_exceeded",
                f"Storing this file would take {whose} past its quota of "
                f"{settings.STORAGE_QUOTA_MB} MB ({used // (1024 * 1024)} MB used).",
            )


def document_upload(
    *,
    kb: KnowledgeBase,
    file_name: str,
    data: bytes | BinaryIO,
    user,
    defer_job: bool = True,
    external_id: str = "",
    validated: bool = False,
) -> tuple[Document, bool]:
    """Store an upload and queue its ingestion; the same bytes re-index the same document.

    `data` is the bytes or a file (Django's spooled upload); either is copied in blocks.
    Returns the document and whether it was queued by this call. With `defer_job=False` the
    document is marked queued but no job is deferred: the caller runs the ingestion itself.
    """
    staged = _stage(data)
    try:
        if validated:
            name, extension = safe_file_name(file_name), file_extension(file_name)
        else:
            name, extension = validate_upload(file_name=file_name, staged=staged)
        with transaction.atomic():
            _lock_quota_owner(kb)
            document = (
                Document.objects.select_for_update()
                .filter(knowledge_base=kb, sha256=staged.sha256)
                .first()
            )
            if document is not None and document.is_active:
                staged.discard()
                return document, False
            if document is None and not validated:
                _check_upload_limits(kb=kb, user=user, size=staged.size)
            relative = str(_store_staged(staged, extension).relative_to(settings.MEDIA_ROOT))
            stored = {"file_name": name, "stored_path": relative, "file_type": extension}
            if document is None:
                document = Document.objects.create(
                    knowledge_base=kb,
                    sha256=staged.sha256,
                    size=staged.size,
                    uploaded_by=user,
                    external_id=external_id,
                    **stored,
                )
            else:
                _point_at_new_upload(document, stored)
            _queue_ingestion(document, defer_job=defer_job)
        audit_record(
            audit.UPLOAD,
            target=document,
            actor=user,
            file_name=name,
            size=staged.size,
            knowledge_base=kb.id,
        )
        return document, True
    finally:
        staged.discard()


def _lock_quota_owner(kb: KnowledgeBase) -> None:
    """Take the advisory lock of the knowledge base's quota owner (its team, else its owner)
    until the transaction ends: one owner's uploads are counted one after another."""
    quota_owner = -kb.team_id if kb.team_id else kb.owner_id
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [UPLOAD_QUOTA_LOCK, quota_owner])


def _point_at_new_upload(document: Document, stored: dict[str, str]) -> None:
    """Point a document at its bytes uploaded again: stored anew, maybe under a new name."""
    for field_name, value in stored.items():
        setattr(document, field_name, value)
    document.save(update_fields=["file_name", "stored_path", "file_type", "updated_at"])


def document_reindex(*, document: Document) -> bool:
    """Queue a fresh ingestion of a stored document; return False when one is already under way."""
    with transaction.atomic():
        document = Document.objects.select_for_update().get(id=document.id)
        if document.is_active:
            return False
        _queue_ingestion(document)
        return True


def _queue_ingestion(document: Document, *, defer_job: bool = True) -> None:
    document.status = Document.Status.QUEUED
    document.progress_done = 0
    document.progress_total = 0
    document.cancel_requested = False
    document.error = ""
    document.error_code = ""
    document.save(
        update_fields=[
            "status",
            "progress_done",
            "progress_total",
            "cancel_requested",
            "error",
            "error_code",
            "updated_at",
        ]
    )
    if defer_job:
        # The Django connector writes the job in this same transaction: both land or neither.
        document.job_id = jobs.job_defer("knowledge.ingest_document", document_id=document.id)
        document.save(update_fields=["job_id"])


def document_cancel(*, document: Document, strict: bool = False) -> Document:
    """Stop a queued or running ingestion; the previously indexed version stays intact.

    An ingestion that already ended is left as it is, or, `strict`, refused with a 409.
    """
    with transaction.atomic():
        document = Document.objects.select_for_update().get(id=document.id)
        if not document.is_active:
            if strict:
                raise ServiceError(
                    409,
                    "not_active",
                    f"Ingestion is not running: the document is {document.status}.",
                )
            return document
        cancelled_in_queue = False
        if document.status == Document.Status.QUEUED and document.job_id:
            cancelled_in_queue = jobs.job_cancel(document.job_id, abort=False)
        if cancelled_in_queue:
            document.status = Document.Status.CANCELLED
            document.save(update_fields=["status", "updated_at"])
        else:
            # Running: the job checks this flag between batches and before it writes.
            document.cancel_requested = True
            document.save(update_fields=["cancel_requested", "updated_at"])
            if document.job_id:
                jobs.job_cancel(document.job_id, abort=True)
    return document


def document_delete(*, document: Document, audited: bool = True) -> None:
    """Delete a document, its chunks and its postings and edges, and its file if unused.

    `audited=False` leaves the audit trail to the caller (a whole knowledge base's deletion).
    """
    if audited:
        audit_record(
            audit.DOCUMENT_DELETED,
            target=document,
            file_name=document.file_name,
            knowledge_base=document.knowledge_base_id,
        )
    if document.is_active:
        document_cancel(document=document)
    with transaction.atomic():
        kb = KnowledgeBase.objects.select_for_update(no_key=True).get(id=document.knowledge_base_id)
        removed_chunks, removed_tokens, entity_ids = delete_document_rows(document.id)
        KnowledgeBase.objects.filter(id=kb.id).update(
            chunk_count=F("chunk_count") - removed_chunks,
            token_total=F("token_total") - removed_tokens,
        )
        delete_orphan_entities(entity_ids)
        Document.objects.filter(id=document.id).delete()
        still_used = Document.objects.filter(sha256=document.sha256).exists()
    if not still_used:
        Path(settings.MEDIA_ROOT, document.stored_path).unlink(missing_ok=True)
