"""Each bad upload gets a JSON error with a stable code, and nothing is half-written."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from knowledge.models import Chunk, Document
from tests.knowledge.conftest import FILES

pytestmark = pytest.mark.django_db


def assert_rejected(response, status, code, settings):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code and body["error"]
    assert Document.objects.count() == 0 and Chunk.objects.count() == 0
    uploads = Path(settings.MEDIA_ROOT) / "uploads"
    assert not uploads.exists() or not any(p.is_file() for p in uploads.rglob("*"))
    return body


def test_no_file(auth_client, kb, settings):
    response = auth_client.post(f"/api/knowledge-bases/{kb.id}/documents", {}, format="multipart")
    assert_rejected(response, 400, "no_file", settings)


def test_empty_file(upload, settings):
    assert_rejected(upload(("empty.txt", b"")), 400, "empty_file", settings)


def test_unknown_extension(upload, settings):
    assert_rejected(upload(("tool.exe", b"MZ\x90\x00")), 400, "unsupported_type", settings)


def test_extension_that_lies_about_its_content(upload, settings):
    assert_rejected(upload("not_a_pdf.pdf"), 422, "content_mismatch", settings)


def test_corrupt_pdf(upload, settings):
    assert_rejected(upload("corrupt.pdf"), 422, "corrupt_file", settings)


def test_encrypted_pdf(upload, settings):
    assert_rejected(upload("encrypted.pdf"), 422, "encrypted_pdf", settings)


def test_docx_zip_bomb(upload, settings):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"\x00" * (300 * 1024 * 1024))
    assert_rejected(upload(("bomb.docx", buffer.getvalue())), 422, "zip_bomb", settings)


def test_file_over_the_limit_is_413(upload, settings):
    settings.MAX_UPLOAD_MB = 1
    data = b"a" * (1024 * 1024 + 1)
    assert_rejected(upload(("big.txt", data)), 413, "file_too_large", settings)


def test_file_at_the_limit_is_accepted(upload, settings):
    settings.MAX_UPLOAD_MB = 1
    response = upload(("exact.txt", b"word " * (1024 * 1024 // 5) + b"x" * (1024 * 1024 % 5)))
    assert response.status_code == 202, response.content


def test_50mb_plus_one_byte_is_413_at_the_default_limit(upload, settings):
    assert settings.MAX_UPLOAD_MB == 50
    assert_rejected(
        upload(("big.txt", b"a" * (50 * 1024 * 1024 + 1))), 413, "file_too_large", settings
    )


def test_a_small_text_file_without_text_is_422_at_upload(upload, settings):
    assert_rejected(upload("blank.html"), 422, "no_text", settings)


def test_a_pdf_without_text_is_accepted_then_fails_in_the_worker_with_no_text(upload):
    from tests.knowledge.conftest import run_ingestion

    # The request only sniffs a PDF (header, encryption, page count); text is the worker's job.
    response = upload("empty_text.pdf")
    assert response.status_code == 202
    document_id = response.json()["documents"][0]["id"]
    run_ingestion(document_id)
    document = Document.objects.get(id=document_id)
    assert document.status == "failed" and document.error_code == "no_text"
    assert Chunk.objects.filter(document_id=document_id).count() == 0


def test_a_pdf_with_too_many_pages_is_413_before_extraction(upload, settings):
    settings.MAX_PDF_PAGES = 1
    assert_rejected(upload("blank_middle_page.pdf"), 413, "too_many_pages", settings)


def test_a_docx_whose_xml_is_over_the_limit_is_refused_from_its_zip_directory(upload, settings):
    settings.MAX_DOCX_UNCOMPRESSED_MB = 1
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"<w:t>word</w:t>" * 100_000)  # 1.5 MB of XML
    assert_rejected(upload(("big.docx", buffer.getvalue())), 422, "zip_bomb", settings)


def test_path_traversal_file_name_is_made_safe(upload, kb, settings):
    response = upload(("../../../etc/passwd.txt", b"root:x:0:0 Marie Curie"))
    assert response.status_code == 202
    document = Document.objects.get()
    assert document.file_name == "passwd.txt"
    stored = Path(settings.MEDIA_ROOT, document.stored_path).resolve()
    assert stored.is_relative_to(Path(settings.MEDIA_ROOT).resolve())
    assert document.sha256 in stored.name


def test_non_utf8_text_is_accepted(upload):
    assert upload("latin1.txt").status_code == 202


def test_binary_bytes_in_a_text_file(upload, settings):
    assert_rejected(upload("binary.txt"), 422, "content_mismatch", settings)


def test_upload_into_unknown_kb_is_404(upload, settings):
    assert_rejected(upload("sample.txt", kb_id=999999), 404, "not_found", settings)


def test_failed_ingestion_keeps_the_previous_version(upload, kb, settings):
    from tests.knowledge.conftest import run_ingestion

    document_id = upload("sample.md").json()["documents"][0]["id"]
    run_ingestion(document_id)
    before = list(Chunk.objects.filter(document_id=document_id).values_list("id", "text"))
    document = Document.objects.get(id=document_id)
    # The stored file vanishes between re-index and the job: the job must fail cleanly.
    Path(settings.MEDIA_ROOT, document.stored_path).unlink()
    from knowledge.services import document_reindex

    assert document_reindex(document=document)
    run_ingestion(document_id)
    document.refresh_from_db()
    assert document.status == "failed" and document.error_code == "ingest_failed"
    assert list(Chunk.objects.filter(document_id=document_id).values_list("id", "text")) == before
    kb.refresh_from_db()
    assert kb.chunk_count == len(before)


def test_fixture_files_exist():
    assert (FILES / "corrupt.pdf").exists()
