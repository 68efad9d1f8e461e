"""`manage.py backup` and `manage.py restore`: a data folder's database and uploads, restored
into a fresh database, give back every run's log row for row and every file byte for byte."""

from __future__ import annotations

import tarfile
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from tests.support import run_manage

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

RESTORED_DB = "test_adrag_restored"


def _connect(name: str) -> psycopg.Connection:
    params = connection.settings_dict
    return psycopg.connect(
        dbname=name, host=params["HOST"], port=params["PORT"] or None, user=params["USER"]
    )


def _drop(name: str) -> None:
    with _connect("postgres") as admin:
        admin.autocommit = True
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _run_log(db: psycopg.Connection) -> list[tuple]:
    return db.execute(
        "SELECT r.query, e.seq, e.type, e.payload FROM queries_runevent e "
        "JOIN queries_queryrun r ON r.id = e.run_id ORDER BY r.query, e.seq"
    ).fetchall()


def test_a_backup_restores_into_a_fresh_database_run_for_run_and_file_for_file(
    user, tmp_path, settings
):
    from knowledge.services import document_upload, kb_create
    from queries.eventlog import run_event_append
    from queries.models import QueryRun

    settings.MEDIA_ROOT = tmp_path / "media"
    kb = kb_create(owner=user, name="Handbook")
    document, _ = document_upload(
        kb=kb, file_name="leave.md", data=b"# Leave\n\nAnnual leave is 25 days.\n", user=user,
        defer_job=False,
    )  # fmt: skip
    run = QueryRun.objects.create(user=user, query="How much leave?", provider="extractive")
    for n, kind in enumerate(("stage_start", "stage_complete", "done", "stream_end")):
        data = None if kind == "stream_end" else {"stage": "planner", "message": f"step {n} ✓"}
        run_event_append(run_id=run.id, event_type=kind, data=data)

    archive = tmp_path / "backup.tar"
    call_command("backup", str(archive))
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    assert "database.dump" in names and "manifest.json" in names
    assert f"media/{document.stored_path}" in names

    restored_media = tmp_path / "restored-media"
    _drop(RESTORED_DB)
    try:
        result = run_manage(
            "restore", str(archive), ADRAG_DB_NAME=RESTORED_DB, ADRAG_MEDIA_ROOT=str(restored_media)
        )
        assert result.returncode == 0, result.stderr
        assert "1 runs" in result.stdout and "1 uploaded files" in result.stdout
        with _connect(connection.settings_dict["NAME"]) as original, _connect(RESTORED_DB) as copy:
            assert _run_log(copy) == _run_log(original) and len(_run_log(copy)) == 4
            embeddings = "SELECT count(*), sum(vector_dims(embedding)) FROM knowledge_chunk"
            assert copy.execute(embeddings).fetchone() == original.execute(embeddings).fetchone()
        stored = Path(document.stored_path)
        assert (restored_media / stored).read_bytes() == (settings.MEDIA_ROOT / stored).read_bytes()

        # A database that is not empty is not overwritten unless asked.
        again = run_manage(
            "restore", str(archive), ADRAG_DB_NAME=RESTORED_DB, ADRAG_MEDIA_ROOT=str(restored_media)
        )
        assert again.returncode != 0 and "not empty" in again.stderr
        replaced = run_manage(
            "restore", str(archive), "--replace",
            ADRAG_DB_NAME=RESTORED_DB, ADRAG_MEDIA_ROOT=str(restored_media),
        )  # fmt: skip
        assert replaced.returncode == 0, replaced.stderr
    finally:
        _drop(RESTORED_DB)


def test_restore_refuses_what_is_not_a_backup(tmp_path):
    bogus = tmp_path / "bogus.tar"
    with tarfile.open(bogus, "w") as tar:
        tar.add(__file__, arcname="notes.txt")
    result = run_manage("restore", str(bogus))
    assert result.returncode != 0 and "not an adRAG backup" in result.stderr


def test_restore_refuses_a_file_that_is_no_tar(tmp_path):
    bogus = tmp_path / "notes.tar"
    bogus.write_bytes(b"not a tar at all")
    result = run_manage("restore", str(bogus))
    assert result.returncode != 0 and "not a tar file" in result.stderr
    assert "Traceback" not in result.stderr
