"""Start or reuse the embedded PostgreSQL (with pgvector) used when DATABASE_URL is unset.

Every process (web server, worker, management command, test run) calls `ensure_server`. The
first one starts the server; the others attach to it. pgserver keeps a list of attached pids on
disk under an inter-process lock, and the last process to exit stops the server. A process that
was killed never removes its pid, so dead pids are pruned here first; otherwise a `kill -9`
would keep the server up forever (harmless) and, worse, a later clean exit would never stop it.
"""

from __future__ import annotations

import json
import logging
import os
import warnings
from pathlib import Path
from urllib.parse import parse_qs, urlparse

_server = None


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


def ensure_server(data_dir: Path) -> dict[str, str]:
    """Start the embedded server if needed and return Django connection settings for it."""
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
    """Create the application database on the embedded server if it does not exist."""
    assert _server is not None
    exists = _server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}';")
    if "(1 row)" not in exists:
        _server.psql(f'CREATE DATABASE "{name}";')
