"""Isolation: a user reaches only KBs they own, their teams' KBs, or any if staff."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from knowledge.models import Document
from tests.knowledge.conftest import run_ingestion

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


@pytest.fixture
def alice_doc(upload, kb):
    document_id = upload("sample.txt").json()["documents"][0]["id"]
    run_ingestion(document_id)
    return Document.objects.get(id=document_id)


def test_user_b_can_neither_list_read_delete_nor_upload_into_a_kb(
    alice_doc, kb, other_user, upload
):
    bob = client_for(other_user)
    assert bob.get("/api/knowledge-bases").json() == {"knowledge_bases": [], "count": 0}
    for path in (
        f"/api/knowledge-bases/{kb.id}",
        f"/api/knowledge-bases/{kb.id}/documents",
        f"/api/knowledge-bases/{kb.id}/stats",
        f"/api/documents/{alice_doc.id}",
    ):
        response = bob.get(path)
        assert response.status_code == 404 and response.json()["code"] == "not_found", path
    assert bob.delete(f"/api/documents/{alice_doc.id}").status_code == 404
    assert (
        bob.patch(f"/api/knowledge-bases/{kb.id}", {"name": "mine"}, format="json").status_code
        == 404
    )
    assert bob.post(f"/api/documents/{alice_doc.id}/reindex").status_code == 404
    assert upload("sample.md", client=bob).status_code == 404
    # The spec's idempotent delete answers as for a missing KB and deletes nothing.
    response = bob.delete(f"/api/knowledge-bases/{kb.id}")
    assert response.status_code == 200 and response.json()["deleted"] is False
    assert bob.delete(f"/api/knowledge-bases/{alice_doc.sha256}").json()["deleted"] is False
    assert bob.delete("/api/clear").json()["documents_deleted"] == 0
    assert bob.get("/api/documents").json()["vector_count"] == 0
    assert Document.objects.filter(id=alice_doc.id).exists()


def test_team_members_read_and_write_documents_but_only_the_owner_manages(
    kb, user, other_user, alice_doc, upload
):
    team = Group.objects.create(name="lab")
    user.groups.add(team)
    other_user.groups.add(team)
    owner = client_for(user)
    assert (
        owner.patch(f"/api/knowledge-bases/{kb.id}", {"team": "lab"}, format="json").status_code
        == 200
    )
    bob = client_for(other_user)
    listed = bob.get("/api/knowledge-bases").json()["knowledge_bases"]
    assert [item["id"] for item in listed] == [kb.id] and listed[0]["team"]["name"] == "lab"
    assert bob.get(f"/api/documents/{alice_doc.id}").status_code == 200
    assert upload("sample.md", client=bob).status_code == 202
    assert (
        bob.patch(f"/api/knowledge-bases/{kb.id}", {"name": "x"}, format="json").status_code == 403
    )
    assert bob.delete(f"/api/knowledge-bases/{kb.id}").status_code == 403


def test_sharing_with_a_team_you_are_not_in_is_refused(auth_client, kb):
    Group.objects.create(name="strangers")
    response = auth_client.patch(
        f"/api/knowledge-bases/{kb.id}", {"team": "strangers"}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid_team"


def test_staff_see_every_kb(kb, staff_user):
    staff = client_for(staff_user)
    assert [item["id"] for item in staff.get("/api/knowledge-bases").json()["knowledge_bases"]] == [
        kb.id
    ]
    assert staff.get(f"/api/knowledge-bases/{kb.id}").status_code == 200


def test_owner_deletes_a_kb_with_everything_in_it(auth_client, kb, alice_doc, settings):
    from pathlib import Path

    from knowledge.models import Chunk, Entity, Posting

    stored = Path(settings.MEDIA_ROOT, alice_doc.stored_path)
    assert stored.exists()
    response = auth_client.delete(f"/api/knowledge-bases/{kb.id}")
    assert response.status_code == 200 and response.json()["deleted"] is True
    assert (
        not Chunk.objects.exists() and not Posting.objects.exists() and not Entity.objects.exists()
    )
    assert not stored.exists()
    again = auth_client.delete(f"/api/knowledge-bases/{kb.id}")
    assert again.status_code == 200 and again.json()["deleted"] is False
