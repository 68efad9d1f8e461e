"""Uploading every supported type, through the API, into ready documents in the three stores."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection

from knowledge.ingest.filetypes import SUPPORTED_EXTENSIONS
from knowledge.models import Chunk, ChunkEntity, Document, Posting
from tests.knowledge.conftest import FILES, run_ingestion

pytestmark = pytest.mark.django_db


def test_all_42_extensions_are_supported():
    assert len(SUPPORTED_EXTENSIONS) == 42
    assert {f"sample.{ext}" for ext in SUPPORTED_EXTENSIONS} <= {p.name for p in FILES.iterdir()}


# Each image is read by OCR in its own sandbox (seconds each): one file per image format here;
# tests/knowledge/test_extract.py reads every extension.
SAME_FORMAT_AS = {"jpeg": "jpg", "tiff": "tif"}


@pytest.mark.slow  # every type, the scans by tesseract
@pytest.mark.hash_embedder  # about extraction and the stores' rows, not what the model finds
def test_every_supported_type_reaches_ready_with_all_three_stores(upload, kb):
    names = sorted(f"sample.{ext}" for ext in SUPPORTED_EXTENSIONS if ext not in SAME_FORMAT_AS)
    response = upload(*names)
    assert response.status_code == 202, response.json()
    body = response.json()
    assert body["rejected"] == []
    assert len(body["documents"]) == 40
    for item in body["documents"]:
        assert item["status"] == "queued" and item["queued"] is True
        run_ingestion(item["id"])
    for document in Document.objects.filter(knowledge_base=kb):
        assert document.status == "ready", (document.file_name, document.error)
        chunks = list(Chunk.objects.filter(document=document))
        assert chunks and document.chunk_count == len(chunks), document.file_name
        assert Posting.objects.filter(chunk__document=document).exists(), document.file_name
        assert ChunkEntity.objects.filter(chunk__document=document).count() == document.edge_count
        assert document.entity_count > 0, document.file_name
        for chunk in chunks:
            vector = np.array(chunk.embedding)
            assert vector.shape == (384,)
            assert abs(np.linalg.norm(vector) - 1.0) < 1e-4
            assert len(chunk.text) <= 500
    pdf = Document.objects.get(knowledge_base=kb, file_type="pdf")
    assert pdf.page_count == 2 and pdf.ocr_pages == []
    tiff = Document.objects.get(knowledge_base=kb, file_type="tif")
    assert tiff.page_count == 2 and tiff.ocr_pages == [1, 2] and tiff.unreadable_pages == []
    assert set(Chunk.objects.filter(document=pdf).values_list("page", flat=True)) == {1, 2}
    kb.refresh_from_db()
    assert kb.chunk_count == Chunk.objects.filter(knowledge_base=kb).count()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(bm25_length), 0) FROM knowledge_chunk WHERE knowledge_base_id = %s",
            [kb.id],
        )
        assert kb.token_total == cursor.fetchone()[0]


def test_progress_is_reported_while_polling(upload, auth_client, kb):
    document_id = upload("sample.pdf").json()["documents"][0]["id"]
    queued = auth_client.get(f"/api/documents/{document_id}").json()
    assert queued["status"] == "queued" and queued["progress"]["done"] == 0
    run_ingestion(document_id)
    ready = auth_client.get(f"/api/documents/{document_id}").json()
    assert ready["status"] == "ready"
    assert ready["progress"] == {
        "stage": "ready",
        "done": ready["chunk_count"],
        "total": ready["chunk_count"],
        "percent": 100.0,
    }


def test_html_and_markdown_chunks_hold_no_markup(upload, kb):
    for item in upload("malicious.html", "malicious.md", "sample.html").json()["documents"]:
        run_ingestion(item["id"])
    for text in Chunk.objects.filter(knowledge_base=kb).values_list("text", flat=True):
        assert "<script" not in text and "onerror" not in text and "<div" not in text


def test_non_utf8_text_is_decoded(upload, kb):
    document_id = upload("latin1.txt").json()["documents"][0]["id"]
    document = run_ingestion(document_id)
    assert document.status == "ready"
    text = " ".join(Chunk.objects.filter(document_id=document_id).values_list("text", flat=True))
    assert "café" in text and "naïve" in text


def test_reupload_same_bytes_reindexes_instead_of_duplicating(upload, kb):
    first = upload("sample.md").json()["documents"][0]
    run_ingestion(first["id"])
    chunk_ids = set(Chunk.objects.filter(document_id=first["id"]).values_list("id", flat=True))
    data = (FILES / "sample.md").read_bytes()
    second = upload(("renamed-notes.md", data)).json()["documents"][0]
    assert second["id"] == first["id"] and second["queued"] is True
    run_ingestion(second["id"])
    document = Document.objects.get(id=first["id"])
    assert document.file_name == "renamed-notes.md"
    assert Document.objects.filter(knowledge_base=kb).count() == 1
    assert Chunk.objects.filter(document=document).count() == len(chunk_ids) == document.chunk_count
    kb.refresh_from_db()
    assert kb.chunk_count == len(chunk_ids)


def test_same_file_in_two_kbs_makes_two_documents(upload, auth_client, user):
    from knowledge.services import kb_create

    other = kb_create(owner=user, name="Second")
    a = upload("sample.txt").json()["documents"][0]
    b = upload("sample.txt", kb_id=other.id).json()["documents"][0]
    assert a["id"] != b["id"] and a["sha256"] == b["sha256"]


def test_several_files_in_one_request_report_each(upload):
    response = upload("sample.py", ("evil.exe", b"MZ..."), ("empty.txt", b""))
    assert response.status_code == 202
    body = response.json()
    assert [d["file_name"] for d in body["documents"]] == ["sample.py"]
    assert sorted(r["code"] for r in body["rejected"]) == ["empty_file", "unsupported_type"]


@pytest.mark.slow
@pytest.mark.hash_embedder  # a worker process at work: it loads no model (10 CPU-s)
def test_worker_process_ingests_an_upload(upload, kb, transactional_db):
    from tests.support import run_manage

    document_id = upload("sample.docx").json()["documents"][0]["id"]
    result = run_manage("procrastinate", "worker", "--one-shot", "--queues", "ingest", timeout=300)
    assert result.returncode == 0, result.stderr
    document = Document.objects.get(id=document_id)
    assert document.status == "ready", document.error
    assert document.chunk_count == Chunk.objects.filter(document=document).count() > 0
