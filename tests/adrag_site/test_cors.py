"""CORS for configured front ends on /api/, and the session and CSRF working for them.

The browser's side of it (a page on another port calling the API and reading a stream) is in
tests/portal/test_cross_origin.py.
"""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

FRONT_END = "http://app.example.test:5173"
STRANGER = "http://evil.example.test"


@pytest.fixture(autouse=True)
def _front_end(settings):
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.CORS_ALLOWED_ORIGINS = [FRONT_END]
    settings.CSRF_TRUSTED_ORIGINS = [FRONT_END]


def test_a_preflight_from_the_front_end_is_answered_before_authentication(client):
    response = client.options(
        "/api/query",
        headers={
            "Origin": FRONT_END,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, x-csrftoken, last-event-id",
        },
    )
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == FRONT_END
    assert response["Access-Control-Allow-Credentials"] == "true"
    allowed = {h.strip() for h in response["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "x-csrftoken", "last-event-id", "authorization"} <= allowed
    assert "POST" in response["Access-Control-Allow-Methods"]


def test_other_origins_and_portal_pages_get_no_cors_headers(client, user):
    response = client.options(
        "/api/query",
        headers={"Origin": STRANGER, "Access-Control-Request-Method": "POST"},
    )
    assert "Access-Control-Allow-Origin" not in response
    client.force_login(user)
    assert "Access-Control-Allow-Origin" not in client.get(
        "/api/knowledge-bases", headers={"Origin": STRANGER}
    )
    # The portal's pages are not an API: no front end reads them.
    assert "Access-Control-Allow-Origin" not in client.get("/", headers={"Origin": FRONT_END})


def test_errors_carry_cors_headers_and_expose_the_run_and_request_ids(client):
    response = client.get("/api/runs", headers={"Origin": FRONT_END})
    assert response.status_code == 401
    assert response["Access-Control-Allow-Origin"] == FRONT_END
    exposed = {h.strip() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert {"X-Run-Id", "X-Request-ID", "Retry-After"} <= exposed


def test_a_session_post_from_the_front_end_passes_csrf_with_the_token_endpoint(user):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    token = browser.get("/api/csrf", headers={"Origin": FRONT_END})
    assert token.status_code == 200 and token["Access-Control-Allow-Origin"] == FRONT_END
    assert "csrftoken" in token.cookies
    csrf = token.json()["csrf_token"]

    def create(origin: str, header: str | None):
        headers = {"Origin": origin} | ({"X-CSRFToken": header} if header else {})
        return browser.post(
            "/api/knowledge-bases",
            {"name": f"From {origin}"},
            content_type="application/json",
            headers=headers,
        )

    created = create(FRONT_END, csrf)
    assert created.status_code == 201, created.content
    assert created["Access-Control-Allow-Origin"] == FRONT_END
    # Without the token, or from an origin that is not trusted, the session cannot write.
    missing = create(FRONT_END, None)
    assert missing.status_code == 403 and "CSRF token" in missing.json()["error"]
    refused = create(STRANGER, csrf)
    assert refused.status_code == 403
    assert "Origin checking failed" in refused.json()["error"]


def test_sign_in_may_return_to_a_configured_front_end_only(client, user):
    def sign_in(next_url: str) -> str:
        response = Client().post(
            "/accounts/login/?next=" + next_url,
            {"username": "alice", "password": "alice-pass-123"},
        )
        assert response.status_code == 302
        return response["Location"]

    assert sign_in(FRONT_END + "/chat") == FRONT_END + "/chat"
    assert sign_in(STRANGER + "/phish") == "/"
    # Browsers hold the redirect after a form's submission to the page's form-action.
    policy = client.get("/accounts/login/")["Content-Security-Policy"]
    assert f"form-action 'self' {FRONT_END};" in policy and "script-src 'self';" in policy
