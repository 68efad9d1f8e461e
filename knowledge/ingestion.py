"""The ingestion job body: extract -> chunk -> embed -> write, with live progress."""

from __future__ import annotations

import hashlib
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from knowledge.ingest.chunking import chunk_segments
from knowledge.ingest.entities import extract_entities
from knowledge.ingest.extract import ExtractionError, Segment, extract
from knowledge.ingest.sandbox import SandboxCancelled, extract_sandboxed
from knowledge.ingest.tokenize import bm25_tokens
from knowledge.models import Chunk, Document, KnowledgeBase
from knowledge.services import delete_document_rows, delete_orphan_entities
from providers import embedder

logger = logging.getLogger(__name__)

EMBED_BATCH = 32
MAX_TERM_LENGTH = 100
MAX_ENTITY_LENGTH = 200


class IngestCancelled(Exception):
    """The ingestion was cancelled; nothing of this attempt was written."""


@dataclass
class PreparedChunk:
    """A chunk with everything the three stores need, ready to be written."""

    ordinal: int
    text: str
    page: int | None
    char_start: int
    char_end: int
    embedding: np.ndarray | None = None
    term_counts: Counter = field(default_factory=Counter)
    entities: dict[str, int] = field(default_factory=dict)

    @property
    def bm25_length(self) -> int:
        return sum(self.term_counts.values())


