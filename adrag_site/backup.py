"""Backups: the database (pg_dump's custom format) and the uploaded files, in one tar file.

The dump is one consistent snapshot of the database (pg_dump runs in a single repeatable-read
transaction while the portal goes on serving). The uploaded files are copied after it: they
are named by their content's sha256 and written before the row that names them commits, so
every file the snapshot names is on disk by then; a file uploaded meanwhile is an unnamed
extra, never a missing one. A restore loads the dump into an empty database (or, with
`replace`, one it empties first) and the files into MEDIA_ROOT; run logs come back row for row,
so every run replays byte for byte.

pg_dump and pg_restore are the ones pgserver ships (PostgreSQL 18), which read any server from
PostgreSQL 9.2 on, so an external DATABASE_URL server needs no client installed either.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction

from adrag_site.health import app_version

FORMAT = "adrag-backup-1"
DUMP_NAME = "database.dump"
MANIFEST_NAME = "manifest.json"
MEDIA_PREFIX = "media/"


class BackupError(Exception):
    """A backup or a restore could not be made; the message says why."""


def _pg_tool(name: str) -> str:
    from pgserver._commands import POSTGRES_BIN_PATH

    return str(POSTGRES_BIN_PATH / name)


def _connection_args() -> tuple[list[str], dict[str, str]]:
    """Return libpq arguments and environment for the default database."""
    connection.ensure_connection()  # the embedded server starts here, if it is not running
    params = connection.settings_dict
    args = ["--dbname", params["NAME"], "--username", params["USER"] or "postgres"]
    if params.get("HOST"):
        args += ["--host", params["HOST"]]
    if params.get("PORT"):
        args += ["--port", str(params["PORT"])]
    env = {**os.environ}
    if params.get("PASSWORD"):
        env["PGPASSWORD"] = params["PASSWORD"]
    return args, env


def _run(command: list[str], env: dict[str, str]) -> None:
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise BackupError(f"{Path(command[0]).name} failed: {result.stderr.strip()[-2000:]}")


# The tables a summary names (every table's rows are counted and checked).
SUMMARY_TABLES = {
    "knowledge_knowledgebase": "knowledge bases",
    "knowledge_document": "documents",
    "queries_queryrun": "runs",
    "queries_runevent": "run events",
}


def _counts() -> dict[str, int]:
    """Return the rows of every table of the database (read by table name: this layer does
    not import the apps' models)."""
    counts = {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name"
        )
        for (table,) in cursor.fetchall():
            cursor.execute(f'SELECT count(*) FROM "{table}"')
            counts[table] = cursor.fetchone()[0]
    return counts


def summary(counts: dict[str, int]) -> str:
    """Return "2 knowledge bases, 5 documents, ..." for the tables a person cares about."""
    return ", ".join(
        f"{counts[table]} {label}" for table, label in SUMMARY_TABLES.items() if table in counts
    )


def backup(path: Path) -> dict:
    """Write a backup of the database and the uploaded files to `path` (a tar file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    args, env = _connection_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as work:
        dump = Path(work) / DUMP_NAME
        # pg_dump reads the snapshot this transaction exports, so the counts the manifest
        # records (and a restore checks) are those of the very rows dumped.
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                cursor.execute("SELECT pg_export_snapshot()")
                snapshot = cursor.fetchone()[0]
            counts = _counts()
            _run(
                [
                    _pg_tool("pg_dump"), "--format=custom", "--no-owner",
                    "--snapshot", snapshot, "--file", str(dump), *args,
                ],
                env,
            )  # fmt: skip
        manifest = {
            "format": FORMAT,
            "created": datetime.now(UTC).isoformat(),
            "version": app_version(),
            "counts": counts,
        }
        media = Path(settings.MEDIA_ROOT)
        partial = path.with_name(path.name + ".partial")
        files = 0
        with tarfile.open(partial, "w") as tar:
            tar.add(dump, arcname=DUMP_NAME)
            if media.is_dir():
                for file in sorted(p for p in media.rglob("*") if p.is_file()):
                    tar.add(file, arcname=MEDIA_PREFIX + file.relative_to(media).as_posix())
                    files += 1
            manifest["files"] = files
            data = json.dumps(manifest, indent=2).encode()
            info = tarfile.TarInfo(MANIFEST_NAME)
            info.size = len(data)
            info.mtime = int(time.time())
            tar.addfile(info, io.BytesIO(data))
        partial.replace(path)  # a backup file is whole or absent
    manifest["seconds"] = round(time.monotonic() - started, 2)
    manifest["bytes"] = path.stat().st_size
    return manifest


def _has_tables() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        )
        return cursor.fetchone()[0] > 0


def restore(path: Path, *, replace: bool = False) -> dict:
    """Load a backup into the configured database and MEDIA_ROOT.

    The database must be empty (a fresh data folder, or a new DATABASE_URL database), unless
    `replace` empties it first: every table, and the uploaded files, are replaced.
    """
    path = Path(path)
    if not path.is_file():
        raise BackupError(f"no backup file at {path}")
    if not tarfile.is_tarfile(path):
        raise BackupError(f"{path} is not an adRAG backup (not a tar file)")
    args, env = _connection_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as work, tarfile.open(path) as tar:
        try:
            manifest = json.load(tar.extractfile(MANIFEST_NAME))
        except (KeyError, ValueError, TypeError) as exc:
            raise BackupError(f"{path} is not an adRAG backup (no manifest)") from exc
        if manifest.get("format") != FORMAT:
            raise BackupError(f"unknown backup format {manifest.get('format')!r}")
        if _has_tables():
            if not replace:
                raise BackupError(
                    "the database is not empty: restore into a fresh data folder (or a new "
                    "database), or pass --replace to replace everything in it"
                )
            with connection.cursor() as cursor:
                cursor.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        connection.close()
        tar.extract(DUMP_NAME, work, filter="data")
        _run(
            [
                _pg_tool("pg_restore"), "--no-owner", "--exit-on-error", "--single-transaction",
                *args, str(Path(work) / DUMP_NAME),
            ],
            env,
        )  # fmt: skip
        media = Path(settings.MEDIA_ROOT)
        if replace and media.is_dir():
            shutil.rmtree(media)
        media.mkdir(parents=True, exist_ok=True)
        members = [m for m in tar.getmembers() if m.name.startswith(MEDIA_PREFIX) and m.isfile()]
        for member in members:
            member.name = member.name[len(MEDIA_PREFIX) :]
        # The "data" filter refuses absolute paths, links out of the folder and devices.
        tar.extractall(media, members=members, filter="data")
    counts = _counts()
    if counts != manifest["counts"]:
        raise BackupError(f"restored {counts}, but the backup recorded {manifest['counts']}")
    return {
        **manifest,
        "restored_files": len(members),
        "seconds": round(time.monotonic() - started, 2),
    }
