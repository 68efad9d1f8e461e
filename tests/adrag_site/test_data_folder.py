"""Administrator commands read the portal's data: `runportal` prints them with its data folder,
and a command run against a database the portal never set up says so instead of a traceback."""

from __future__ import annotations

import os
import uuid
from urllib.parse import urlparse, urlunparse

import pytest
from django.db import connection

from tests.support import run_manage


def test_runportal_prints_its_commands_with_its_data_folder(monkeypatch, settings, tmp_path):
    from adrag_site.management.commands.runportal import FIRST_ADMIN_HELP, same_data_env

    monkeypatch.delenv("ADRAG_DATA_DIR", raising=False)
    assert same_data_env() == ""  # the default folder: the commands as the README shows them
    folder = tmp_path / "team data"
    monkeypatch.setenv("ADRAG_DATA_DIR", str(folder))
    settings.DATA_DIR = folder
    help_text = FIRST_ADMIN_HELP.format(host="127.0.0.1", port=8000, env=same_data_env())
    joined = help_text.replace("\\\n", " ")  # a command continued over two lines is one
    commands = [line.strip() for line in joined.splitlines() if "manage.py" in line]
    assert len(commands) == 3
    assert all(f"ADRAG_DATA_DIR='{folder}' " in line.split("manage.py")[0] for line in commands)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_command_on_a_database_the_portal_never_set_up_says_what_to_do():
    name = f"adrag_empty_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')
    try:
        url = os.environ.get("DATABASE_URL")
        env = (
            {"DATABASE_URL": urlunparse(urlparse(url)._replace(path="/" + name))}
            if url
            else {"ADRAG_DB_NAME": name}
        )
        done = run_manage("drf_create_token", "admin", **env)
        assert done.returncode == 1, done.stderr
        assert "holds no portal tables" in done.stderr and "ADRAG_DATA_DIR" in done.stderr
        assert "Traceback" not in done.stderr
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