def prepare_chunks(segments: Sequence[Segment]) -> list[PreparedChunk]:
    """Chunk extracted segments and compute their BM25 terms and entities."""
    chunks = chunk_segments(segments, settings.CHUNK_SIZE, settings.CHUNK_OVERLAP)
    prepared = []
    for chunk in chunks:
        prepared.append(
            PreparedChunk(
                ordinal=chunk.ordinal,
                text=chunk.text,
                page=chunk.page,
                char_start=chunk.char_start,
                char_end=chunk.char_end,
                term_counts=Counter(
                    term for term in bm25_tokens(chunk.text) if len(term) <= MAX_TERM_LENGTH
                ),
                entities={
                    name[:MAX_ENTITY_LENGTH]: count
                    for name, count in extract_entities(chunk.text).items()
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
        vectors = embedder.embed_texts([chunk.text for chunk in batch], batch_size=batch_size)
        for chunk, vector in zip(batch, vectors):
            chunk.embedding = vector
        if on_batch:
            on_batch(start + len(batch))


def write_chunks(*, document: Document, chunks: list[PreparedChunk]) -> dict[str, int]:
    """Replace a document's chunks, postings and edges in the caller's transaction."""
    kb_id = document.knowledge_base_id
    # Locking the KB row serialises statistics updates of concurrent ingestions into one KB.
    KnowledgeBase.objects.select_for_update().filter(id=kb_id).first()
    removed_chunks, removed_tokens, touched_entities = delete_document_rows(document.id)
    rows = Chunk.objects.bulk_create(
        [
            Chunk(
                document_id=document.id,
                knowledge_base_id=kb_id,
                ordinal=chunk.ordinal,
                text=chunk.text,
                text_md5=hashlib.md5(chunk.text.encode()).hexdigest(),
                page=chunk.page,
                char_start=chunk.char_start,
                char_end=chunk.char_end,
                embedding=chunk.embedding,
                bm25_length=chunk.bm25_length,
            )
            for chunk in chunks
        ],
        batch_size=500,
    )
    chunk_ids = [row.id for row in rows]
    with connection.cursor() as cursor:
        with cursor.copy(
            "COPY knowledge_posting (chunk_id, knowledge_base_id, term, tf, chunk_length) "
            "FROM STDIN"
        ) as copy:
            for chunk_id, chunk in zip(chunk_ids, chunks):
                length = chunk.bm25_length
                for term, tf in chunk.term_counts.items():
                    copy.write_row((chunk_id, kb_id, term, tf, length))
        names = sorted({name for chunk in chunks for name in chunk.entities})
        entity_ids: dict[str, int] = {}
        if names:
            cursor.execute(
                "INSERT INTO knowledge_entity (knowledge_base_id, name) "
                "SELECT %s, unnest(%s::text[]) ON CONFLICT DO NOTHING",
                [kb_id, names],
            )
            cursor.execute(
                "SELECT name, id FROM knowledge_entity "
                "WHERE knowledge_base_id = %s AND name = ANY(%s)",
                [kb_id, names],
            )
            entity_ids = dict(cursor.fetchall())
        edge_count = 0
        with cursor.copy(
            "COPY knowledge_chunkentity (chunk_id, entity_id, knowledge_base_id, weight) FROM STDIN"
        ) as copy:
            for chunk_id, chunk in zip(chunk_ids, chunks):
                for name, count in chunk.entities.items():
                    copy.write_row((chunk_id, entity_ids[name], kb_id, float(count)))
                    edge_count += 1
    added_tokens = sum(chunk.bm25_length for chunk in chunks)
    KnowledgeBase.objects.filter(id=kb_id).update(
        chunk_count=F("chunk_count") - removed_chunks + len(chunks),
        token_total=F("token_total") - removed_tokens + added_tokens,
        updated_at=timezone.now(),
    )
    delete_orphan_entities(touched_entities)
    return {"chunks": len(chunks), "entities": len(names), "edges": edge_count}


def throttled(check: Callable[[], bool], *, every: float) -> Callable[[], bool]:
    """Return `check`, run at most once per `every` seconds (a database read each time)."""
    state = {"at": 0.0, "value": False}

    def run() -> bool:
        now = time.monotonic()
        if now - state["at"] >= every:
            state.update(at=now, value=check())
        return state["value"]

    return run


def _set(document: Document, **values) -> None:
    for key, value in values.items():
        setattr(document, key, value)
    Document.objects.filter(id=document.id).update(**values, updated_at=timezone.now())


def document_ingest_run(
    *, document_id: int, should_abort: Callable[[], bool] = lambda: False
) -> Document:
    """Run one ingestion of a stored document; any failure leaves the previous version intact."""
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

    def check_cancel() -> None:
        if cancel_requested():
            raise IngestCancelled()

    started = time.monotonic()
    try:
        _set(
            document,
            status=Document.Status.EXTRACTING,
            started_at=timezone.now(),
            progress_done=0,
            progress_total=0,
            error="",
            error_code="",
        )
        path = Path(settings.MEDIA_ROOT, document.stored_path)
        if not path.is_file():
            raise FileNotFoundError(f"the stored file of document {document_id} is missing")
        extracted = extract_sandboxed(
            path,
            document.file_name,
            timeout=settings.EXTRACT_TIMEOUT_SECONDS,
            memory_mb=settings.EXTRACT_MEMORY_MB,
            should_stop=throttled(cancel_requested, every=1.0),
        )
        check_cancel()
        _set(
            document,
            status=Document.Status.CHUNKING,
            encoding=extracted.encoding or "",
            page_count=max((s.page or 0 for s in extracted.segments), default=0) or None,
        )
        chunks = prepare_chunks(extracted.segments)
        check_cancel()
        _set(document, status=Document.Status.EMBEDDING, progress_total=len(chunks))

        def on_batch(done: int) -> None:
            _set(document, progress_done=done)
            check_cancel()

        embed_chunks(chunks, on_batch=on_batch)
        _set(document, status=Document.Status.INDEXING)
        with transaction.atomic():
            locked = Document.objects.select_for_update().get(id=document_id)
            if locked.cancel_requested:
                raise IngestCancelled()
            counts = write_chunks(document=document, chunks=chunks)
            _set(
                document,
                status=Document.Status.READY,
                chunk_count=counts["chunks"],
                entity_count=counts["entities"],
                edge_count=counts["edges"],
                indexed_at=timezone.now(),
            )
    except (IngestCancelled, SandboxCancelled):
        _set(document, status=Document.Status.CANCELLED)
        logger.info("ingestion of document %s cancelled", document_id)
    except ExtractionError as exc:
        _set(document, status=Document.Status.FAILED, error=exc.message, error_code=exc.code)
    except Exception as exc:
        logger.exception("ingestion of document %s failed", document_id)
        _set(
            document,
            status=Document.Status.FAILED,
            error=str(exc)[:2000],
            error_code="ingest_failed",
        )
    else:
        logger.info(
            "document %s ready: %d chunks in %.1fs",
            document_id,
            len(chunks),
            time.monotonic() - started,
        )
    return document


def iter_batches(items: Sequence, size: int) -> Iterable[Sequence]:
    """Yield consecutive slices of at most `size` items."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass
class TextItem:
    """One text to ingest as a document (a file's bytes, or a corpus record)."""

    file_name: str
    data: bytes
    external_id: str = ""


def documents_ingest_inline(
    *,
    kb: KnowledgeBase,
    items: Iterable[TextItem],
    user=None,
    batch_chunks: int = 256,
    reindex: bool = False,
    on_document: Callable[[Document | None, str | None], None] | None = None,
) -> dict[str, int]:
    """Ingest many small files in this process, embedding several documents per batch.

    Each document is still written in its own transaction. Unless `reindex`, a document whose
    bytes are already ready in the KB is left as it is. `on_document` is called once per
    item with the document (or None) and an error message (or None).
    """
    from knowledge.services import UploadError, document_upload

    summary = {"ready": 0, "failed": 0, "skipped": 0, "chunks": 0}
    pending: list[tuple[Document, list[PreparedChunk]]] = []

    def flush() -> None:
        all_chunks = [chunk for _, chunks in pending for chunk in chunks]
        embed_chunks(all_chunks, batch_size=64)
        # One commit per batch (one fsync), with a savepoint per document so a failure still
        # leaves that document's previous version intact.
        with transaction.atomic():
            for document, chunks in pending:
                try:
                    with transaction.atomic():
                        counts = write_chunks(document=document, chunks=chunks)
                        _set(
                            document,
                            status=Document.Status.READY,
                            progress_total=len(chunks),
                            progress_done=len(chunks),
                            chunk_count=counts["chunks"],
                            entity_count=counts["entities"],
                            edge_count=counts["edges"],
                            indexed_at=timezone.now(),
                        )
                except Exception as exc:
                    logger.exception("writing document %s failed", document.id)
                    _set(
                        document,
                        status=Document.Status.FAILED,
                        error=str(exc)[:2000],
                        error_code="ingest_failed",
                    )
                    summary["failed"] += 1
                    if on_document:
                        on_document(None, f"{document.file_name}: {exc}")
                    continue
                summary["ready"] += 1
                summary["chunks"] += len(chunks)
                if on_document:
                    on_document(document, None)
        pending.clear()

    for item in items:
        if not reindex:
            sha256 = hashlib.sha256(item.data).hexdigest()
            existing = Document.objects.filter(
                knowledge_base=kb, sha256=sha256, status=Document.Status.READY
            ).first()
            if existing is not None:
                summary["skipped"] += 1
                if on_document:
                    on_document(existing, None)
                continue
        try:
            extracted = extract(item.data, item.file_name)
            document, queued = document_upload(
                kb=kb,
                file_name=item.file_name,
                data=item.data,
                user=user,
                defer_job=False,
                external_id=item.external_id,
                validated=True,
            )
        except (ExtractionError, UploadError) as exc:
            summary["failed"] += 1
            if on_document:
                on_document(None, f"{item.file_name}: {getattr(exc, 'message', exc)}")
            continue
        if not queued:
            summary["skipped"] += 1
            if on_document:
                on_document(document, None)
            continue
        _set(
            document,
            status=Document.Status.EMBEDDING,
            started_at=timezone.now(),
            encoding=extracted.encoding or "",
        )
        pending.append((document, prepare_chunks(extracted.segments)))
        if sum(len(chunks) for _, chunks in pending) >= batch_chunks:
            flush()
    if pending:
        flush()
    return summary
