"""The ingestion job body: extract -> chunk -> embed -> write, with live progress."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from adrag_site import jobs
from knowledge.index import PreparedChunk, write_chunks
from knowledge.ingest.chunking import chunk_segments
from knowledge.ingest.entities import extract_entities
from knowledge.ingest.extracted import ExtractedText, ExtractionError
from knowledge.ingest.ocr import OcrOptions
from knowledge.ingest.sandbox import SandboxCancelled, extract_sandboxed
from knowledge.ingest.structure import Segment
from knowledge.models import Document
from providers import embedder
from providers.tokenize import bm25_tokens

logger = logging.getLogger(__name__)

EMBED_BATCH = 32
# An in-process ingestion (no job) whose document has not moved for this long has died.
INLINE_STALE_SECONDS = 600
MAX_TERM_LENGTH = 100
MAX_ENTITY_LENGTH = 200


class IngestCancelled(Exception):
    """The ingestion was cancelled; nothing of this attempt was written."""


def ocr_options() -> OcrOptions | None:
    """How OCR may run under the settings, or None when it is switched off."""
    if not settings.OCR_ENABLED:
        return None
    return OcrOptions(page_seconds=settings.OCR_PAGE_SECONDS, max_pages=settings.OCR_MAX_PAGES)


def extracted_fields(extracted: ExtractedText) -> dict:
    """The fields of a document that its extraction sets."""
    return {
        "encoding": extracted.encoding or "",
        "page_count": max((s.page or 0 for s in extracted.segments), default=0) or None,
        "ocr_pages": extracted.ocr_pages,
        "unreadable_pages": extracted.unreadable_pages,
        "ocr_boxes": extracted.ocr_boxes,
    }


def prepare_chunks(segments: Sequence[Segment]) -> list[PreparedChunk]:
    """Chunk extracted segments and compute their BM25 terms and entities."""
    chunks = chunk_segments(segments, settings.CHUNK_SIZE, settings.CHUNK_OVERLAP)
    prepared = []
    for chunk in chunks:
        # The section path is indexed with the text: a passage is found by its headings too.
        indexed = chunk.index_text
        prepared.append(
            PreparedChunk(
                ordinal=chunk.ordinal,
                text=chunk.text,
                page=chunk.page,
                char_start=chunk.char_start,
                char_end=chunk.char_end,
                section=chunk.section,
                kind=chunk.kind,
                structure=chunk.structure,
                index_text=indexed,
                term_counts=Counter(
                    term for term in bm25_tokens(indexed) if len(term) <= MAX_TERM_LENGTH
                ),
                entities={
                    name[:MAX_ENTITY_LENGTH]: count
                    for name, count in extract_entities(indexed).items()
                },
            )
        )
    return prepared


def embed_chunks(
    chunks: list[PreparedChunk],
    *,
    on_batch: Callable[[int], None] | None = None,
    batch_size: int = EMBED_BATCH,
) -> None:
    """Embed chunks in batches, reporting how many are done after each batch."""
    for start in range(0, len(chunks), batch_size):
        batch = chunks[start : start + batch_size]
        vectors = embedder.embed_texts(
            [chunk.index_text or chunk.text for chunk in batch], batch_size=batch_size
        )
        for chunk, vector in zip(batch, vectors):
            chunk.embedding = vector
        if on_batch:
            on_batch(start + len(batch))


def throttled(check: Callable[[], bool], *, every: float) -> Callable[[], bool]:
    """Return `check`, run at most once per `every` seconds (a database read each time)."""
    state = {"at": 0.0, "value": False}

    def run() -> bool:
        now = time.monotonic()
        if now - state["at"] >= every:
            state.update(at=now, value=check())
        return state["value"]

    return run


def set_fields(document: Document, **values) -> None:
    for key, value in values.items():
        setattr(document, key, value)
    Document.objects.filter(id=document.id).update(**values, updated_at=timezone.now())


def document_index(document: Document, chunks: list[PreparedChunk]) -> None:
    """Write a document's embedded chunks, entities and edges and mark it ready.

    Call inside a transaction: the old version's rows go and the new ones arrive together.
    """
    counts = write_chunks(document=document, chunks=chunks)
    set_fields(
        document,
        status=Document.Status.READY,
        progress_total=len(chunks),
        progress_done=len(chunks),
        chunk_count=counts["chunks"],
        entity_count=counts["entities"],
        edge_count=counts["edges"],
        indexed_at=timezone.now(),
    )


def document_fail(document: Document, exc: Exception) -> None:
    """Mark a document failed: an ExtractionError with its own code and message, anything else
    as `ingest_failed` with its traceback in the log."""
    if isinstance(exc, ExtractionError):
        set_fields(document, status=Document.Status.FAILED, error=exc.message, error_code=exc.code)
        return
    logger.error("ingestion of document %s failed", document.id, exc_info=exc)
    set_fields(
        document, status=Document.Status.FAILED, error=str(exc)[:2000], error_code="ingest_failed"
    )


# How an ingestion ends when its worker stops before it finishes (killed, or shut down).
INTERRUPTED_ERROR = "The worker ingesting this document stopped before it finished; re-index it."
INTERRUPTED_CODE = "ingest_interrupted"


def document_ingest_run(
    *,
    document_id: int,
    should_abort: Callable[[], bool] = lambda: False,
    worker_stopping: Callable[[], bool] = lambda: False,
) -> Document:
    """Run one ingestion of a stored document; any failure leaves the previous version intact.
    `should_abort` tells whether the job was aborted, `worker_stopping` whether that was
    because its worker stops (the ingestion then ends interrupted, not cancelled)."""
    document = Document.objects.select_related("knowledge_base").get(id=document_id)
    if document.status != Document.Status.QUEUED or document.cancel_requested:
        logger.info("document %s is %s; nothing to do", document_id, document.status)
        return document

    def cancel_requested() -> bool:
        requested = (
            Document.objects.filter(id=document_id)
            .values_list("cancel_requested", flat=True)
            .first()
        )
        return requested is None or requested or should_abort()

    started = time.monotonic()
    try:
        chunks = _ingest(document, cancel_requested)
    except (IngestCancelled, SandboxCancelled):
        # A team's cancel wins over a stopping worker (whose abort replaces the cancel's).
        cancelled = Document.objects.filter(id=document_id, cancel_requested=True).exists()
        if worker_stopping() and not cancelled:
            set_fields(
                document,
                status=Document.Status.FAILED,
                error=INTERRUPTED_ERROR,
                error_code=INTERRUPTED_CODE,
            )
            logger.warning("ingestion of document %s interrupted: its worker stops", document_id)
        else:
            set_fields(document, status=Document.Status.CANCELLED)
            logger.info("ingestion of document %s cancelled", document_id)
    except Exception as exc:
        document_fail(document, exc)
    else:
        logger.info(
            "document %s ready: %d chunks in %.1fs",
            document_id,
            len(chunks),
            time.monotonic() - started,
        )
    return document


def _ingest(document: Document, cancel_requested: Callable[[], bool]) -> list[PreparedChunk]:
    """Extract, chunk, embed and index a document, each stage marked on it as it starts; raise
    IngestCancelled at the first check after a cancel is asked for."""

    def check_cancel() -> None:
        if cancel_requested():
            raise IngestCancelled()

    set_fields(
        document,
        status=Document.Status.EXTRACTING,
        started_at=timezone.now(),
        progress_done=0,
        progress_total=0,
        error="",
        error_code="",
    )
    extracted = _extract(document, cancel_requested)
    check_cancel()
    set_fields(
        document,
        status=Document.Status.CHUNKING,
        progress_done=0,
        progress_total=0,
        **extracted_fields(extracted),
    )
    chunks = prepare_chunks(extracted.segments)
    check_cancel()
    set_fields(document, status=Document.Status.EMBEDDING, progress_total=len(chunks))

    def on_batch(done: int) -> None:
        set_fields(document, progress_done=done)
        check_cancel()

    embed_chunks(chunks, on_batch=on_batch)
    set_fields(document, status=Document.Status.INDEXING)
    with transaction.atomic():
        locked = Document.objects.select_for_update().get(id=document.id)
        if locked.cancel_requested:
            raise IngestCancelled()
        document_index(document, chunks)
    return chunks


def _extract(document: Document, cancel_requested: Callable[[], bool]) -> ExtractedText:
    """Extract a document's stored file in the sandbox, under the settings' budgets."""
    path = Path(settings.MEDIA_ROOT, document.stored_path)
    if not path.is_file():
        raise FileNotFoundError(f"the stored file of document {document.id} is missing")

    def on_ocr_page(page: int, total: int) -> None:
        # A scan's pages are its progress while it is read.
        set_fields(document, progress_done=page - 1, progress_total=total)

    return extract_sandboxed(
        path,
        document.file_name,
        timeout=settings.EXTRACT_TIMEOUT_SECONDS,
        memory_mb=settings.EXTRACT_MEMORY_MB,
        should_stop=throttled(cancel_requested, every=1.0),
        ocr=ocr_options(),
        ocr_memory_mb=settings.OCR_MEMORY_MB,
        on_ocr_page=on_ocr_page,
    )


def documents_reap() -> int:
    """Fail ingestions whose job can no longer make progress (its worker died, or the job is
    gone), so no document stays in progress forever. The periodic reaper and `manage.py reap`
    call this; nothing else ends an ingestion it does not run."""
    active = list(
        Document.objects.filter(
            status__in=Document.ACTIVE_STATUSES, job_id__isnull=False
        ).values_list("id", "job_id")
    )
    alive = jobs.alive_job_ids(
        [job_id for _, job_id in active], stale_seconds=settings.RUN_STALE_SECONDS
    )
    dead = [document_id for document_id, job_id in active if job_id not in alive]
    # An in-process ingestion (`manage.py ingest`, no job) writes its progress as it goes: one
    # silent for INLINE_STALE_SECONDS belongs to a process that died, and a later ingest of the
    # same files would otherwise skip it as busy, with no chunks, forever.
    silent_since = timezone.now() - timedelta(seconds=INLINE_STALE_SECONDS)
    dead += list(
        Document.objects.filter(
            status__in=Document.ACTIVE_STATUSES,
            job_id__isnull=True,
            updated_at__lt=silent_since,
        ).values_list("id", flat=True)
    )
    if not dead:
        return 0
    return Document.objects.filter(id__in=dead, status__in=Document.ACTIVE_STATUSES).update(
        status=Document.Status.FAILED, error=INTERRUPTED_ERROR, error_code=INTERRUPTED_CODE
    )
