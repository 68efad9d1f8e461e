"""The live stack of the stream, portal and process tests: web processes (uvicorn) and
Procrastinate workers in subprocesses, on this test run's database. The fixtures that start
it are in tests/conftest.py: `stack` (a fresh one per test), and `shared_stack`, `portal_stack`
and `model_stack` (shared by consecutive tests that only need processes to talk to).

A shared stack's worker takes any job on its queues, so it must not run beside a test that
starts a worker of its own or queues work it expects to find untouched: it lives only while
consecutive tests use it (`stop_shared`, called from tests/conftest.py's teardown hook), and
the test ordering there keeps the tests that use it together."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import requests

from adrag_site.server import uvicorn_command
from tests.model_server import free_port
from tests.support import ROOT, child_env

# /metrics answers a scraper with this token (tests/queries/test_metrics.py reads it).
METRICS_TOKEN = "scrape-the-live-stack-7c1e"
PLUGINS = "scripted=tests.queries.plugin:ScriptedFromFile,broken=tests.queries.plugin:Broken"


class LiveStack:
    """Start and stop web and worker processes that share the test database."""

    def __init__(self, script_file: Path, log_dir: Path) -> None:
        self.script_file = script_file
        self.log_dir = log_dir
        self.webs: list[tuple[subprocess.Popen, int]] = []
        self.workers: list[subprocess.Popen] = []
        # Procrastinate's worker rows that existed before this stack's first worker: they belong
        # to another stack that is still running, and must outlive this one.
        self.workers_before: list[int] | None = None
        self.env = child_env(
            ADRAG_PROVIDER_PLUGINS=PLUGINS,
            SCRIPTED_PROVIDER_FILE=str(script_file),
            STREAM_HEARTBEAT_SECONDS="1",
            STREAM_IDLE_TIMEOUT_SECONDS="15",
            RUN_STALE_SECONDS="4",
            WORKER_HEARTBEAT_SECONDS="1",
            WORKER_STALE_SECONDS="4",
            RUNS_MAX_CONCURRENT_PER_USER="50",
            RUNS_PER_HOUR_PER_USER="1000",
            METRICS_TOKEN=METRICS_TOKEN,
            PYTHONPATH=str(ROOT),
        )

    def _log(self, name: str):
        return open(self.log_dir / f"{name}.log", "ab")

    def start_web(self, *, wait: bool = True) -> str:
        """Start a web process and return its URL once it answers; with `wait=False`, at once
        (call `wait_for_web` before using it), so that a worker can start meanwhile."""
        port = free_port()
        process = subprocess.Popen(
            uvicorn_command(sys.executable, "127.0.0.1", port),
            cwd=ROOT,
            env=self.env,
            stdout=self._log(f"web-{port}"),
            stderr=subprocess.STDOUT,
        )
        self.webs.append((process, port))
        url = f"http://127.0.0.1:{port}"
        return self.wait_for_web(url) if wait else url

    def wait_for_web(self, url: str, timeout: float = 60) -> str:
        """Wait until the web process this stack started at `url` answers; return the URL."""
        port = int(url.rsplit(":", 1)[1])
        process = next(process for process, at in self.webs if at == port)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if requests.get(url + "/api/health", timeout=2).status_code in (200, 503):
                    return url
            except requests.RequestException:
                pass
            assert process.poll() is None, (self.log_dir / f"web-{port}.log").read_text()
            assert time.monotonic() < deadline, "the web server did not start"
            time.sleep(0.2)

    def start_worker(
        self, queues: str = "runs,default", *, concurrency: int | None = None
    ) -> subprocess.Popen:
        """Start a worker on `queues`, taking `concurrency` jobs at once (by default, the
        worker settings' PROCRASTINATE_WORKER_DEFAULTS)."""
        if self.workers_before is None:
            from django.db import connection

            with connection.cursor() as cursor:
                cursor.execute("SELECT id FROM procrastinate_workers")
                self.workers_before = [row[0] for row in cursor.fetchall()]
        process = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "manage.py"),
                "procrastinate",
                "worker",
                "--queues",
                queues,
                *(["--concurrency", str(concurrency)] if concurrency else []),
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self._log(f"worker-{len(self.workers)}"),
            stderr=subprocess.STDOUT,
        )
        self.workers.append(process)
        return process

    def wait_for_worker(self, timeout: float = 60) -> None:
        from django.db import connection

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM procrastinate_workers WHERE last_heartbeat > now() - interval '3 seconds'"
                )
                if cursor.fetchone()[0]:
                    return
            time.sleep(0.2)
        raise AssertionError("no worker heartbeat")

    def wait_for_warm_up(self, index: int = 0, timeout: float = 90) -> None:
        """Wait until worker `index` has loaded the embedder and the pipeline (adrag_site/jobs.py
        logs each), so that a shared stack's first run does not spend its stream's idle timeout
        waiting for them."""
        log = self.log_dir / f"worker-{index}.log"
        deadline = time.monotonic() + timeout
        while True:
            text = log.read_text(errors="replace") if log.exists() else ""
            assert not re.search(r"warm-up of the \w+ failed", text), text[-3000:]
            if all(f"warm-up of the {name} done" in text for name in ("embedder", "pipeline")):
                return
            assert self.workers[index].poll() is None, text[-3000:]
            assert time.monotonic() < deadline, "the worker did not warm up: " + text[-3000:]
            time.sleep(0.2)

    def write_scripts(self, scripts: dict) -> None:
        """Add per-query scripts; a query's script written again starts from its first reply."""
        existing = json.loads(self.script_file.read_text()) if self.script_file.exists() else {}
        for query, script in scripts.items():
            existing[query] = {**script, "_written": uuid.uuid4().hex}
        self.script_file.write_text(json.dumps(existing))

    def stop(self) -> None:
        for process in [p for p, _ in self.webs] + self.workers:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in [p for p, _ in self.webs] + self.workers:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def started_stack(
    folder: Path, *, env: dict | None = None, queues: str = "runs,default"
) -> LiveStack:
    """Return a live stack in `folder` with one web process and one worker, both up."""
    stack = LiveStack(folder / "scripts.json", folder)
    stack.write_scripts({})
    stack.env.update(env or {})
    # The two processes start side by side: the worker imports and warms up while the web
    # process starts, rather than after it answers.
    url = stack.start_web(wait=False)
    stack.start_worker(queues=queues)
    stack.url = stack.wait_for_web(url)
    stack.wait_for_worker()
    stack.wait_for_warm_up()
    return stack


_shared: dict[str, LiveStack] = {}


def shared(name: str, folder: Path, **options) -> LiveStack:
    """Return the running shared stack `name` (its fixture's name), starting it in `folder` if
    it is not running."""
    if name not in _shared:
        _shared[name] = started_stack(folder, **options)
    return _shared[name]


def shared_running(*, keep: set[str]) -> bool:
    return any(name not in keep for name in _shared)


def stop_shared(*, keep: set[str] = frozenset()) -> None:
    """Stop the shared stacks but `keep`. Their workers stop cleanly and remove their own rows."""
    for name in [name for name in _shared if name not in keep]:
        _shared.pop(name).stop()


_browser: list = []  # [(playwright, browser)] while a browser is open


def shared_browser(start, launch):
    """Return the open browser, starting Playwright and launching one if none is open."""
    if not _browser:
        playwright = start()
        _browser.append((playwright, launch(playwright)))
    return _browser[0][1]


def close_browser() -> None:
    if _browser:
        playwright, browser = _browser.pop()
        browser.close()
        playwright.stop()
