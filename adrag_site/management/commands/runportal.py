"""Run the portal: the web server (uvicorn) and Procrastinate workers, supervised together.

A worker that dies is started again, after a back-off that grows while it keeps dying, and the
web server goes on serving meanwhile; once RUN_STALE_SECONDS have passed, the dead worker's
runs are ended `interrupted` (`manage.py reap`; elsewhere the periodic reaper does it). If
the web server itself dies, everything stops: a portal that cannot be reached is not running.

Without DATABASE_URL, runportal owns the embedded PostgreSQL (adrag_site/embedded_db.py): its
children only connect to it; it checks the server every second, starts it again when it dies
(a worker waiting to restart is started at once when the database is back), and stops it last.

Ctrl-C (or SIGTERM) stops all children, each given SHUTDOWN_SECONDS before it is killed, then
the embedded database: nothing of the portal is left running.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import connection

from adrag_site import embedded_db
from adrag_site.server import uvicorn_command

FIRST_ADMIN_HELP = """
No user exists yet. Create the first administrator in another terminal:

    {env}.venv/bin/python manage.py createsuperuser

or without prompts:

    {env}DJANGO_SUPERUSER_USERNAME=admin DJANGO_SUPERUSER_EMAIL=admin@example.com \\
    DJANGO_SUPERUSER_PASSWORD='choose-a-password' .venv/bin/python manage.py createsuperuser --noinput

