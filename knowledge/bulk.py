"""Ingestion in this process, for many small files at once: the `ingest` command (a folder,
a BEIR corpus), benchmarks and tests. Several documents share each embedding batch; each is
still written in its own savepoint, through the same service and index writer as an upload.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from adrag_site.errors import ServiceError
from knowledge.index import PreparedChunk, analyze_index_tables
from knowledge.ingest.extract import extract
from knowledge.ingest.extracted import ExtractionError
from knowledge.ingest.filetypes import KIND_IMAGE, KIND_PDF, UnsupportedFileType, file_kind
from knowledge.ingest.sandbox import extract_sandboxed
from knowledge.ingestion import (
    document_fail,
    document_index,
    documents_reap,
    embed_chunks,
    extracted_fields,
    ocr_options,
    prepare_chunks,
    set_fields,
)
from knowledge.models import Document, KnowledgeBase
from knowledge.services import document_upload
from knowledge.term_blocks import refresh_blocks
from knowledge.vector_index import build_index

logger = logging.getLogger(__name__)

# A bulk load of at least this many chunks refreshes the index tables' planner statistics.
ANALYZE_AFTER_CHUNKS = 2_000


def _extract(item: TextItem):
    """Extract an item: text formats here; PDFs and images, which may need OCR, in the
    extraction sandbox, under the same budgets as an upload."""
    try:
        kind = file_kind(item.file_name)
    except UnsupportedFileType:
        kind = None
    if kind not in (KIND_PDF, KIND_IMAGE):
        return extract(item.data, item.file_name)  # an unsupported name: its ExtractionError
    with tempfile.NamedTemporaryFile(suffix=Path(item.file_name).suffix) as stored:
        stored.write(item.data)
        stored.flush()
        return extract_sandboxed(
            Path(stored.name),
            item.file_name,
            timeout=settings.EXTRACT_TIMEOUT_SECONDS,
            memory_mb=settings.EXTRACT_MEMORY_MB,
            ocr=ocr_options(),
            ocr_memory_mb=settings.OCR_MEMORY_MB,
        )


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

    The stages overlap: while one batch is embedded, the batch before it is written and the
    next one is extracted and tokenised, so the embedder sets the pace. Inside a caller's
    transaction (whose rows other connections cannot see) the stages run one after another.
    """
    # Documents an earlier in-process ingestion left in progress when it died are failed now,
    # so that these same files are indexed again rather than skipped as busy.
    documents_reap()
    batch = _InlineBatch(kb=kb, user=user, on_document=on_document)
    pipeline = None if connection.in_atomic_block else _Pipeline(batch)
    try:
        for item in items:
            if pipeline is not None:
                pipeline.check()
            if not reindex and batch.already_ready(item):
                continue
            batch.add(item)
            if batch.pending_chunks() >= batch_chunks:
                batch.flush(pipeline)
        batch.flush(pipeline)
    except BaseException:
        if pipeline is not None:
            pipeline.close(raise_error=False)  # the caller's own error goes on
        batch.abandon()
        raise
    if pipeline is not None:
        pipeline.close()
    kb.refresh_from_db(fields=["chunk_count"])
    if batch.summary["chunks"] >= ANALYZE_AFTER_CHUNKS:
        analyze_index_tables()  # the planner sees the new rows before the first search
    if kb.chunk_count >= settings.VECTOR_INDEX_MIN_CHUNKS:
        build_index(kb.id)  # a bulk load is searched through its own index at once
    refresh_blocks(kb.id)  # and a large one's BM25 reads its postings as term blocks at once
    return batch.summary


