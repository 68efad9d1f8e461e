"""An evaluation's runs are read by whoever may see the evaluation: its set's team opens,
replays and compares them (run page, API, event stream) but cannot cancel, re-run or rate
them; anyone else gets exactly the 404 of a run that does not exist."""

from __future__ import annotations

import io
import json
import re
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.db import connections
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries import notify, streams
from queries.models import Evaluation, EvaluationSet, QueryRun

# Committed rows: retrieval reads the knowledge base over its own connection.
pytestmark = pytest.mark.django_db(transaction=True)

DOCUMENTS = [
    ("curie.txt", "Marie Curie discovered polonium and radium in 1898."),
    ("nobel.txt", "The Nobel Prize in Chemistry of 1911 went to Marie Curie."),
]
ITEMS = [
    {"question": "What did Marie Curie discover?", "answers": ["polonium"]},
    {"question": "Who won the Nobel Prize in Chemistry of 1911?", "answers": ["Marie Curie"]},
]


def api_for(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def page_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def team_evaluation(user, django_user_model, tmp_path):
    """Return (teammate, the two question runs) of an evaluation alice ran over a knowledge
    base and a set both shared with her team."""
    lab = Group.objects.create(name="lab")
    user.groups.add(lab)
    teammate = django_user_model.objects.create_user("dana", "dana@example.com", "dana-pass-123")
    teammate.groups.add(lab)
    kb = kb_create(owner=user, name="Physics")
    documents_ingest_inline(kb=kb, items=[TextItem(n, t.encode()) for n, t in DOCUMENTS])
    kb.team = lab
    kb.save(update_fields=["team"])
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(item) for item in ITEMS))
    call_command(
        "evaluate", "--set", str(path), "--kb", str(kb.id), "--provider", "extractive",
        "--user", user.username, "--inline", stdout=io.StringIO(),
    )  # fmt: skip
    EvaluationSet.objects.update(team=lab)
    evaluation = Evaluation.objects.get()
    runs = [item.run for item in evaluation.items.order_by("position")]
    assert all(run.status == QueryRun.Status.SUCCEEDED for run in runs)
    return teammate, runs, kb


@pytest.fixture
def stream_reader(monkeypatch):
    """Read run logs on one thread of this test's, whose connection is closed after it (the
    stream's readers keep theirs open, which would hold the test database), and without the
    LISTEN connection (a finished run's log is read at once; a LISTEN task left on the test
    client's event loop would hold the database too)."""
    monkeypatch.setattr(notify.hub, "_ensure_started", lambda: None)
    pool = ThreadPoolExecutor(max_workers=1)
    previous, streams._pool = streams._pool, pool
    yield
    streams._pool = previous
    pool.submit(connections.close_all).result()
    pool.shutdown()


async def read_all(response) -> bytes:
    """Return a streamed response's whole body (the event stream is an async iterator)."""
    return b"".join([chunk async for chunk in response.streaming_content])


def without_csrf_token(body: bytes) -> bytes:
    """Return a page without its CSRF token, masked afresh for every response."""
    return re.sub(rb'name="csrfmiddlewaretoken" value="[^"]+"', b"", body)


def read_paths(run_a: QueryRun, run_b: QueryRun) -> list[str]:
    return [
        f"/api/runs/{run_a.id}",
        f"/api/runs/{run_a.id}/feedback",
        f"/api/runs/compare?a={run_a.id}&b={run_b.id}",
    ]


def test_a_teammate_opens_replays_and_compares_an_evaluation_s_runs(
    team_evaluation, user, stream_reader
):
    teammate, (first, second), _ = team_evaluation
    api = api_for(teammate)
    for path in read_paths(first, second):
        response = api.get(path)
        assert response.status_code == 200, (path, response.content)
    assert api.get(f"/api/runs/{first.id}").json()["answer"] == first.answer
    replay = api.get(f"/api/runs/{first.id}/events")
    assert replay.status_code == 200 and replay["Content-Type"].startswith("text/event-stream")
    frames = async_to_sync(read_all)(replay).decode()
    assert "event: stream_end" in frames and first.answer.split()[0] in frames
    pages = page_for(teammate)
    run_page = pages.get(f"/history/{first.id}/")
    assert run_page.status_code == 200
    html = run_page.content.decode()
    assert f'data-run-id="{first.id}"' in html and 'id="read-only-note"' in html
    assert 'id="feedback"' not in html and 'id="rerun"' not in html
    compare = pages.get(f"/history/compare/?a={first.id}&b={second.id}")
    assert compare.status_code == 200
    # The runs stay alice's: not in the teammate's history, and theirs to act on.
    assert api.get("/api/runs").json()["count"] == 0
    owner_page = page_for(user).get(f"/history/{first.id}/").content.decode()
    assert 'id="feedback"' in owner_page and 'id="read-only-note"' not in owner_page


def test_a_teammate_cannot_cancel_rerun_or_rate_an_evaluation_s_run(team_evaluation):
    teammate, (first, _), _ = team_evaluation
    api = api_for(teammate)
    for method, path, body in (
        ("post", f"/api/runs/{first.id}/cancel", None),
        ("post", f"/api/runs/{first.id}/rerun", {}),
        ("post", f"/api/runs/{first.id}/feedback", {"rating": "up"}),
        ("delete", f"/api/runs/{first.id}/feedback", None),
    ):
        response = getattr(api, method)(path, body, format="json")
        assert (response.status_code, response.json()["code"]) == (403, "permission_denied"), path
    assert not first.feedback.exists()
    assert QueryRun.objects.filter(user=teammate).count() == 0


def test_another_team_gets_the_404_of_a_missing_run(team_evaluation, other_user):
    teammate, (first, second), kb = team_evaluation
    missing = uuid.uuid4()
    outsider = api_for(other_user)

    def same_as_missing(client, method: str, path: str, body=None) -> None:
        kwargs = {"format": "json"} if isinstance(client, APIClient) else {}
        seen = getattr(client, method)(path.format(run=first.id, other=second.id), body, **kwargs)
        gone = getattr(client, method)(path.format(run=missing, other=missing), body, **kwargs)
        assert seen.status_code == gone.status_code == 404, path
        assert without_csrf_token(seen.content) == without_csrf_token(gone.content), path

    for path in (
        "/api/runs/{run}",
        "/api/runs/{run}/events",
        "/api/runs/{run}/feedback",
        "/api/runs/compare?a={run}&b={run}",
    ):
        same_as_missing(outsider, "get", path)
    same_as_missing(outsider, "post", "/api/runs/{run}/cancel")
    same_as_missing(outsider, "post", "/api/runs/{run}/rerun", {})
    for path in ("/history/{run}/", "/history/compare/?a={run}&b={other}"):
        same_as_missing(page_for(other_user), "get", path)
    # A teammate who may no longer read the knowledge base it searched no longer sees the
    # evaluation, nor its runs.
    kb.team = None
    kb.save(update_fields=["team"])
    same_as_missing(api_for(teammate), "get", "/api/runs/{run}")
    same_as_missing(page_for(teammate), "get", "/history/{run}/")
