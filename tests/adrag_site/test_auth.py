from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

PROTECTED = ["/api/anything", "/api/knowledge-bases", "/api/runs", "/api/query", "/api/providers"]


@pytest.mark.parametrize("path", PROTECTED)
def test_api_paths_without_credentials_answer_401_json(client, path):
    response = client.get(path)
    assert response.status_code == 401
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {
        "error": "Authentication credentials were not provided.",
        "code": "not_authenticated",
    }
    assert response["WWW-Authenticate"] == "Token"


def test_wrong_token_answers_401_json(client):
    response = client.get("/api/anything", HTTP_AUTHORIZATION="Token not-a-real-token")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_unknown_api_path_with_token_answers_404_json(auth_client):
    response = auth_client.get("/api/no-such-route")
    assert response.status_code == 404
    assert response.json() == {"error": "Not found.", "code": "not_found"}


def test_session_login_reaches_the_api(client, user):
    # Signed in through the form: login throttling (django-axes) needs the request.
    login = client.post("/accounts/login/", {"username": "alice", "password": "alice-pass-123"})
    assert login.status_code == 302
    response = client.get("/api/no-such-route")
    assert response.status_code == 404


def test_portal_pages_redirect_anonymous_users_to_login(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_login_and_logout_pages(client, user):
    page = client.get("/accounts/login/")
    assert page.status_code == 200
    assert b'name="username"' in page.content and b"csrfmiddlewaretoken" in page.content
    response = client.post("/accounts/login/", {"username": "alice", "password": "alice-pass-123"})
    assert response.status_code == 302
    home = client.get("/")
    assert home.status_code == 200 and b"alice" in home.content
    client.post("/accounts/logout/")
    assert client.get("/").status_code == 302


def test_drf_create_token_and_createsuperuser_commands_work(django_user_model, monkeypatch):
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    monkeypatch.setenv("DJANGO_SUPERUSER_USERNAME", "root")
    monkeypatch.setenv("DJANGO_SUPERUSER_EMAIL", "root@example.com")
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "root-pass-123")
    call_command("createsuperuser", interactive=False, verbosity=0)
    admin = django_user_model.objects.get(username="root")
    assert admin.is_superuser and admin.check_password("root-pass-123")
    call_command("drf_create_token", "root", verbosity=0)
    assert Token.objects.filter(user=admin).exists()


@pytest.mark.django_db
def test_a_drf_token_s_use_is_audited_once_a_minute_without_its_key(django_user_model):
    from django.core.cache import cache
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from adrag_site.models import AuditEvent

    cache.clear()
    user = django_user_model.objects.create_user("tok", password="tok-pass-123")
    key = Token.objects.create(user=user).key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/runs").status_code == 200
    assert client.get("/api/runs").status_code == 200
    used = AuditEvent.objects.filter(action="token_used", actor=user)
    assert used.count() == 1  # once a minute, not once a request
    event = used.get()
    assert event.details["kind"] == "drf" and key not in event.target_id
