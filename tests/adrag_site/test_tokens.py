"""Self-service API tokens with scopes: made by their user, shown once, stored hashed, and held
to their scope on every /api/ path, the streaming ones included."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from adrag_site.models import ApiToken
from adrag_site.tokens import key_hash

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(user):
    client = APIClient()
    client.force_login(user)
    return client


def make(signed_in, scope, **extra):
    response = signed_in.post(
        "/api/tokens", {"name": f"{scope} key", "scope": scope, **extra}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def with_key(key):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_key_is_shown_once_and_stored_hashed(signed_in, user):
    made = make(signed_in, "read", expires_in_days=30)
    assert made["key"].startswith("adrag_") and made["prefix"] == made["key"][:12]
    stored = ApiToken.objects.get(id=made["id"])
    assert stored.key_hash == key_hash(made["key"]) and made["key"] not in str(stored.__dict__)
    listed = signed_in.get("/api/tokens").json()
    assert [t["name"] for t in listed] == ["read key"] and "key" not in listed[0]
    assert listed[0]["expires_at"] is not None and listed[0]["last_used_at"] is None


def test_a_read_token_reads_and_is_refused_every_write(signed_in):
    reader = with_key(make(signed_in, "read")["key"])
    assert reader.get("/api/runs").status_code == 200
    assert reader.get("/api/knowledge-bases").status_code == 200
    for method, path, body in [
        ("post", "/api/query", {"query": "What did Marie Curie discover?"}),
        ("post", "/api/knowledge-bases", {"name": "Mine"}),
        ("post", "/api/tokens", {"name": "more", "scope": "manage"}),
        ("get", "/api/tokens", None),
        ("put", f"/api/conversations/{uuid.uuid4()}/share", {"team": "People Ops"}),
        ("delete", f"/api/conversations/{uuid.uuid4()}/share", None),
    ]:
        response = getattr(reader, method)(path, body, format="json")
        assert response.status_code == 403, (path, response.content)
        assert response.json()["code"] == "insufficient_scope"
    assert ApiToken.objects.get(name="read key").last_used_at is not None


def test_an_ask_token_asks_but_does_not_manage(signed_in):
    asker = with_key(make(signed_in, "ask")["key"])
    # Past the scope check: the body's own check answers.
    missing = asker.post("/api/query", {}, format="json")
    assert missing.status_code == 400 and missing.json()["code"] == "missing_query"
    refused = asker.post("/api/knowledge-bases", {"name": "Mine"}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"
    # The scope by its name, as the README shows it (not the enum's repr).
    assert refused.json()["error"].endswith("it needs the 'manage' scope.")


def test_a_manage_token_manages_and_a_revoked_or_expired_one_is_refused(signed_in):
    made = make(signed_in, "manage")
    manager = with_key(made["key"])
    assert manager.post("/api/knowledge-bases", {"name": "Mine"}, format="json").status_code == 201
    assert signed_in.delete(f"/api/tokens/{made['id']}").status_code == 204
    revoked = manager.get("/api/runs")
    assert revoked.status_code == 401 and revoked.json()["code"] == "authentication_failed"
    old = make(signed_in, "read")
    ApiToken.objects.filter(id=old["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert with_key(old["key"]).get("/api/runs").status_code == 401


def test_token_requests_that_are_wrong_are_json_errors(signed_in, other_user):
    bad = signed_in.post("/api/tokens", {"name": "x", "scope": "admin"}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_request"
    theirs = ApiToken.objects.create(
        user=other_user, name="theirs", scope="read", prefix="adrag_x", key_hash="0" * 64
    )
    assert signed_in.delete(f"/api/tokens/{theirs.id}").status_code == 404
    assert ApiToken.objects.filter(id=theirs.id).exists()


def test_the_tokens_page_is_there_for_a_signed_in_user(client, user):
    assert client.get("/account/tokens/").status_code == 302
    client.force_login(user)
    page = client.get("/account/tokens/").content.decode()
    assert 'id="token-form"' in page and 'value="read"' in page and "js/tokens.js" in page


def test_a_token_binds_its_scope_even_beside_a_signed_in_session(signed_in, user, staff_user):
    read_key = make(signed_in, "read")["key"]
    # Someone signed in (here: staff) sends another user's read token: the token decides.
    browser = APIClient()
    browser.force_login(staff_user)
    browser.credentials(HTTP_AUTHORIZATION=f"Token {read_key}")
    refused = browser.post("/api/tokens", {"name": "escalate", "scope": "manage"}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"
    assert not ApiToken.objects.filter(name="escalate").exists()


def test_a_token_made_with_an_expiring_token_expires_no_later(signed_in):
    manager = with_key(make(signed_in, "manage", expires_in_days=2)["key"])
    made = manager.post("/api/tokens", {"name": "child", "scope": "read"}, format="json").json()
    parent = ApiToken.objects.get(name="manage key")
    assert ApiToken.objects.get(id=made["id"]).expires_at == parent.expires_at


@pytest.mark.parametrize("kind", ["scoped key", "DRF token"])
def test_a_token_request_looks_its_token_up_once(signed_in, user, kind):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from rest_framework.authtoken.models import Token

    key = (
        make(signed_in, "read")["key"]
        if kind == "scoped key"
        else Token.objects.create(user=user).key
    )
    client = with_key(key)
    assert client.get("/api/runs").status_code == 200  # the first use writes last_used_at
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/api/runs").status_code == 200
    table = ApiToken._meta.db_table if kind == "scoped key" else Token._meta.db_table
    lookups = [q["sql"] for q in queries if f'FROM "{table}"' in q["sql"]]
    # The middleware binds the token's scope; the view reads its result, not the table again.
    assert len(lookups) == 1, lookups
