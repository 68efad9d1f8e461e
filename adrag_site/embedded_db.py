"""Start or reuse the embedded PostgreSQL (with pgvector) used when DATABASE_URL is unset.

A process on its own (a management command, a test run, a benchmark) calls `ensure_server`:
the first one starts the server and the others attach to it. pgserver keeps a list of attached
pids on disk under an inter-process lock, and the last process to exit stops the server. A
process that was killed never removes its pid, so dead pids are pruned here first; otherwise a
`kill -9` would keep the server up forever and a later clean exit would never stop it.

Under `runportal` the server has one owner, runportal itself: it starts the server, watches
it and starts it again when it dies (`server_running`, `restart_server`), and stops it as it
exits (`stop_server`). Its web server and workers get the server's socket in ATTACH_ENV and
only connect: they neither start, register with, nor stop the server, so a child that dies or
is killed leaves nothing behind, and a child started while the server is away waits for it
instead of failing inside pgserver.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import warnings
from pathlib import Path
from urllib.parse import parse_qs, urlparse

_server = None
# One thread of a process at a time starts or attaches to the server: pgserver's inter-process
# lock (fasteners) is not one between threads, and a burst of first requests under ASGI (each
# on a thread of its own, each making the connection pool) failed with "Unable to release an
# unaquired lock" (12 of 500 streams, bench/streams.py).
_start_lock = threading.Lock()
# "<socket dir>|<port>": the server runportal owns, handed to the processes it starts.
ATTACH_ENV = "ADRAG_EMBEDDED_DB_SOCKET"


def _prune_dead_handles(pgdata: Path, lock) -> None:
    import psutil

    handles = pgdata / ".handle_pids.json"
    with lock:
        if not handles.exists():
            return
        try:
            pids = json.loads(handles.read_text())
        except (OSError, ValueError):
            pids = []
        alive = [pid for pid in pids if psutil.pid_exists(pid)]
        if alive != pids:
            handles.write_text(json.dumps(alive))


def attached() -> dict[str, str] | None:
    """Return the connection settings runportal handed this process, or None."""
    value = os.environ.get(ATTACH_ENV, "")
    if not value:
        return None
    host, _, port = value.rpartition("|")
    return {"HOST": host, "PORT": port, "USER": "postgres"}


def attach_value(params: dict[str, str]) -> str:
    """Return the ATTACH_ENV value that hands these connection settings to a child."""
    return f"{params['HOST']}|{params['PORT']}"


def ensure_server(data_dir: Path) -> dict[str, str]:
    """Start the embedded server if needed and return Django connection settings for it."""
    handed = attached()
    if handed is not None:
        return handed
    with _start_lock:
        return _ensure_server(data_dir)


def _ensure_server(data_dir: Path) -> dict[str, str]:
    global _server
    if _server is None:
        # pgserver keeps its lock under XDG_RUNTIME_DIR; without one it warns on every start.
        os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
        # Settings load before Django configures logging; keep pgserver's start-up chatter quiet.
        logging.getLogger("pgserver").setLevel(logging.WARNING)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pgserver
            from pgserver.postgres_server import PostgresServer

        pgdata = (data_dir / "pgdata").resolve()
        pgdata.parent.mkdir(parents=True, exist_ok=True)
        if pgdata.exists():
            _prune_dead_handles(pgdata, PostgresServer._lock)
        _server = pgserver.get_server(pgdata, cleanup_mode="stop")
    uri = urlparse(_server.get_uri())
    socket_dir = parse_qs(uri.query)["host"][0]
    return {"HOST": socket_dir, "PORT": str(uri.port or ""), "USER": uri.username or "postgres"}


def ensure_database(name: str) -> None:
    """Create the application database on the embedded server if it does not exist (a
    process attached by runportal leaves that to runportal, which made it)."""
    if _server is None:
        return
    exists = _server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}';")
    if "(1 row)" not in exists:
        _server.psql(f'CREATE DATABASE "{name}";')


def server_running() -> bool:
    """Return whether the embedded server this process owns is up and accepting connections."""
    from pgserver.utils import PostmasterInfo

    if _server is None:
        return False
    info = PostmasterInfo.read_from_pgdata(_server.pgdata)
    return info is not None and info.is_running() and info.status == "ready"


def restart_server() -> dict[str, str]:
    """Start the embedded server again after it died; return its connection settings.

    pg_ctl finds the dead postmaster's pid file and starts a new server on the same data
    folder and socket; PostgreSQL replays its write-ahead log, so every committed row is kept.
    """
    from pgserver.postgres_server import PostgresServer

    assert _server is not None
    with PostgresServer._lock:
        _server.ensure_postgres_running()
    uri = urlparse(_server.get_uri())
    return {
        "HOST": parse_qs(uri.query)["host"][0],
        "PORT": str(uri.port or ""),
        "USER": uri.username or "postgres",
    }


def stop_server() -> None:
    """Let go of the embedded server: stopped now unless another process still uses it."""
    if _server is not None:
        _server._cleanup()
