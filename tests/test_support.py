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


def test_a_truncate_made_a_deadlock_s_victim_runs_again_and_empties_the_tables():
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE lock_a (id int); CREATE TABLE lock_b (id int)")
        cursor.execute("INSERT INTO lock_a VALUES (1); INSERT INTO lock_b VALUES (1)")
    params = connection.get_connection_params()
    holder = psycopg.connect(**{k: v for k, v in params.items() if k != "cursor_factory"})
    holding = threading.Event()

    def hold() -> None:
        # A worker's transaction: a row lock on lock_a, then a read of lock_b, which waits
        # behind the TRUNCATE that holds lock_b and waits for lock_a.
        with holder.transaction():
            holder.execute("SET LOCAL deadlock_timeout = '10s'")
            holder.execute("SELECT * FROM lock_a FOR SHARE")
            holding.set()
            time.sleep(0.3)
            holder.execute("SELECT * FROM lock_b")

    attempts = []

    def truncate() -> None:
        attempts.append(time.monotonic())
        with transaction.atomic(), connection.cursor() as cursor:
            # PostgreSQL looks for a deadlock once, when a wait reaches deadlock_timeout: the
            # TRUNCATE's look comes after the worker waits too, and long before the worker's.
            cursor.execute("SET LOCAL deadlock_timeout = '600ms'")
            cursor.execute("TRUNCATE lock_b, lock_a")

    worker = threading.Thread(target=hold)
    try:
        worker.start()
        assert holding.wait(5)
        retry_on_deadlock(truncate)
        worker.join(5)
        with connection.cursor() as cursor:
            cursor.execute("SELECT (SELECT count(*) FROM lock_a) + (SELECT count(*) FROM lock_b)")
            assert cursor.fetchone()[0] == 0
        assert len(attempts) == 2  # the first was the deadlock's victim
    finally:
        worker.join(5)
        holder.close()
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS lock_a, lock_b")


def test_other_errors_are_not_retried():
    calls = []

    def fails() -> None:
        calls.append(1)
        raise ValueError("not a deadlock")

    with pytest.raises(ValueError):
        retry_on_deadlock(fails)
    assert calls == [1]
