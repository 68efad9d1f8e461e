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
