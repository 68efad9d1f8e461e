from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_other_workers():
    """Only this test's workers: live stacks' rows (unmanaged, so never flushed) are set aside
    inside the test's transaction, which rolls back."""
    from adrag_site.models import WorkerPresence

    WorkerPresence.objects.all().delete()


def present(worker: str, queues: str, *, seen_ago: float = 0):
    from adrag_site.models import WorkerPresence

    now = timezone.now()
    return WorkerPresence.objects.create(
        worker=worker, queues=queues, started_at=now, seen_at=now - timedelta(seconds=seen_ago)
    )


def test_health_needs_no_auth_and_reports_database_and_pgvector(client):
    present("host:1", "runs,default")
    present("host:2", "ingest")
    response = client.get("/api/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "healthy"
    assert body["database"] == "ok"
    major, minor = (int(part) for part in body["pgvector"].split(".")[:2])
    assert (major, minor) >= (0, 5)
    assert set(body["worker"]) >= {"seen", "last_heartbeat"}
    assert {name: queue["workers"] for name, queue in body["queues"].items()} == {
        "runs": 1,
        "ingest": 1,
    }


def test_a_queue_without_a_live_worker_is_degraded_503(client, settings):
    present("host:1", "runs,default")
    present("host:2", "ingest", seen_ago=settings.WORKER_SEEN_SECONDS + 5)  # gone quiet
    response = client.get("/api/health")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded" and body["database"] == "ok"
    assert body["queues"]["runs"]["workers"] == 1 and body["queues"]["ingest"]["workers"] == 0
    # A worker naming no queue takes them all.
    present("host:3", "")
    assert client.get("/api/health").json()["status"] == "healthy"


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
