"""A real OpenAI-compatible model server for tests: llama.cpp's, from llama-cpp-python.

`python -m llama_cpp.server` serves the small GGUF model that `manage.py fetch_model` takes
from the package registry. Its CPU time is read from /proc, which is how the tests see that
a cancelled request really stopped the server's generation.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """Return the CPU time (user + system) a process has used so far."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def seconds_until_idle(
    pid: int, *, window: float = 0.5, busy_share: float = 0.1, limit: float = 30.0
) -> float:
    """Return how long until a `window` in which the process used under `busy_share` of a core."""
    started = time.monotonic()
    before = cpu_seconds(pid)
    while time.monotonic() - started < limit:
        time.sleep(window)
        now = cpu_seconds(pid)
        if now - before < busy_share * window:
            return time.monotonic() - started - window
        before = now
    return float("inf")


class LlamaServer:
    """One llama.cpp server process on a free port."""

    def __init__(self, model_path: Path, log_path: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log = open(log_path, "ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(model_path),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--n_ctx",
                "4096",
                "--cache",
                "true",
                "--n_threads",
                os.environ.get("LOCAL_N_THREADS") or str(os.cpu_count() or 1),
            ],  # fmt: skip
            stdout=self.log,
            stderr=subprocess.STDOUT,
            # llama_cpp.server lets HOST and PORT from the environment override --host and
            # --port, and `make` exports both for `make run`: without this, under `make test`
            # the server listens on 8000 and the tests wait on a port nobody serves.
            env={k: v for k, v in os.environ.items() if k not in ("HOST", "PORT")},
        )
        self.log_path = log_path
        deadline = time.monotonic() + 120
        while True:
            try:
                if requests.get(self.url + "/models", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if self.process.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited: {log_path.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                self.process.kill()
                raise RuntimeError(
                    f"llama.cpp server did not answer on {self.url}: {log_path.read_text()[-2000:]}"
                )
            time.sleep(0.25)

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
