"""The embedded PostgreSQL is shared safely by several processes at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest
from django.db import connection

from tests.support import ROOT, child_env

CHILD = textwrap.dedent(
    """
    import os, sys, time, django
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "adrag_site.settings")
    django.setup()
    from django.db import connection
    me, other, marker_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO shared_probe (who) VALUES (%s)", [me])
    open(os.path.join(marker_dir, me), "w").close()
    deadline = time.time() + 60
    while not os.path.exists(os.path.join(marker_dir, other)):
        assert time.time() < deadline, "the other process never arrived"
        time.sleep(0.05)
    with connection.cursor() as cursor:
        cursor.execute("SELECT who FROM shared_probe ORDER BY who")
        print(",".join(row[0] for row in cursor.fetchall()))
    open(os.path.join(marker_dir, me + ".done"), "w").close()
    while not os.path.exists(os.path.join(marker_dir, other + ".done")):
        time.sleep(0.05)
    """
)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_two_processes_use_the_embedded_database_at_once(tmp_path):
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE shared_probe (who text)")
    try:
        env = child_env()
        children = [
            subprocess.Popen(
                [sys.executable, "-c", CHILD, me, other, str(tmp_path)],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for me, other in (("a", "b"), ("b", "a"))
        ]
        outputs = [child.communicate(timeout=120) for child in children]
        for child, (out, err) in zip(children, outputs):
            assert child.returncode == 0, err
            assert out.strip() == "a,b"
        # Both were attached at the same time; the server outlived them for this process.
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM shared_probe")
            assert cursor.fetchone()[0] == 2
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS shared_probe")


@pytest.mark.slow
def test_the_server_survives_a_killed_client_and_prunes_its_handle(tmp_path):
    from django.conf import settings

    if "DATABASE_URL" in child_env():
        pytest.skip("an external database is configured")
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, time, django; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'adrag_site.settings'); django.setup(); "
            "from django.db import connection; connection.ensure_connection(); print('up', flush=True); time.sleep(60)",
        ],
        cwd=ROOT,
        env=child_env(),
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout.readline().strip() == "up"
    handles = settings.DATA_DIR / "pgdata" / ".handle_pids.json"
    assert str(child.pid) in handles.read_text()
    child.kill()
    child.wait()
    time.sleep(0.2)
    # A new process attaches, prunes the dead pid, and finds the server still answering.
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "manage.py"),
            "shell",
            "-c",
            "from django.db import connection; c = connection.cursor(); c.execute('select 1'); print(c.fetchone()[0])",
        ],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "1"
    assert str(child.pid) not in handles.read_text()


@pytest.mark.slow
def test_loading_settings_or_a_check_starts_no_database():
    from django.conf import settings

    if "DATABASE_URL" in child_env():
        pytest.skip("an external database is configured")
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, time, django; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'adrag_site.settings'); "
            "django.setup(); from django.core.management import call_command; call_command('check', stdout=open(os.devnull, 'w')); "
            "print('checked', flush=True); time.sleep(60)",
        ],
        cwd=ROOT,
        env=child_env(),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "checked"
        # The embedded server keeps a handle per attached process: this one never attached.
        handles = settings.DATA_DIR / "pgdata" / ".handle_pids.json"
        assert str(child.pid) not in handles.read_text()
    finally:
        child.kill()
        child.wait()


def test_a_killed_postmaster_is_started_again_with_every_committed_row(tmp_path, monkeypatch):
    """What runportal does when its embedded server dies, on a server of this test's own."""
    import os
    import signal

    import psycopg
    from pgserver import get_server

    from adrag_site import embedded_db

    server = get_server(tmp_path / "pgdata", cleanup_mode="delete")
    monkeypatch.setattr(embedded_db, "_server", server)
    try:
        with psycopg.connect(server.get_uri(), autocommit=True) as db:
            db.execute("CREATE TABLE kept (n int)")
            db.execute("INSERT INTO kept VALUES (1), (2)")
        assert embedded_db.server_running()
        os.kill(server.get_pid(), signal.SIGKILL)
        deadline = time.monotonic() + 10
        while embedded_db.server_running():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        started = None
        deadline = time.monotonic() + 30
        while started is None:
            try:
                started = embedded_db.restart_server()
            except Exception:
                # Backends of the killed postmaster may still hold its shared memory briefly.
                assert time.monotonic() < deadline
                time.sleep(0.5)
        assert embedded_db.server_running()
        with psycopg.connect(server.get_uri()) as db:
            assert db.execute("SELECT sum(n) FROM kept").fetchone()[0] == 3
        assert started["HOST"] and started["USER"] == "postgres"
    finally:
        server.cleanup()


@pytest.mark.slow
def test_a_process_handed_the_socket_only_connects_and_never_registers(tmp_path):
    from django.conf import settings

    from adrag_site import embedded_db

    if "DATABASE_URL" in child_env():
        pytest.skip("an external database is configured")
    params = {key: connection.settings_dict[key] for key in ("HOST", "PORT")}
    env = child_env(**{embedded_db.ATTACH_ENV: embedded_db.attach_value(params)})
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, time, django; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'adrag_site.settings'); django.setup(); "
            "from django.db import connection; c = connection.cursor(); c.execute('select 1'); "
            "print(c.fetchone()[0], flush=True); time.sleep(60)",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "1"
        handles = settings.DATA_DIR / "pgdata" / ".handle_pids.json"
        assert str(child.pid) not in handles.read_text()
    finally:
        child.kill()
        child.wait()


THREADS_CHILD = textwrap.dedent(
    """
    import os, sys, threading
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "adrag_site.settings")
    import django
    django.setup()
    from django.conf import settings
    from adrag_site import embedded_db
    barrier = threading.Barrier(32)
    failures = []
    def attach():
        barrier.wait()
        try:
            embedded_db.ensure_server(settings.DATA_DIR)
        except Exception as exc:
            failures.append(repr(exc))
    threads = [threading.Thread(target=attach) for _ in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(len(failures), failures[:1])
    """
)


@pytest.mark.slow
def test_a_burst_of_threads_attaches_to_the_embedded_server_at_once():
    # Under ASGI the first requests arrive together, each on a thread making its connection.
    env = child_env()
    if env.get("DATABASE_URL") or env.get("ADRAG_EMBEDDED_DB_SOCKET"):
        pytest.skip("the embedded server is not this run's database")
    for _ in range(3):
        done = subprocess.run(
            [sys.executable, "-c", THREADS_CHILD], cwd=ROOT, env=env,
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "0 []", done.stdout