then sign in at http://{host}:{port}/accounts/login/ (the admin is at /admin/).
An API token for scripts: {env}.venv/bin/python manage.py drf_create_token admin
"""


def same_data_env() -> str:
    """Return what a command needs before it to read this portal's data folder: its
    ADRAG_DATA_DIR when the portal was started with one ("" for the default folder)."""
    if not os.environ.get("ADRAG_DATA_DIR"):
        return ""
    return f"ADRAG_DATA_DIR={shlex.quote(str(settings.DATA_DIR))} "


# Restart back-off of a dying worker: doubles from the first value up to the last; a worker
# that stayed up for STABLE_SECONDS starts again from the first.
BACKOFF_FIRST_SECONDS = 1.0
BACKOFF_MAX_SECONDS = 30.0
STABLE_SECONDS = 60.0
# How often the embedded database is checked, and how soon a failed restart is tried again.
DB_CHECK_SECONDS = 1.0
DB_RETRY_SECONDS = 2.0
# How long children get to stop on Ctrl-C before they are killed; a worker aborts the jobs it
# still runs after WORKER_GRACE_SECONDS (their runs end `interrupted`).
SHUTDOWN_SECONDS = 8.0
WORKER_GRACE_SECONDS = 4


@dataclass
class Child:
    """One supervised process."""

    name: str
    command: list[str]
    restart: bool
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    backoff: float = BACKOFF_FIRST_SECONDS
    restart_at: float | None = None
    restarts: int = field(default=0)
    env: dict[str, str] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(self.command, env=self.env)
        self.started_at = time.monotonic()
        self.restart_at = None


class Command(BaseCommand):
    help = "Start the web server and Procrastinate workers; restart dead workers; Ctrl-C stops all."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument(
            "--workers",
            type=int,
            default=int(os.environ.get("WORKERS", "1")),
            help="workers for query runs (queues runs and default)",
        )
        parser.add_argument(
            "--ingest-workers",
            type=int,
            default=int(os.environ.get("INGEST_WORKERS", "1")),
            help="workers for ingestion (queue ingest), so uploads never hold a run's slot",
        )
        parser.add_argument("--no-worker", action="store_true", help="Start only the web server.")
        parser.add_argument(
            "--no-web",
            action="store_true",
            help="Start only workers (a worker machine): they are restarted when they die",
        )

    def handle(
        self,
        *args,
        host: str,
        port: int,
        workers: int,
        ingest_workers: int,
        no_worker: bool,
        no_web: bool,
        **options,
    ):
        from django.core.management import call_command

        owns_database = _owns_embedded_database()
        env = None
        if owns_database:
            connection.ensure_connection()  # starts the embedded server, if it is not running
            params = {key: connection.settings_dict[key] for key in ("HOST", "PORT")}
            env = {**os.environ, embedded_db.ATTACH_ENV: embedded_db.attach_value(params)}
        if not no_web:
            if not get_user_model().objects.exists():
                self.stdout.write(
                    self.style.WARNING(
                        FIRST_ADMIN_HELP.format(host=host, port=port, env=same_data_env())
                    )
                )
            call_command("collectstatic", interactive=False, verbosity=0)
        children = portal_children(
            web=None if no_web else (host, port),
            workers=0 if no_worker else workers,
            ingest_workers=0 if no_worker else ingest_workers,
            env=env,
        )
        supervisor = Supervisor(children, owns_database=owns_database, stderr=self.stderr)
        supervisor.start()
        if no_web:
            self.stdout.write(f"adRAG workers are running: {len(children)} (Ctrl-C stops them)")
        else:
            self.stdout.write(f"adRAG is running at http://{host}:{port}/  (Ctrl-C stops it)")
        signal.signal(signal.SIGINT, supervisor.stop)
        signal.signal(signal.SIGTERM, supervisor.stop)
        exit_code = supervisor.run()
        self.stdout.write("adRAG stopped.")
        sys.exit(exit_code)


def portal_children(
    *, web: tuple[str, int] | None, workers: int, ingest_workers: int, env
) -> list[Child]:
    """Return the portal's processes: the web server (on `web`), the runs workers and the
    ingest workers. Only workers are restarted when they die."""
    python = sys.executable
    manage = str(settings.BASE_DIR / "manage.py")
    children = []
    if web is not None:
        children.append(Child("web", uvicorn_command(python, *web), restart=False, env=env))
    worker = [
        python, manage, "procrastinate", "worker",
        "--shutdown-graceful-timeout", str(WORKER_GRACE_SECONDS),
    ]  # fmt: skip
    children += [
        Child(f"worker {n}", [*worker, "--queues", "runs,default"], restart=True, env=env)
        for n in range(1, workers + 1)
    ]
    ingest = ["--queues", "ingest", "--concurrency", str(settings.INGEST_WORKER_CONCURRENCY)]
    children += [
        Child(f"ingest worker {n}", [*worker, *ingest], restart=True, env=env)
        for n in range(1, ingest_workers + 1)
    ]
    return children


class Supervisor:
    """Keep the children running until stopped: restart dying workers after a back-off, reap
    their runs once they are stale, watch the embedded database it owns, and stop everything
    (the database last) on `stop`."""

    def __init__(self, children: list[Child], *, owns_database: bool, stderr) -> None:
        self.children = children
        self.owns_database = owns_database
        self.stderr = stderr
        self.stopping = False
        self.exit_code = 0
        self.reap_at: float | None = None
        self.db_check_at = time.monotonic() + DB_CHECK_SECONDS

    def start(self) -> None:
        for child in self.children:
            child.start()

    def stop(self, signum=None, frame=None) -> None:
        """Ask every running child to stop (SIGTERM); idempotent, safe in a signal handler."""
        if self.stopping:
            return
        self.stopping = True
        for child in self.children:
            if child.process is not None and child.process.poll() is None:
                child.process.send_signal(signal.SIGTERM)

    def run(self) -> int:
        """Supervise until stopped or the web server dies; return the exit code."""
        try:
            while True:
                if not self.stopping:
                    self._check_database()
                    self._reap_if_due()
                    self._watch_children()
                running = [
                    c for c in self.children if c.process is not None and c.process.poll() is None
                ]
                if self.stopping and not running:
                    break
                time.sleep(0.2)
        finally:
            self._shut_down()
        return self.exit_code

    def _check_database(self) -> None:
        if not self.owns_database or time.monotonic() < self.db_check_at:
            return
        self.db_check_at = time.monotonic() + DB_CHECK_SECONDS
        if not embedded_db.server_running() and not self._restart_database():
            self.db_check_at = time.monotonic() + DB_RETRY_SECONDS

    def _reap_if_due(self) -> None:
        from django.core.management import call_command

        if self.reap_at is None or time.monotonic() < self.reap_at:
            return
        # The dead worker's runs are past RUN_STALE_SECONDS now: end them at once rather than
        # at the periodic reaper's next turn.
        self.reap_at = None
        try:
            call_command("reap")
        except Exception as exc:  # the database may be restarting; the reaper retries
            self.stderr.write(f"reaping after a worker died failed: {exc}")

    def _watch_children(self) -> None:
        now = time.monotonic()
        for child in self.children:
            if self.stopping:
                return  # a stop arrived meanwhile (a database restart takes seconds)
            if child.restart_at is not None:
                if now >= child.restart_at:
                    child.restarts += 1
                    self.stderr.write(f"restarting {child.name} (restart {child.restarts})")
                    child.start()
                continue
            code = child.process.poll()
            if code is None:
                continue
            if not child.restart:
                self.stderr.write(f"{child.name} exited with {code}; stopping the rest")
                self.exit_code = code or 1
                self.stop()
                return
            if now - child.started_at >= STABLE_SECONDS:
                child.backoff = BACKOFF_FIRST_SECONDS
            self.stderr.write(
                f"{child.name} exited with {code}; starting it again in {child.backoff:.0f}s"
            )
            child.restart_at = now + child.backoff
            self.reap_at = now + settings.RUN_STALE_SECONDS + 0.5
            child.backoff = min(child.backoff * 2, BACKOFF_MAX_SECONDS)

    def _shut_down(self) -> None:
        """Stop every child (killing those still up after SHUTDOWN_SECONDS), then the database."""
        self.stop()
        deadline = time.monotonic() + SHUTDOWN_SECONDS
        for child in self.children:
            if child.process is None:
                continue
            remaining = max(0.1, deadline - time.monotonic())
            try:
                child.process.wait(remaining)
            except subprocess.TimeoutExpired:
                self.stderr.write(f"{child.name} did not stop in time; killing it")
                child.process.kill()
                child.process.wait(5)
        if self.owns_database:
            connection.close()
            embedded_db.stop_server()

    def _restart_database(self) -> bool:
        """Start the embedded database again; tell whether it runs. Workers waiting out a
        back-off are started at once: what they waited for is back."""
        self.stderr.write("the embedded database is not running; starting it again")
        started = time.monotonic()
        try:
            embedded_db.restart_server()
        except Exception as exc:
            self.stderr.write(f"the embedded database did not start ({exc!r}); trying again")
            return False
        connection.close()
        self.stderr.write(
            f"the embedded database is running again ({time.monotonic() - started:.1f}s)"
        )
        now = time.monotonic()
        for child in self.children:
            if child.restart_at is not None:
                child.restart_at = now
                child.backoff = BACKOFF_FIRST_SECONDS
        return True


def _owns_embedded_database() -> bool:
    """Return whether this runportal owns the embedded server (no DATABASE_URL, and not itself
    a child of another runportal)."""
    return bool(settings.DATABASES["default"].get("EMBEDDED") and embedded_db.attached() is None)
