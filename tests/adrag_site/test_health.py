from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_health_needs_no_auth_and_reports_database_and_pgvector(client):
    response = client.get("/api/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "healthy"
    assert body["database"] == "ok"
    major, minor = (int(part) for part in body["pgvector"].split(".")[:2])
    assert (major, minor) >= (0, 5)
    assert set(body["worker"]) >= {"seen", "last_heartbeat"}


def test_health_reports_no_worker_when_none_has_a_heartbeat(client):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM procrastinate_workers")
    assert client.get("/api/health").json()["worker"]["seen"] is False


def test_health_reports_a_worker_with_a_fresh_heartbeat(client):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO procrastinate_workers DEFAULT VALUES")
    assert client.get("/api/health").json()["worker"]["seen"] is True
