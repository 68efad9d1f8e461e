"""A real worker process picks up a Procrastinate job and completes it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.utils import timezone

from tests.support import run_manage


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_worker_process_runs_the_sessions_clear_task():
    from adrag_site.tasks import sessions_clear

    live = SessionStore()
    live.create()
    expired = SessionStore()
    expired.create()
    Session.objects.filter(session_key=expired.session_key).update(
        expire_date=timezone.now() - timedelta(days=1)
    )
    job_id = sessions_clear.defer()

    result = run_manage("procrastinate", "worker", "--one-shot", "--queues", "default")
    assert result.returncode == 0, result.stderr

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT status, worker_id IS NOT NULL FROM procrastinate_jobs WHERE id = %s", [job_id]
        )
        status, _ = cursor.fetchone()
    assert status == "succeeded"
    assert not Session.objects.filter(session_key=expired.session_key).exists()
    assert Session.objects.filter(session_key=live.session_key).exists()


@pytest.mark.parametrize(
    ("argv", "frozen"),
    [
        (["manage.py", "procrastinate", "worker", "--queues", "runs"], True),
        (["manage.py", "procrastinate", "worker", "--one-shot"], False),  # exits when done
        (["uvicorn", "adrag_site.asgi:application"], False),
    ],
)
def test_a_long_running_worker_exits_without_collecting_its_heap(monkeypatch, argv, frozen):
    import atexit
    import gc

    from adrag_site import jobs

    registered = []
    monkeypatch.setattr("sys.argv", argv)
    monkeypatch.setattr(atexit, "register", registered.append)
    jobs.exit_without_collecting()
    assert registered == ([gc.freeze] if frozen else [])
