"""Per-user run limits answer 429 JSON before any stream opens."""

from __future__ import annotations

import pytest

from queries.models import QueryRun

pytestmark = pytest.mark.django_db


def test_too_many_concurrent_runs_is_429(auth_client, user, settings):
    settings.RUNS_MAX_CONCURRENT_PER_USER = 1
    QueryRun.objects.create(user=user, query="busy", provider="extractive", status="running")
    response = auth_client.post("/api/query", {"query": "another"}, format="json")
    assert response.status_code == 429
    assert response.json()["code"] == "rate_limited" and int(response["Retry-After"]) >= 1
    assert QueryRun.objects.count() == 1


def test_too_many_runs_in_an_hour_is_429(auth_client, user, settings):
    settings.RUNS_PER_HOUR_PER_USER = 2
    for n in range(2):
        QueryRun.objects.create(user=user, query=f"q{n}", provider="extractive", status="succeeded")
    response = auth_client.post("/api/query", {"query": "third"}, format="json")
    assert response.status_code == 429 and "last hour" in response.json()["error"]


def test_session_users_need_csrf_on_query(user):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post("/api/query", {"query": "x"}, content_type="application/json")
    assert response.status_code == 403 and response.json()["code"] == "csrf_failed"
