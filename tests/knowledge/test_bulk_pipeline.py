"""In-process ingestion overlaps its stages: embedding on one thread, writing on another."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from knowledge import bulk
from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.models import Document
from knowledge.services import kb_create

pytestmark = pytest.mark.django_db(transaction=True)


def _notes(count: int) -> list[TextItem]:
    return [
        TextItem(f"note-{n}.txt", f"Note {n} about queues and pipelines, number {n}.".encode())
        for n in range(count)
    ]


def test_stages_run_on_their_own_threads_and_every_document_is_ready(user, monkeypatch):
    kb = kb_create(owner=user, name="Pipelined")
    seen = {"embed": set(), "write": set()}
    embed, write = bulk.embed_chunks, bulk.document_index

    def spy_embed(chunks, **kwargs):
        seen["embed"].add(threading.current_thread().name)
        return embed(chunks, **kwargs)

    def spy_write(document, chunks):
        seen["write"].add(threading.current_thread().name)
        return write(document, chunks)

    monkeypatch.setattr(bulk, "embed_chunks", spy_embed)
    monkeypatch.setattr(bulk, "document_index", spy_write)
    summary = documents_ingest_inline(kb=kb, items=_notes(9), batch_chunks=2)
    assert summary["ready"] == 9 and summary["failed"] == 0
    assert seen == {"embed": {"ingest-embed"}, "write": {"ingest-write"}}
    assert set(kb.documents.values_list("status", flat=True)) == {Document.Status.READY}
    kb.refresh_from_db()
    assert kb.chunk_count == 9


def test_a_failed_stage_stops_the_ingestion_and_leaves_no_document_in_progress(user, monkeypatch):
    kb = kb_create(owner=user, name="Pipelined")
    calls = []
    embed = bulk.embed_chunks

    def failing(chunks, **kwargs):
        calls.append(len(chunks))
        if len(calls) == 2:
            raise RuntimeError("the embedder ran out of memory")
        return embed(chunks, **kwargs)

    monkeypatch.setattr(bulk, "embed_chunks", failing)
    reported = []
    with pytest.raises(RuntimeError, match="out of memory"):
        documents_ingest_inline(
            kb=kb,
            items=_notes(12),
            batch_chunks=2,
            on_document=lambda document, error: reported.append(error),
        )
    statuses = Counter(kb.documents.values_list("status", flat=True))
    # The first batch was written; the failed one and any prepared after it are failed.
    assert statuses[Document.Status.READY] == 2
    assert not set(statuses) & set(Document.ACTIVE_STATUSES)
    assert statuses[Document.Status.FAILED] == sum(statuses.values()) - 2
    assert len(reported) == sum(statuses.values())


def _last_analyzed(table: str):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT last_analyze FROM pg_stat_user_tables WHERE relname = %s", [table])
        return cursor.fetchone()[0]


def test_a_large_bulk_load_refreshes_the_planner_statistics_of_the_index_tables(user, monkeypatch):
    kb = kb_create(owner=user, name="Pipelined")
    monkeypatch.setattr(bulk, "ANALYZE_AFTER_CHUNKS", 10)
    tables = ("knowledge_chunk", "knowledge_posting", "knowledge_termstat", "knowledge_chunkentity")
    documents_ingest_inline(kb=kb, items=_notes(4))  # 4 chunks: under the threshold
    before = {table: _last_analyzed(table) for table in tables}
    documents_ingest_inline(kb=kb, items=_notes(14)[4:])  # 10 chunks
    for table in tables:
        after = _last_analyzed(table)
        assert after is not None and (before[table] is None or after > before[table]), table
