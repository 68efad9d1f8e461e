"""The test harness's own behaviour that the suite leans on: a transactional test's TRUNCATE
that PostgreSQL picks as a deadlock's victim (a shared stack's worker holding a lock it needs)
runs again instead of leaving the test's rows to the next test."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.db import connection, transaction

from tests.support import retry_on_deadlock

pytestmark = pytest.mark.django_db(transaction=True)


def _session():
    params = connection.get_connection_params()
    return psycopg.connect(**{k: v for k, v in params.items() if k != "cursor_factory"})


def _wait_for_a_lock_wait(watcher, pid: int) -> None:
    """Return once the backend `pid` waits for a lock (the TRUNCATE behind the worker's)."""
    for _ in range(500):
        row = watcher.execute(
            "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid]
        ).fetchone()
        if row and row[0] == "Lock":
            return
        time.sleep(0.02)
    raise AssertionError("the TRUNCATE never waited for the worker's lock")


def test_a_truncate_made_a_deadlock_s_victim_runs_again_and_empties_the_tables():
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS lock_a (id int)")
        cursor.execute("CREATE TABLE IF NOT EXISTS lock_b (id int)")
        cursor.execute("INSERT INTO lock_a VALUES (1); INSERT INTO lock_b VALUES (1)")
    truncating = connection.connection.info.backend_pid
    holder, watcher = _session(), _session()
    watcher.autocommit = True
    holding, failures = threading.Event(), []

    def hold() -> None:
        # A worker's transaction: a row lock on lock_a, then, once the TRUNCATE holds lock_b
        # and waits for lock_a, a read of lock_b: each waits for the other.
        try:
            with holder.transaction():
                holder.execute("SET LOCAL deadlock_timeout = '30s'")
                holder.execute("SELECT * FROM lock_a FOR SHARE")
                holding.set()
                _wait_for_a_lock_wait(watcher, truncating)
                holder.execute("SELECT * FROM lock_b")
        except Exception as error:  # noqa: BLE001 - reported by the test below
            failures.append(error)

    attempts = []

    def truncate() -> None:
        attempts.append(time.monotonic())
        with transaction.atomic(), connection.cursor() as cursor:
            # PostgreSQL looks for a deadlock once, when a wait reaches deadlock_timeout: by
            # then the worker waits too, and its own look is far later.
            cursor.execute("SET LOCAL deadlock_timeout = '2s'")
            cursor.execute("TRUNCATE lock_b, lock_a")

    worker = threading.Thread(target=hold)
    try:
        worker.start()
        assert holding.wait(10)
        retry_on_deadlock(truncate)
        worker.join(10)
        assert not worker.is_alive() and failures == []
        with connection.cursor() as cursor:
            cursor.execute("SELECT (SELECT count(*) FROM lock_a) + (SELECT count(*) FROM lock_b)")
            assert cursor.fetchone()[0] == 0
        assert len(attempts) == 2  # the first was the deadlock's victim
    finally:
        if worker.is_alive():
            holder.cancel()
            worker.join(10)
        holder.close()
        watcher.close()
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '5s'")
            cursor.execute("DROP TABLE IF EXISTS lock_a, lock_b")


def test_other_errors_are_not_retried():
    calls = []

    def fails() -> None:
        calls.append(1)
        raise ValueError("not a deadlock")

    with pytest.raises(ValueError):
        retry_on_deadlock(fails)
    assert calls == [1]
