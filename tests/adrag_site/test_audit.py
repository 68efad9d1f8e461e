"""The audit trail of one session: who did what, when, from where, with the request id."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from adrag_site.audit import audit_purge
from adrag_site.models import AuditEvent
from knowledge.services import kb_create
from queries.models import Conversation, QueryRun

pytestmark = pytest.mark.django_db


def test_one_sessions_acts_are_in_the_trail_in_order_for_staff_only(user, staff_user, settings):
    team = Group.objects.create(name="Physics")
    user.groups.add(team)
    kb = kb_create(owner=user, name="Notes")
    browser = Client(REMOTE_ADDR="203.0.113.7")
    assert (
        browser.post("/accounts/login/", {"username": "alice", "password": "wrong"}).status_code
        == 200
    )
    browser.post("/accounts/login/", {"username": "alice", "password": "alice-pass-123"})
    made = browser.post(
        "/api/tokens", {"name": "script", "scope": "manage"}, content_type="application/json"
    ).json()
    script = Client(REMOTE_ADDR="198.51.100.2", HTTP_AUTHORIZATION=f"Token {made['key']}")
    uploaded = script.post(
        f"/api/knowledge-bases/{kb.id}/documents",
        {"file": SimpleUploadedFile("leave.txt", b"Staff get 25 days of annual leave.")},
        HTTP_X_REQUEST_ID="upload-request-1",
    )
    assert uploaded.status_code == 202, uploaded.content
    document_id = uploaded.json()["documents"][0]["id"]
    browser.patch(
        f"/api/knowledge-bases/{kb.id}", {"team": "Physics"}, content_type="application/json"
    )
    conversation = Conversation.objects.create(user=user, title="Leave")
    QueryRun.objects.create(
        user=user, conversation=conversation, query="Leave?", provider="extractive"
    )
    browser.get(f"/api/conversations/{conversation.id}/export?format=md")
    browser.delete(f"/api/documents/{document_id}")
    browser.delete(f"/api/tokens/{made['id']}")
    browser.post("/accounts/logout/")

    events = list(AuditEvent.objects.order_by("at", "id"))
    assert [(e.action, e.actor_name) for e in events] == [
        ("sign_in_failed", "alice"),
        ("sign_in", "alice"),
        ("token_created", "alice"),
        ("token_used", "alice"),
        ("upload", "alice"),
        ("sharing_changed", "alice"),
        ("export", "alice"),
        ("document_deleted", "alice"),
        ("token_revoked", "alice"),
        ("sign_out", "alice"),
    ]
    upload = events[4]
    assert upload.ip == "198.51.100.2" and upload.request_id == "upload-request-1"
    assert upload.target_type == "document" and upload.target_id == str(document_id)
    assert upload.details["file_name"] == "leave.txt"
    assert events[5].details == {"before": None, "after": "Physics"}
    assert events[1].ip == "203.0.113.7" and events[1].details == {"via": "password"}

    assert browser.get("/api/audit-events").status_code == 401  # signed out
    browser.force_login(user)
    refused = browser.get("/api/audit-events")
    assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    staff = Client()
    staff.force_login(staff_user)
    listed = staff.get("/api/audit-events", {"actor": "alice", "action": "upload"}).json()
    assert listed["count"] == 1 and listed["results"][0]["target_id"] == str(document_id)
    assert staff.get("/api/audit-events", {"action": "nope"}).status_code == 400

    settings.AUDIT_RETENTION_DAYS = 30
    AuditEvent.objects.filter(action="sign_in_failed").update(
        at=timezone.now() - timedelta(days=31)
    )
    assert audit_purge() == 1