class _InlineBatch:
    """Documents extracted and chunked, waiting to be embedded together and written."""

    def __init__(self, *, kb: KnowledgeBase, user, on_document) -> None:
        self.kb = kb
        self.user = user
        self.on_document = on_document
        self.summary = {"ready": 0, "failed": 0, "skipped": 0, "chunks": 0}
        self.pending: list[tuple[Document, list[PreparedChunk]]] = []
        self._lock = threading.Lock()  # the writer thread reports too

    def report(self, outcome: str, document: Document | None, error: str | None = None) -> None:
        with self._lock:
            self.summary[outcome] += 1
            if self.on_document:
                self.on_document(document, error)

    def pending_chunks(self) -> int:
        return sum(len(chunks) for _, chunks in self.pending)

    def already_ready(self, item: TextItem) -> bool:
        sha256 = hashlib.sha256(item.data).hexdigest()
        existing = Document.objects.filter(
            knowledge_base=self.kb, sha256=sha256, status=Document.Status.READY
        ).first()
        if existing is not None:
            self.report("skipped", existing)
        return existing is not None

    def add(self, item: TextItem) -> None:
        try:
            extracted = _extract(item)
            document, queued = document_upload(
                kb=self.kb,
                file_name=item.file_name,
                data=item.data,
                user=self.user,
                defer_job=False,
                external_id=item.external_id,
                validated=True,
            )
        except (ExtractionError, ServiceError) as exc:
            self.report("failed", None, f"{item.file_name}: {getattr(exc, 'message', exc)}")
            return
        if not queued:
            self.report("skipped", document)
            return
        set_fields(
            document,
            status=Document.Status.EMBEDDING,
            started_at=timezone.now(),
            **extracted_fields(extracted),
        )
        self.pending.append((document, prepare_chunks(extracted.segments)))

    def flush(self, pipeline: _Pipeline | None = None) -> None:
        if not self.pending:
            return
        if pipeline is not None:
            # A failure is raised while the batch is still pending, so that abandon() fails
            # its documents; once queued, the embedding thread fails them if a stage failed.
            pipeline.check()
            pending, self.pending = self.pending, []
            pipeline.submit(pending)
            return
        pending, self.pending = self.pending, []
        self.embed(pending)
        self.write(pending)

    def abandon(self, pending=None) -> None:
        """Fail the documents of a batch that will not be written (a stage failed)."""
        if pending is None:
            pending, self.pending = self.pending, []
        for document, _ in pending:
            document_fail(document, IngestAbandoned("another batch of this ingestion failed"))
            self.report("failed", None, f"{document.file_name}: not indexed, the ingestion stopped")

    @staticmethod
    def embed(pending: list[tuple[Document, list[PreparedChunk]]]) -> None:
        embed_chunks([chunk for _, chunks in pending for chunk in chunks], batch_size=64)

    def write(self, pending: list[tuple[Document, list[PreparedChunk]]]) -> None:
        # One commit per batch (one fsync), with a savepoint per document so a failure still
        # leaves that document's previous version intact.
        with transaction.atomic():
            for document, chunks in pending:
                try:
                    with transaction.atomic():
                        document_index(document, chunks)
                except Exception as exc:
                    document_fail(document, exc)
                    self.report("failed", None, f"{document.file_name}: {exc}")
                    continue
                with self._lock:
                    self.summary["chunks"] += len(chunks)
                self.report("ready", document)


_DONE = object()


class IngestAbandoned(Exception):
    """A document's batch was not written because another stage of its ingestion failed."""


class _Pipeline:
    """Two threads behind the caller: one embeds a batch, the other writes the batch embedded
    before it, on its own connection. The queues hold one batch each, so memory stays at
    about four batches. The first failure is raised to the caller; the batches after it are
    failed, and those already embedded are still written unless writing is what failed."""

    def __init__(self, batch: _InlineBatch) -> None:
        self.batch = batch
        self.to_embed: queue.Queue = queue.Queue(maxsize=1)
        self.to_write: queue.Queue = queue.Queue(maxsize=1)
        self.error: BaseException | None = None
        self.write_failed = False  # batches embedded before an embedding failure are written
        self.threads = [
            threading.Thread(target=self._embedding, name="ingest-embed", daemon=True),
            threading.Thread(target=self._writing, name="ingest-write", daemon=True),
        ]
        for thread in self.threads:
            thread.start()

    def check(self) -> None:
        """Raise a stage's failure in the caller, before it prepares more."""
        if self.error is not None:
            raise self.error

    def submit(self, pending) -> None:
        self.to_embed.put(pending)

    def close(self, *, raise_error: bool = True) -> None:
        self.to_embed.put(_DONE)
        for thread in self.threads:
            thread.join()
        if raise_error:
            self.check()

    def _embedding(self) -> None:
        try:
            while (pending := self.to_embed.get()) is not _DONE:
                if self.error is not None:
                    self.batch.abandon(pending)
                    continue
                try:
                    self.batch.embed(pending)
                except BaseException as exc:  # raised to the caller at its next step
                    self.error = exc
                    self.batch.abandon(pending)
                    continue
                self.to_write.put(pending)
        finally:
            self.to_write.put(_DONE)
            connection.close()

    def _writing(self) -> None:
        try:
            while (pending := self.to_write.get()) is not _DONE:
                if self.write_failed:
                    self.batch.abandon(pending)
                    continue
                try:
                    self.batch.write(pending)
                except BaseException as exc:
                    self.error = self.error or exc
                    self.write_failed = True
                    self.batch.abandon(pending)
        finally:
            connection.close()  # this thread's own connection
