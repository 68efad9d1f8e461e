"""A portal started as `make run` starts it, on a fresh data folder of its own, for benchmarks
that measure it from outside (HTTP) while they start, stop or kill its processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def manage(env: dict, *args: str) -> str:
    """Run a manage.py command in that environment; return its output."""
    return subprocess.run(
        [PYTHON, str(ROOT / "manage.py"), *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=True,
    ).stdout  # fmt: skip


@dataclass
class Portal:
    base: str
    token: str
    process: subprocess.Popen
    data_dir: Path
    env: dict
    started: float

    @property
    def headers(self) -> dict:
        return {"Authorization": f"Token {self.token}"}

    def wait_for(self, ready, timeout: float = 180) -> float:
        """Wait until `ready(health)` holds; return the seconds since the portal started."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if ready(requests.get(self.base + "/api/health", timeout=2).json()):
                    return time.monotonic() - self.started
            except (requests.RequestException, ValueError):
                pass
            time.sleep(0.25)
        raise SystemExit(f"the portal did not get ready: see {self.data_dir / 'runportal.log'}")

    def ask(self, query: str, timeout: float = 120, **body) -> tuple[str, bool, float]:
        """Ask one question; return its run id, whether it ended with `done`, and the
        seconds until the stream ended."""
        started = time.monotonic()
        response = requests.post(
            self.base + "/api/query", json={"query": query, **body}, headers=self.headers,
            stream=True, timeout=(5, timeout),
        )  # fmt: skip
        if response.status_code != 200:
            return "", False, time.monotonic() - started
        run_id, done = response.headers.get("X-Run-Id", ""), False
        try:
            for line in response.iter_lines(decode_unicode=True):
                if line and line.startswith("data: "):
                    kind = json.loads(line[6:])["type"]
                    done = done or kind == "done"
                    if kind == "stream_end":
                        break
        except requests.RequestException:
            pass
        finally:
            response.close()
        return run_id, done, time.monotonic() - started


def data_env(data_dir: Path, **settings: str) -> dict:
    """Return the environment of a portal on its own data folder (its own embedded server)."""
    env = {**os.environ, "ADRAG_DATA_DIR": str(data_dir), "PYTHONUNBUFFERED": "1", **settings}
    env.pop("DATABASE_URL", None)
    env.pop("ADRAG_DB_NAME", None)
    return env


@contextmanager
def fresh_portal(port: int = 8765, data_dir: Path | None = None, token: str = "", **settings: str):
    """Migrate a fresh data folder, make an admin and a token, and run `manage.py runportal`
    on it with these settings; stop it (SIGINT, as Ctrl-C) at the end. Given a data folder
    (a restored one) and its token, it runs the portal on that as it is."""
    fresh = data_dir is None
    data_dir = data_dir or Path(tempfile.mkdtemp(prefix="adrag-bench-"))
    env = data_env(data_dir, **settings)
    if fresh:
        manage(env, "migrate", "--noinput")
        manage(
            {**env, "DJANGO_SUPERUSER_PASSWORD": "bench-pass-123"},
            "createsuperuser", "--noinput", "--username", "admin", "--email", "a@example.com",
        )  # fmt: skip
        token = manage(env, "drf_create_token", "admin").split()[2]
    log = open(data_dir / "runportal.log", "a")  # noqa: SIM115 - closed below
    started = time.monotonic()
    process = subprocess.Popen(
        [PYTHON, str(ROOT / "manage.py"), "runportal", "--port", str(port)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    portal = Portal(f"http://127.0.0.1:{port}", token, process, data_dir, env, started)
    try:
        yield portal
    finally:
        if process.poll() is None:
            process.send_signal(2)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
        log.close()
