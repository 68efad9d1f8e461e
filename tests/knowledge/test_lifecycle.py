"""Concurrent uploads, cancel, the spec's routes, stats and the ingest command."""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.db import connection, connections

from knowledge import services
from knowledge.ingestion import documents_reap
from knowledge.models import Chunk, Document, KnowledgeBase
from tests.knowledge.conftest import FILES, run_ingestion


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_uploads_of_the_same_file_end_as_one_document(kb, user):
    data = (FILES / "sample.py").read_bytes()
    barrier = threading.Barrier(2)
    results, errors = [], []

    def upload(name):
        try:
            barrier.wait()
            results.append(services.document_upload(kb=kb, file_name=name, data=data, user=user))
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=upload, args=(f"copy{i}.py",)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert Document.objects.filter(knowledge_base=kb).count() == 1
    assert {document.id for document, _ in results} == {Document.objects.get().id}
    assert sorted(queued for _, queued in results) == [False, True]
    with connection.cursor() as cursor:
        # Procrastinate's table outlives other tests' flushes: count this document's jobs.
        cursor.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'knowledge.ingest_document' "
            "AND (args->>'document_id')::bigint = %s",
            [Document.objects.get().id],
        )
        assert cursor.fetchone()[0] == 1


@pytest.mark.django_db
def test_cancel_a_queued_ingestion(upload, auth_client):
    document_id = upload("sample.txt").json()["documents"][0]["id"]
    response = auth_client.post(f"/api/documents/{document_id}/cancel")
    assert response.status_code == 202 and response.json()["status"] == "cancelled"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT j.status FROM procrastinate_jobs j JOIN knowledge_document d ON d.job_id = j.id "
            "WHERE d.id = %s",
            [document_id],
        )
        assert cursor.fetchone()[0] == "cancelled"
    # The job, if a worker still reached it, does nothing.
    assert run_ingestion(document_id).status == "cancelled"
    again = auth_client.post(f"/api/documents/{document_id}/cancel")
    assert again.status_code == 409 and again.json()["code"] == "not_active"


@pytest.mark.django_db(transaction=True)
def test_cancel_a_running_ingestion_keeps_the_previous_version(upload, auth_client, kb):
    document_id = upload("sample.md").json()["documents"][0]["id"]
    run_ingestion(document_id)
    before = sorted(Chunk.objects.filter(document_id=document_id).values_list("id", flat=True))
    big = (
        "\n\n".join(
            f"Paragraph {i} about Marie Curie and the CERN archive." * 4 for i in range(400)
        )
    ).encode()
    # Re-index the same document with a long text, so embedding takes many batches.
    document = Document.objects.get(id=document_id)
    from pathlib import Path

    from django.conf import settings

    Path(settings.MEDIA_ROOT, document.stored_path).write_bytes(big)
    assert services.document_reindex(document=document)
    worker = threading.Thread(target=lambda: (run_ingestion(document_id), connections.close_all()))
    worker.start()
    deadline = time.monotonic() + 60
    while Document.objects.get(id=document_id).status != "embedding":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    response = auth_client.post(f"/api/documents/{document_id}/cancel")
    assert response.status_code == 202
    worker.join(60)
    document.refresh_from_db()
    assert document.status == "cancelled"
    assert 0 < document.progress_done < document.progress_total
    assert (
        sorted(Chunk.objects.filter(document_id=document_id).values_list("id", flat=True)) == before
    )


@pytest.mark.django_db
def test_spec_routes_keep_their_shapes_scoped_to_the_caller(auth_client, user):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = auth_client.post(
        "/api/upload",
        {"file": SimpleUploadedFile("notes.txt", b"Marie Curie worked at CERN.")},
        format="multipart",
    )
    assert response.status_code == 202
    body = response.json()
    assert set(body) >= {
        "message",
        "file_name",
        "file_hash",
        "chunks",
        "vectors",
        "entities",
        "edges",
    }
    default = KnowledgeBase.objects.get(owner=user, name="Default")
    assert body["knowledge_base"] == default.id
    run_ingestion(body["document_id"])
    counts = auth_client.get("/api/documents").json()
    assert counts["vector_count"] == counts["bm25_count"] == 1
    assert counts["graph"]["entities"] >= 2 and counts["graph"]["edges"] >= 2
    listed = auth_client.get("/api/knowledge-bases").json()
    assert listed["count"] == 1 and listed["knowledge_bases"][0]["document_count"] == 1
    stats = auth_client.get(f"/api/knowledge-bases/{default.id}/stats").json()
    assert stats["documents_by_status"] == {"ready": 1} and stats["chunks"] == 1
    # The spec's per-file delete, by hash, is idempotent.
    first = auth_client.delete(f"/api/knowledge-bases/{body['file_hash']}")
    assert first.json()["deleted"] is True
    second = auth_client.delete(f"/api/knowledge-bases/{body['file_hash']}")
    assert second.status_code == 200 and second.json()["deleted"] is False
    assert auth_client.get("/api/documents").json()["vector_count"] == 0


@pytest.mark.django_db
def test_clear_removes_only_the_callers_own_documents(upload, auth_client, other_user):
    mine = upload("sample.txt").json()["documents"][0]["id"]
    theirs_kb = services.kb_create(owner=other_user, name="Theirs")
    theirs, _ = services.document_upload(
        kb=theirs_kb, file_name="t.txt", data=b"Other team text about NASA.", user=other_user
    )
    response = auth_client.delete("/api/clear")
    assert response.json()["documents_deleted"] == 1
    assert not Document.objects.filter(id=mine).exists()
    assert Document.objects.filter(id=theirs.id).exists()


