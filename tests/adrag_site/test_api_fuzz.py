"""Property-based fuzzing of the whole API from its OpenAPI schema (schemathesis over /api/schema).

A live uvicorn server, a user who owns a knowledge base with one ingested document and one
finished run; every operation of the schema gets schema-valid and schema-invalid requests,
with random ids and with the real ones. Every response must be below 500, JSON (but 204s and
event streams), and conform to the schema: its status documented, its headers and body valid.

Both streams are fuzzed too. A run that a valid POST /api/query starts stays queued (no worker
runs here), so its stream is read until it has been silent for STREAM_SILENCE_SECONDS and then
cut, as schemathesis does for any event stream.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from hypothesis.internal.conjecture import engine
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from adrag_site.server import uvicorn_command
from tests.embedding import use_hash_embedder
from tests.model_server import free_port
from tests.support import ROOT, child_env

# django_db so that pytest-django sets the test database up; the fixture's rows are committed
# outside the test's transaction, where the server can see them, and removed at the end.
pytestmark = [pytest.mark.slow, pytest.mark.django_db]

# Examples per operation and generation mode, with random ids and (where the path has an id)
# with the fixture's real ids; enough for well over 1,000 requests in all.
EXAMPLES_RANDOM_IDS = 3
EXAMPLES_REAL_IDS = 2
MIN_REQUESTS = 1000
REQUEST_TIMEOUT = (10, 60)  # seconds to connect, and to wait for each read of the response
# How long an event stream may go silent, once its headers are in, before it is cut. A stream
# sends the events its run has logged as soon as it opens, within milliseconds, and a queued
# run's stream then sends nothing for STREAM_WAITING_SECONDS (5 s): waiting longer reads
# nothing more. (A one-second read timeout, for headers and body alike, made the three queued
# runs' streams cost 3 s.)
STREAM_SILENCE_SECONDS = 0.25
# Draws Hypothesis may reject before a run stops (its own default is 458). schemathesis rejects
# a negative case that negates nothing, and for an operation with little to negate Hypothesis
# drew 458 such cases before it gave up: two thirds of this test's time went to those draws,
# which send no request.
REJECTED_DRAWS = 50
# The same where a negative case has nothing to break at all (`_nothing_to_negate`), so that
# every draw is rejected: 30 such runs drew 51 times each, 3.6 s in all, to send nothing. A few
# draws still let a case through should schemathesis ever find something there to break.
REJECTED_DRAWS_NOTHING_TO_NEGATE = 3
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# Bodies that are not JSON but documented: event streams, the feedback export (JSON Lines) and
# a conversation's Markdown export.
# A document's stored file is documented as a binary download (application/octet-stream).
# An evaluation's CSV export (?format=csv, which generation finds too) and a page's scan (PNG).
OTHER_MEDIA_TYPES = (
    "text/event-stream",
    "application/x-ndjson",
    "text/markdown",
    "application/octet-stream",
    "text/csv",
    "image/png",
)
# Values that broke this API before (NUL, Unicode digits, dates that parse but do not exist,
# ids past 64 bits), mixed into generated strings and integers: random text alone almost never
# holds them. (schemathesis cannot send a lone surrogate; tests/adrag_site/test_bad_requests.py
# does.)
HOSTILE_STRINGS = [
    "\x00",
    "a\x00b",
    "²",
    "٣",
    "2026-02-30",
    "2026-13-01",
    "2026-01-01T00:00:00+99:00",
    "9999-12-31T23:59:59-23:59",
    "9" * 30,
    "-1",
    " ",
    "x" * 300,
    "../../etc/passwd",
    "%00",
    "NaN",
]
HOSTILE_INTEGERS = [0, -1, 2**31, 2**63, -(2**63) - 1, 10**30]
GENERATION_CONFIG = {
    "dictionaries": {
        "hostile-strings": {"values": HOSTILE_STRINGS},
        "hostile-integers": {"values": HOSTILE_INTEGERS},
    },
    "generation": {
        "dictionaries": {
            "string": {"dictionary": "hostile-strings", "probability": 0.15},
            "integer": {"dictionary": "hostile-integers", "probability": 0.15},
        }
    },
}


TEAM = "fuzz-lab"
# Successes random generation cannot reach (it knows no file a KB accepts, nor the user's team),
# sent as written so that their response bodies are checked against the schema too.
KNOWN_GOOD = [
    ("PATCH", "/api/knowledge-bases/{kb_id}", {"json": {"team": TEAM, "description": "Shared"}}),
    (
        "POST",
        "/api/knowledge-bases/{kb_id}/documents",
        {"files": [("file", ("radium.txt", b"Radium glows faintly blue in the dark."))]},
    ),
    (
        "POST",
        "/api/upload",
        {"files": [("file", ("polonium.md", b"# Polonium\nNamed for Poland."))]},
    ),
    ("GET", "/api/knowledge-bases/{kb_id}/documents", {"params": {"status": "queued"}}),
    ("POST", "/api/documents/{document_id}/reindex", {}),
    ("POST", "/api/documents/{document_id}/cancel", {}),
    ("GET", "/api/runs/{run_id}/events", {"params": {"after": 1}}),
    ("POST", "/api/runs/{run_id}/feedback", {"json": {"rating": "down", "comment": "Too short"}}),
    ("GET", "/api/runs/{run_id}/feedback", {}),
    ("GET", "/api/feedback/export", {"params": {"rating": "down"}}),
    ("GET", "/api/runs/compare", {"params": {"a": "{run_id}", "b": "{run_id}"}}),
    (
        "POST",
        "/api/evaluation-sets",
        {"files": [("file", ("set.jsonl", b'{"question": "Who?", "answers": ["Curie"]}'))]},
    ),
    ("GET", "/api/evaluations/{evaluation_id}", {"params": {"format": "csv"}}),
    ("GET", "/api/evaluations", {"params": {"set": "{set_id}"}}),
]


@dataclass
class World:
    url: str
    token: str
    ids: dict[str, object]


@dataclass
class Tally:
    requests: int = 0
    unsendable: int = 0
    server_errors: list[str] = field(default_factory=list)
    not_json: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    seconds: Counter = field(default_factory=Counter)


def _make_world(media_root) -> dict:
    """Create a user with a token, a KB with one ingested document and one finished run."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import override_settings
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from knowledge.bulk import TextItem, documents_ingest_inline
    from knowledge.services import kb_create
    from queries.models import (
        Conversation,
        Evaluation,
        EvaluationItem,
        EvaluationQuestion,
        EvaluationSet,
        QueryRun,
        RunEvent,
    )

    user = get_user_model().objects.create_user("fuzzer", "fuzzer@example.com", "fuzz-pass-123")
    user.groups.add(Group.objects.create(name=TEAM))
    with override_settings(MEDIA_ROOT=media_root):
        kb = kb_create(owner=user, name="Physics")
        documents_ingest_inline(
            kb=kb,
            items=[
                TextItem(
                    "curie.txt",
                    b"Marie Curie discovered polonium and radium. She won two Nobel Prizes.",
                )
            ],
        )
    document = kb.documents.get()
    assert document.status == "ready", document.error
    now = timezone.now()
    conversation = Conversation.objects.create(user=user, title="What did Marie Curie discover?")
    run = QueryRun.objects.create(
        user=user,
        conversation=conversation,
        standalone_query="What did Marie Curie discover?",
        query="What did Marie Curie discover?",
        provider="extractive",
        status=QueryRun.Status.SUCCEEDED,
        kb_ids=[kb.id],
        started_at=now,
        finished_at=now,
        answer="Polonium and radium [1].",
        last_seq=2,
    )
    frames = [
        {"type": "stage_start", "data": {"stage": "planner"}},
        {"type": "stream_end"},
    ]
    for seq, frame in enumerate(frames, start=1):
        RunEvent.objects.create(
            run=run, seq=seq, type=frame["type"], payload=json.dumps(frame), created_at=now
        )
    run.knowledge_bases.add(kb)
    evaluation_set = EvaluationSet.objects.create(name="Curie", owner=user, question_count=1)
    question = EvaluationQuestion.objects.create(
        evaluation_set=evaluation_set, position=1, question=run.query, gold={"answers": ["radium"]}
    )
    evaluation = Evaluation.objects.create(
        evaluation_set=evaluation_set, user=user, provider="extractive", kb_ids=[kb.id],
        status=Evaluation.Status.SUCCEEDED, question_count=1, done_count=1,
    )  # fmt: skip
    EvaluationItem.objects.create(
        evaluation=evaluation, question=question, position=1, run=run, status="done",
        score={"kind": "", "status": "succeeded", "verdict": "verified", "right": True},
    )  # fmt: skip
    return {
        "user_id": user.id,
        "token": Token.objects.create(user=user).key,
        "ids": {
            "kb_id": kb.id,
            "document_id": document.id,
            "run_id": str(run.id),
            "conversation_id": str(conversation.id),
            "set_id": evaluation_set.id,
            "evaluation_id": evaluation.id,
        },
    }


