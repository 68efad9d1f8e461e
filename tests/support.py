"""What tests and their live stacks share, outside pytest's conftest: the repository's root,
the environment of a child process on the test database, and manage.py against it."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse, urlunparse

from django.db import connection

ROOT = Path(__file__).resolve().parent.parent

SHARED_STREAM_IDLE_TIMEOUT = 8
# The embedder of the processes a test starts (EMBEDDER_PLUGIN): the small deterministic one
# while a test on live processes runs (tests/conftest.py `_live_embedder`), else the real one.
HASH_EMBEDDER = "tests.embedding.HashEncoder"
spawned_embedder = {"plugin": ""}


def child_env(**extra: str) -> dict[str, str]:
    """Return an environment in which a child process uses this test run's database."""
    env = dict(os.environ)
    # A server under test must run with Django's async-safety checks on.
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    name = connection.settings_dict["NAME"]
    url = env.get("DATABASE_URL")
    if url:
        parsed = urlparse(url)
        env["DATABASE_URL"] = urlunparse(parsed._replace(path="/" + name))
    else:
        env["ADRAG_DB_NAME"] = name
    env.setdefault("SECRET_KEY", "test-secret-key-" + "x" * 40)
    env["EMBEDDER_PLUGIN"] = spawned_embedder["plugin"]
    env["PYTHONUNBUFFERED"] = "1"
    # The project's settings with the tests' password hasher (tests/live_settings.py); the
    # tests package is importable whatever folder the process starts in.
    env["DJANGO_SETTINGS_MODULE"] = "tests.live_settings"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    from django.conf import settings

    env["ADRAG_MEDIA_ROOT"] = str(settings.MEDIA_ROOT)
    env.update(extra)
    return env


def run_manage(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    """Run a manage.py command against the test database and return the finished process."""
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=child_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@contextlib.contextmanager
def shared_rows(django_db_blocker, tmp_path_factory):
    """Make rows that the tests of a module share (a module-scoped fixture): committed outside
    the tests' transactions, so each test (`django_db`, rolled back) reads them as they were
    made, and files under a media folder of their own. Pair with `flush_database`."""
    from django.test import override_settings

    media = tmp_path_factory.mktemp("shared-media")
    with django_db_blocker.unblock(), override_settings(MEDIA_ROOT=media):
        yield


def flush_database(django_db_blocker) -> None:
    """Empty the tables after a module's shared rows, as after a transactional test (Django's
    flush, with its post-migrate signal): later tests find the database as always."""
    with django_db_blocker.unblock():
        flush_tables()


def flush_tables(database: str = "default") -> None:
    """Django's flush of every table (post_migrate signal and all), run again if it loses a
    deadlock to a live worker."""
    from django.core.management import call_command

    retry_on_deadlock(
        lambda: call_command(
            "flush", verbosity=0, interactive=False, database=database, reset_sequences=False
        )
    )


def retry_on_deadlock(action, attempts: int = 5):
    """Run `action` (a TRUNCATE, a flush), and again when PostgreSQL made it a deadlock's
    victim. A shared stack's worker stays alive between the tests that use it: it may hold a
    row lock on a table the TRUNCATE wants while it waits for one the TRUNCATE already holds.
    The victim's transaction is rolled back whole, so running it again is safe; left failed,
    the tables keep the test's rows and the next test's set-up trips over them."""
    import time

    for attempt in range(1, attempts + 1):
        try:
            return action()
        except Exception as error:
            if attempt == attempts or not _is_a_deadlock(error):
                raise
            time.sleep(0.1 * attempt)


def _is_a_deadlock(error: BaseException | None) -> bool:
    """Whether an error is, or was raised from, PostgreSQL's deadlock_detected (Django wraps
    the driver's error, and its flush command wraps that in a CommandError)."""
    from psycopg import errors

    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, errors.DeadlockDetected):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False