@pytest.mark.django_db
def test_kb_create_validates_and_refuses_duplicate_names(auth_client):
    assert (
        auth_client.post("/api/knowledge-bases", {}, format="json").json()["code"]
        == "invalid_request"
    )
    created = auth_client.post("/api/knowledge-bases", {"name": "Lab notes"}, format="json")
    assert created.status_code == 201 and created.json()["name"] == "Lab notes"
    duplicate = auth_client.post("/api/knowledge-bases", {"name": "Lab notes"}, format="json")
    assert duplicate.status_code == 409 and duplicate.json()["code"] == "name_taken"
    renamed = auth_client.patch(
        f"/api/knowledge-bases/{created.json()['id']}", {"name": "Lab"}, format="json"
    )
    assert renamed.json()["name"] == "Lab"


@pytest.mark.django_db
def test_ingest_command_reads_a_folder_and_a_beir_corpus(tmp_path, user, django_user_model):
    user.is_superuser = True
    user.save(update_fields=["is_superuser"])
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("sample.pdf", "sample.py", "sample.csv"):
        (folder / name).write_bytes((FILES / name).read_bytes())
    (folder / "ignored.exe").write_bytes(b"MZ")
    corpus = tmp_path / "beir" / "corpus.jsonl"
    corpus.parent.mkdir()
    corpus.write_text(
        "\n".join(
            json.dumps(
                {"_id": f"d{i}", "title": f"Title {i}", "text": f"Body text number {i} on CERN."}
            )
            for i in range(5)
        )
    )
    # In-process: the command's own code, against this test's transaction.
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("ingest", str(folder), "--kb", "Folder", stdout=out, stderr=StringIO())
    assert "3 ready" in out.getvalue() and "0 failed" in out.getvalue()
    out = StringIO()
    call_command("ingest", str(corpus.parent), "--kb", "Beir", stdout=out, stderr=StringIO())
    assert "5 ready" in out.getvalue()
    beir = KnowledgeBase.objects.get(name="Beir")
    assert sorted(beir.documents.values_list("external_id", flat=True)) == [
        f"d{i}" for i in range(5)
    ]
    text = Chunk.objects.filter(document__external_id="d3").values_list("text", flat=True).first()
    assert text == "Title 3 Body text number 3 on CERN."
    out = StringIO()
    call_command("ingest", str(corpus), "--kb", "Beir", stdout=out, stderr=StringIO())
    assert "0 ready, 5 unchanged" in out.getvalue()
    assert beir.documents.count() == 5


@pytest.mark.django_db
def test_an_ingestion_whose_job_died_is_failed_not_left_running(upload):
    document_id = upload("sample.txt").json()["documents"][0]["id"]
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO procrastinate_workers (last_heartbeat) VALUES (now() - interval '1 hour') RETURNING id"
        )
        worker_id = cursor.fetchone()[0]
        cursor.execute(
            "UPDATE procrastinate_jobs SET status = 'doing', worker_id = %s WHERE id = "
            "(SELECT job_id FROM knowledge_document WHERE id = %s)",
            [worker_id, document_id],
        )
    Document.objects.filter(id=document_id).update(status="embedding")
    assert documents_reap() == 1
    document = Document.objects.get(id=document_id)
    assert document.status == "failed" and document.error_code == "ingest_interrupted"
    assert documents_reap() == 0


def test_an_in_process_ingestion_that_died_is_indexed_again_by_the_next(kb, user):
    from datetime import timedelta

    from django.utils import timezone

    from knowledge.bulk import TextItem, documents_ingest_inline

    item = TextItem("notes.txt", b"The Lisbon office opened in 2009 and hosts the data team.")
    assert documents_ingest_inline(kb=kb, items=[item], user=user)["ready"] == 1
    # A process that died mid-way left it in progress, with no chunks and no job.
    document = Document.objects.get(knowledge_base=kb)
    Chunk.objects.filter(document=document).delete()
    Document.objects.filter(id=document.id).update(status="embedding", job_id=None)
    # Still moving (a live ingestion's progress is recent): left alone.
    assert documents_reap() == 0
    Document.objects.filter(id=document.id).update(updated_at=timezone.now() - timedelta(hours=1))
    summary = documents_ingest_inline(kb=kb, items=[item], user=user)
    assert summary["ready"] == 1 and summary["skipped"] == 0
    document.refresh_from_db()
    assert document.status == "ready" and Chunk.objects.filter(document=document).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("worker_stopping", "status", "error_code"),
    [(True, "failed", "ingest_interrupted"), (False, "cancelled", "")],
)
def test_an_aborted_ingestion_ends_interrupted_when_its_worker_stops_and_cancelled_otherwise(
    upload, worker_stopping, status, error_code
):
    # Ctrl-C or a deployment aborts a worker's jobs: the team did not cancel its upload.
    from knowledge.ingestion import document_ingest_run

    document_id = upload(("notes.txt", b"Radium glows in the dark.")).json()["documents"][0]["id"]
    document = document_ingest_run(
        document_id=document_id,
        should_abort=lambda: True,
        worker_stopping=lambda: worker_stopping,
    )
    document.refresh_from_db()
    assert (document.status, document.error_code) == (status, error_code)
    assert document.chunk_count == 0