def _remove_world(user_id: int, first_job_id: int, media_root) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.db import connection
    from django.test import override_settings

    from knowledge.models import KnowledgeBase
    from knowledge.services import kb_delete

    with override_settings(MEDIA_ROOT=media_root):
        for kb in KnowledgeBase.objects.filter(owner_id=user_id):
            kb_delete(kb=kb)
    get_user_model().objects.filter(id=user_id).delete()
    Group.objects.filter(name=TEAM).delete()
    with connection.cursor() as cursor:
        # The uploads and runs the fuzzer queued; no worker ran them.
        cursor.execute("DELETE FROM procrastinate_jobs WHERE id > %s", [first_job_id])


def _last_job_id() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(max(id), 0) FROM procrastinate_jobs")
        return cursor.fetchone()[0]


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory, _hash_embedder):
    # What the server finds is not fuzzed: it and this process embed with the small
    # deterministic embedder (tests/embedding.py), so the server loads no model.
    with pytest.MonkeyPatch.context() as patch:
        use_hash_embedder(patch, *_hash_embedder)
        yield from _world(django_db_blocker, tmp_path_factory)


def _world(django_db_blocker, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    media_root = folder / "media"
    with django_db_blocker.unblock():
        first_job_id = _last_job_id()
        made = _make_world(media_root)
        env = child_env(ADRAG_MEDIA_ROOT=str(media_root))
    port = free_port()
    log = folder / "web.log"
    process = subprocess.Popen(
        uvicorn_command(sys.executable, "127.0.0.1", port),
        cwd=ROOT,
        env=env,
        stdout=open(log, "wb"),
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(url + "/api/health", timeout=2)
                break
            except requests.RequestException:
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "the web server did not start"
                time.sleep(0.2)
        yield World(url=url, token=made["token"], ids=made["ids"])
    finally:
        process.terminate()
        process.wait(15)
        with django_db_blocker.unblock():
            _remove_world(made["user_id"], first_job_id, media_root)


def _summary(lines: list[str]) -> list[str]:
    """Group findings by kind and operation, with a count and one example each."""
    groups: dict[str, list[str]] = {}
    for line in lines:
        kind, _, example = line.partition("|")
        groups.setdefault(kind, []).append(example)
    return [f"{len(examples)} x {kind}, e.g. {examples[0]}" for kind, examples in groups.items()]


def _describe(case, response, kind: str = "") -> str:
    body = response.content[:300].decode("utf-8", "replace")
    label = f"{kind} {case.operation.label}".strip()
    return f"{label}|{case.method} {response.request.url} -> {response.status_code}: {body}"


class Fuzzer:
    """Send cases to the live server and tally what comes back."""

    def __init__(self, schema, world: World, session: requests.Session) -> None:
        self.schema = schema
        self.world = world
        self.session = session
        self.headers = {"Authorization": f"Token {world.token}"}
        self.tally = Tally()

    def send(self, case) -> None:
        tally = self.tally
        try:
            response = case.call(
                base_url=self.world.url,
                session=self.session,
                headers=self.headers,
                timeout=REQUEST_TIMEOUT,
            )
        except (UnicodeEncodeError, requests.exceptions.InvalidHeader):
            # A header value outside Latin-1 or with a NUL or leading space (say "٣" as
            # Last-Event-ID), which HTTP clients refuse to send.
            tally.unsendable += 1
            return
        tally.requests += 1
        tally.statuses[response.status_code] += 1
        content_type = (response.headers.get("content-type") or [""])[0]
        # /api/health answers a documented 503 while a queue has no live worker, as this
        # world's has none: an answer, not a server error.
        unavailable = _health_unavailable(case, response)
        if response.status_code >= 500 and not unavailable:
            tally.server_errors.append(_describe(case, response, "5xx"))
        if response.status_code != 204 and not content_type.startswith(
            ("application/json", *OTHER_MEDIA_TYPES)
        ):
            tally.not_json.append(_describe(case, response, f"non-JSON {content_type}"))
        try:
            case.validate_response(response, checks=CHECKS, headers=self.headers)
        except FailureGroup as group:
            for failure in group.exceptions:
                if unavailable and failure.title == "Server error":
                    continue
                tally.violations.append(_describe(case, response, failure.title))

    def known_good(self) -> None:
        """Send KNOWN_GOOD and check each answers 2xx, conforming to the schema."""
        for method, path, kwargs in KNOWN_GOOD:
            operation = self.schema[path][method]
            ids = {
                parameter.name: self.world.ids[parameter.name]
                for parameter in operation.path_parameters
            }
            case = operation.Case(path_parameters=ids)
            if "params" in kwargs:  # query parameters may name the fixture's ids too
                kwargs = {
                    **kwargs,
                    "params": {
                        name: value.format(**self.world.ids) if isinstance(value, str) else value
                        for name, value in kwargs["params"].items()
                    },
                }
            response = self.session.request(
                method,
                self.world.url + path.format(**ids),
                headers=self.headers,
                timeout=REQUEST_TIMEOUT,
                **kwargs,
            )
            self.tally.requests += 1
            self.tally.statuses[response.status_code] += 1
            if not 200 <= response.status_code < 300:
                self.tally.violations.append(
                    f"known-good request failed {method} {path}|{response.status_code}: "
                    f"{response.text[:300]}"
                )
            try:
                case.validate_response(response, checks=CHECKS, headers=self.headers)
            except FailureGroup as group:
                for failure in group.exceptions:
                    self.tally.violations.append(
                        f"{failure.title} {method} {path}|{response.status_code}: {response.text[:300]}"
                    )

    def coverage(self, operation) -> None:
        """Send schemathesis's deterministic edge cases: boundaries, missing and wrong fields."""
        for case in self.schema.iter_coverage_cases(
            operation,
            generation_modes=list(schemathesis.GenerationMode),
            generation_config=self.schema.config.generation_for(operation=operation),
        ):
            self.send(case)

    def fuzz(self, operation, *, real_ids: bool) -> None:
        """Send random valid and invalid cases, with random ids or the fixture's real ones."""
        path_ids = None
        if real_ids:
            names = {parameter.name for parameter in operation.path_parameters}
            path_ids = {name: self.world.ids[name] for name in names if name in self.world.ids}
        examples = EXAMPLES_REAL_IDS if real_ids else EXAMPLES_RANDOM_IDS
        for mode in schemathesis.GenerationMode:
            rejected = (
                REJECTED_DRAWS_NOTHING_TO_NEGATE
                if mode == schemathesis.GenerationMode.NEGATIVE
                and _nothing_to_negate(operation, path_ids)
                else REJECTED_DRAWS
            )
            strategy = operation.as_strategy(generation_mode=mode, path_parameters=path_ids)
            send = settings(
                max_examples=examples,
                derandomize=True,
                database=None,
                deadline=None,
                phases=[Phase.generate],
                suppress_health_check=list(HealthCheck),
            )(given(case=strategy)(self.send))
            try:
                with pytest.MonkeyPatch.context() as patch:
                    patch.setattr(engine, "INVALID_THRESHOLD_BASE", rejected)
                    send()
            except Unsatisfiable:
                # No invalid request exists for an operation without parameters or body.
                assert mode == schemathesis.GenerationMode.NEGATIVE


def _nothing_to_negate(operation, path_ids: dict | None) -> bool:
    """Tell whether a negative case of `operation` has nothing to break: no body, no query,
    path ids all given (schemathesis sends given values as they are), and no header or cookie
    but optional ones that take any string (the token and the session cookie of the security
    schemes), which no value breaks."""
    given = path_ids or {}
    breakable_headers = [
        parameter
        for parameter in (*operation.headers, *operation.cookies)
        if parameter.is_required or parameter.definition.get("schema") != {"type": "string"}
    ]
    return (
        not operation.body
        and not operation.query
        and not breakable_headers
        and all(parameter.name in given for parameter in operation.path_parameters)
    )


def _cut_silent_streams(response, *args, **kwargs):
    """Hold the body of an event stream to STREAM_SILENCE_SECONDS of silence (a requests
    response hook: it runs once the headers are in, before the body is read)."""
    if response.headers.get("Content-Type", "").startswith("text/event-stream"):
        response.raw.connection.sock.settimeout(STREAM_SILENCE_SECONDS)
    return response


def _health_unavailable(case, response) -> bool:
    """Tell whether this is /api/health's documented 503 (degraded or unhealthy)."""
    if case.operation.path != "/api/health" or response.status_code != 503:
        return False
    try:
        return response.json().get("status") in ("degraded", "unhealthy")
    except ValueError:
        return False


def test_fuzzing_the_schema_finds_no_5xx_no_non_json_and_no_schema_violation(world):
    started = time.monotonic()
    schema = schemathesis.openapi.from_url(
        world.url + "/api/schema?format=json",
        headers={"Authorization": f"Token {world.token}"},
        config=schemathesis.Config.from_dict(GENERATION_CONFIG),
    )
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20
    # Deletions last, so that the other operations meet the real KB, document and run.
    operations.sort(key=lambda operation: operation.method.upper() == "DELETE")
    with requests.Session() as session:
        # The server is local: no proxy, netrc or CA bundle to look up in the environment, as
        # requests does for every request.
        session.trust_env = False
        session.hooks["response"].append(_cut_silent_streams)
        fuzzer = Fuzzer(schema, world, session)
        fuzzer.known_good()
        for operation in operations:
            began = time.monotonic()
            fuzzer.coverage(operation)
            fuzzer.fuzz(operation, real_ids=False)
            if any(parameter.name in world.ids for parameter in operation.path_parameters):
                fuzzer.fuzz(operation, real_ids=True)
            fuzzer.tally.seconds[operation.label] += time.monotonic() - began
    tally = fuzzer.tally
    elapsed = time.monotonic() - started
    print(
        f"\nAPI fuzzing: {tally.requests} requests over {len(operations)} operations in "
        f"{elapsed:.1f} s; 5xx: {len(tally.server_errors)}, non-JSON: {len(tally.not_json)}, "
        f"schema violations: {len(tally.violations)}"
    )
    print(f"  statuses: {dict(sorted(tally.statuses.items()))}; unsendable: {tally.unsendable}")
    print("  slowest:", [(label, round(t, 1)) for label, t in tally.seconds.most_common(5)])
    for line in _summary(tally.server_errors + tally.not_json + tally.violations):
        print("  " + line[:600])
    assert tally.requests >= MIN_REQUESTS
    assert tally.server_errors == []
    assert tally.not_json == []
    assert tally.violations == []
