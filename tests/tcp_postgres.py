"""A PostgreSQL server of its own, on a TCP port, for tests of several nodes and of restarts.

It uses the binaries of the embedded server (pgserver's, with pgvector) and runs as
pgserver's system user when the tests run as root, as the embedded server does. Processes
reach it only through DATABASE_URL, over TCP, as machines of a real deployment would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.model_server import free_port


class TcpPostgres:
    """Initialise, start, restart and stop a throwaway cluster listening on 127.0.0.1."""

    def __init__(self, database: str = "adrag") -> None:
        from pgserver import _commands as pg
        from pgserver.utils import ensure_user_exists

        self.pg = pg
        self.user = None
        self.root = Path(tempfile.mkdtemp(prefix="adrag-pg-"))
        self.root.chmod(0o755)
        if os.geteuid() == 0:
            # PostgreSQL refuses to run as root; pgserver's own system user runs it.
            import pwd

            self.user = "pgserver"
            ensure_user_exists(self.user)
            entry = pwd.getpwnam(self.user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self.pgdata = self.root / "pgdata"
        self.log = self.root / "server.log"
        self.port = free_port()
        self.database = database
        pg.initdb(
            ["--auth=trust", "--encoding=utf8", "-U", "postgres"],
            pgdata=self.pgdata,
            user=self.user,
        )
        self.start()
        pg.psql(
            ["-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-c",
             f'CREATE DATABASE "{database}"'],
        )  # fmt: skip

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{self.database}"

    def _ctl(self, *args: str) -> None:
        self.pg.pg_ctl(list(args), pgdata=self.pgdata, user=self.user, timeout=60)

    def start(self) -> None:
        self._ctl(
            "-w", "-l", str(self.log),
            "-o", f"-h 127.0.0.1 -p {self.port} -k {self.root} -c max_connections=200",
            "start",
        )  # fmt: skip

    def restart(self) -> None:
        """Stop the server (closing every connection) and start it again on the same port."""
        self.halt()
        self.start()

    def halt(self) -> None:
        """Stop the server, closing every connection and keeping its data: `start` resumes."""
        self._ctl("-w", "-m", "fast", "stop")

    def stop(self) -> None:
        try:
            self._ctl("-w", "-m", "immediate", "stop")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.root, ignore_errors=True)
