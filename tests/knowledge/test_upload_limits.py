"""Limits on what one user may put in: pending ingestions, stored bytes, and the worker's
budget for extracting one file."""

from __future__ import annotations

import io
import threading
import zipfile

import pytest

from knowledge.models import Document
from tests.knowledge.conftest import FILES, run_ingestion


@pytest.mark.django_db
def test_more_pending_ingestions_than_the_limit_is_429(upload, settings):
    settings.INGESTIONS_MAX_PENDING_PER_USER = 2
    assert upload(("a.txt", b"alpha text")).status_code == 202
    assert upload(("b.txt", b"beta text")).status_code == 202
    response = upload(("c.txt", b"gamma text"))
    assert response.status_code == 429
    assert response.json()["code"] == "too_many_ingestions"
    assert Document.objects.count() == 2


@pytest.mark.django_db
def test_an_upload_past_the_storage_quota_is_413(upload, settings):
    settings.STORAGE_QUOTA_MB = 1
    assert upload(("a.txt", b"word " * 150_000)).status_code == 202  # 750 KB
    response = upload(("b.txt", b"text " * 100_000))  # 500 KB more: 1.25 MB in all
    assert response.status_code == 413 and response.json()["code"] == "quota_exceeded"
    # Re-uploading bytes already stored costs nothing.
    assert upload(("a.txt", b"word " * 150_000)).status_code == 202


@pytest.mark.django_db(transaction=True)
def test_parallel_uploads_never_pass_the_quota_together(user, settings):
    from adrag_site.errors import ServiceError
    from knowledge.services import document_upload, kb_create

    settings.STORAGE_QUOTA_MB = 1
    kb = kb_create(owner=user, name="Quota")
    outcomes: list[str] = []

    def put(n: int) -> None:
        from django.db import connection

        try:
            data = f"{n}{n}{n} ".encode() * 100_000  # 400 KB, different bytes per thread
            document_upload(kb=kb, file_name=f"{n}.txt", data=data, user=user)
            outcomes.append("ok")
        except ServiceError as exc:
            outcomes.append(exc.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=put, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Each file is 400 KB: two fit in 1 MB, three do not, whatever the interleaving.
    assert outcomes.count("ok") == 2, outcomes
    assert sum(Document.objects.values_list("size", flat=True)) <= 1024 * 1024


@pytest.mark.django_db
def test_extraction_past_its_time_budget_fails_the_document_not_the_worker(upload, settings):
    settings.EXTRACT_TIMEOUT_SECONDS = 0.01
    document_id = upload("sample.pdf").json()["documents"][0]["id"]
    run_ingestion(document_id)
    document = Document.objects.get(id=document_id)
    assert document.status == "failed" and document.error_code == "extraction_timeout"


@pytest.mark.django_db
def test_extraction_past_its_memory_budget_fails_the_document(upload, settings):
    settings.EXTRACT_MEMORY_MB = 150
    # A real DOCX (the fixture) whose body is swapped for 30 MB of varied paragraphs: about
    # 4:1 compressed, under the zip-bomb ratio and the 40 MB the directory may declare.
    paragraphs = b"".join(
        b"<w:p><w:r><w:t>%s</w:t></w:r></w:p>"
        % b" ".join(b"w%d" % ((n * 40 + k) * 7919 % 1_000_003) for k in range(40))
        for n in range(90_000)
    )
    with zipfile.ZipFile(FILES / "sample.docx") as original:
        parts = {info.filename: original.read(info) for info in original.infolist()}
    head, _, _ = parts["word/document.xml"].partition(b"<w:body>")
    parts["word/document.xml"] = head + b"<w:body>" + paragraphs + b"</w:body></w:document>"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    response = upload(("large.docx", buffer.getvalue()))
    assert response.status_code == 202, response.content
    document_id = response.json()["documents"][0]["id"]
    run_ingestion(document_id)
    document = Document.objects.get(id=document_id)
    assert document.status == "failed" and document.error_code == "extraction_memory", (
        document.error
    )
