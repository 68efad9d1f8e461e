"""What the document viewer reads: a document's passages and its stored file, for readers only."""

from __future__ import annotations

import pytest

from adrag_site.models import AuditEvent
from knowledge.models import Chunk
from tests.knowledge.conftest import FILES, run_ingestion

pytestmark = pytest.mark.django_db


@pytest.fixture
def pdf(upload):
    document_id = upload("sample.pdf").json()["documents"][0]["id"]
    return run_ingestion(document_id)


def test_passages_come_in_order_with_their_ids_pages_and_sections(auth_client, pdf):
    body = auth_client.get(f"/api/documents/{pdf.id}/passages").json()
    assert body["document"]["id"] == pdf.id and body["truncated"] is False
    chunks = list(Chunk.objects.filter(document=pdf).order_by("ordinal"))
    assert [p["id"] for p in body["passages"]] == [c.id for c in chunks]
    assert {p["page"] for p in body["passages"]} == {1, 2}
    assert body["passages"][0]["text"] == chunks[0].text
    assert body["passages"][0]["section"] == ["Retrieval Augmented Generation at CERN"]


def test_passages_come_as_a_window_around_the_cited_one(auth_client, pdf, monkeypatch):
    from knowledge import viewer_apis

    monkeypatch.setattr(viewer_apis, "MAX_PASSAGES", 1)
    last = Chunk.objects.filter(document=pdf).order_by("ordinal").last()
    whole = auth_client.get(f"/api/documents/{pdf.id}/passages").json()
    assert whole["truncated"] is True and whole["passages"][0]["id"] != last.id
    around = auth_client.get(f"/api/documents/{pdf.id}/passages?around={last.id}").json()
    assert [p["id"] for p in around["passages"]] == [last.id]
    bad = auth_client.get(f"/api/documents/{pdf.id}/passages?around=first")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_request"


def test_the_file_is_the_upload_as_a_download_that_never_runs_as_a_page(auth_client, pdf):
    response = auth_client.get(f"/api/documents/{pdf.id}/file")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == (FILES / "sample.pdf").read_bytes()
    assert response["Content-Type"] == "application/octet-stream"
    assert response["Content-Disposition"].startswith("attachment")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in response["Content-Security-Policy"]
    downloaded = AuditEvent.objects.get(action="document_downloaded")
    assert downloaded.target_id == str(pdf.id) and downloaded.details["file_name"] == "sample.pdf"


def test_someone_who_cannot_read_the_knowledge_base_gets_404(client, django_user_model, pdf):
    client.force_login(django_user_model.objects.create_user("bob", "bob@example.com", "x"))
    for path in ("passages", "file"):
        response = client.get(f"/api/documents/{pdf.id}/{path}")
        assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert client.get(f"/documents/{pdf.id}/").status_code == 404
    assert client.get("/api/documents/999999/passages").status_code == 404
