"""Any process serves any run: two web processes and a worker, resume, replay, a killed worker."""

from __future__ import annotations

import json
import signal
import threading
import time

import pytest
import requests
from rest_framework.authtoken.models import Token

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.models import QueryRun
from tests.queries.clients import js_reader_frames, sse_events
from tests.queries.pipeline.scripted import PLAN_RETRIEVE, answer, verdict

pytestmark = pytest.mark.slow


def make_world(stack, user) -> dict:
    kb = kb_create(owner=user, name="Physics")
    documents_ingest_inline(
        kb=kb,
        items=[
            TextItem(
                "curie.txt",
                b"Marie Curie discovered polonium and radium. She won two Nobel Prizes.",
            ),
        ],
    )
    headers = {"Authorization": f"Token {Token.objects.create(user=user).key}"}
    return {"stack": stack, "headers": headers, "kb": kb}


@pytest.fixture
def world(stack, user):
    """A stack of the test's own, which it starts, kills and restarts as it needs."""
    return make_world(stack, user)


@pytest.fixture
def shared_world(shared_stack, transactional_db, user):
    """The shared stack (one web process and a worker), for tests that only talk to processes."""
    return make_world(shared_stack, user)


def script(stack, query, delays=None):
    stack.write_scripts(
        {
            query: {
                "planner": [PLAN_RETRIEVE],
                "reasoning": [answer()],
                "reflection": [verdict()],
                "_delays": delays or {},
            }
        }
    )


def data_lines(events):
    return [e["data"] for e in events if "data" in e]


def test_a_run_started_on_web_a_streams_identically_through_web_b(shared_world):
    world = shared_world
    stack = world["stack"]
    # A second web process joins the shared stack (and stays for its later tests).
    web_a, web_b = stack.url, stack.start_web()
    query = "What did Marie Curie discover?"
    script(stack, query, {"reasoning": 1.5})
    post = requests.post(
        web_a + "/api/query",
        json={"query": query, "provider": "scripted"},
        headers=world["headers"],
        stream=True,
        timeout=(5, 60),
    )
    run_id = post.headers["X-Run-Id"]
    from_b: list = []
    reader = threading.Thread(
        target=lambda: from_b.extend(
            sse_events(
                requests.get(
                    f"{web_b}/api/runs/{run_id}/events",
                    headers=world["headers"],
                    stream=True,
                    timeout=60,
                )
            )
        )
    )
    reader.start()
    _, raw_a = js_reader_frames(post)
    reader.join(60)
    events_b = [e for e in from_b if "data" in e]
    # Web B's events endpoint sends every logged event: the POST stream's, plus the answer
    # as it was written (answer_delta), which POST /api/query leaves out.
    assert [int(e["id"]) for e in events_b] == list(range(1, len(events_b) + 1))
    spec_b = [e for e in events_b if e["event"] != "answer_delta"]
    assert data_lines(spec_b) == raw_a
    assert [e["event"] for e in spec_b] == [json.loads(line)["type"] for line in raw_a]
    assert len(spec_b) < len(events_b)
    assert json.loads(raw_a[-1]) == {"type": "stream_end"}


def test_resume_after_k_events_gives_exactly_the_rest(shared_world):
    world = shared_world
    stack = world["stack"]
    web = stack.url
    query = "Curie and radium, slowly"
    script(stack, query, {"reasoning": 1.0})
    post = requests.post(
        web + "/api/query",
        json={"query": query, "provider": "scripted"},
        headers=world["headers"],
        stream=True,
        timeout=(5, 60),
    )
    run_id = post.headers["X-Run-Id"]
    k = 5
    first = sse_events(post, stop_after=lambda seen: len([e for e in seen if "id" in e]) >= k)
    post.close()  # the client disconnects; the run goes on
    first = [e for e in first if "id" in e]
    assert [int(e["id"]) for e in first] == list(range(1, k + 1))
    resumed = sse_events(
        requests.get(
            f"{web}/api/runs/{run_id}/events",
            headers={**world["headers"], "Last-Event-ID": str(k)},
            stream=True,
            timeout=60,
        )
    )
    resumed = [e for e in resumed if "id" in e]
    run = QueryRun.objects.get(id=run_id)
    assert run.status == "succeeded"
    assert [int(e["id"]) for e in resumed] == list(range(k + 1, run.last_seq + 1))
    # ?after= works the same, and django-eventstream's channel:id form of Last-Event-ID too.
    after = [
        e
        for e in sse_events(
            requests.get(
                f"{web}/api/runs/{run_id}/events?after={k}",
                headers=world["headers"],
                stream=True,
                timeout=30,
            )
        )
        if "id" in e
    ]
    assert after == resumed
    legacy = [
        e
        for e in sse_events(
            requests.get(
                f"{web}/api/runs/{run_id}/events",
                headers={**world["headers"], "Last-Event-ID": f"run-{run_id}:{k}"},
                stream=True,
                timeout=30,
            )
        )
        if "id" in e
    ]
    assert legacy == resumed
    # The replay of the finished run is byte-identical to what the live stream sent.
    full = sse_events(
        requests.get(
            f"{web}/api/runs/{run_id}/events", headers=world["headers"], stream=True, timeout=30
        )
    )
    assert data_lines(full) == data_lines(first) + data_lines(resumed)
    # Fully sent: EventSource is told to stop reconnecting.
    done = requests.get(
        f"{web}/api/runs/{run_id}/events",
        headers={**world["headers"], "Last-Event-ID": str(run.last_seq)},
        timeout=10,
    )
    assert done.status_code == 204
    assert "Content-Type" not in done.headers and not done.content
    bad = requests.get(
        f"{web}/api/runs/{run_id}/events?after=minus-one", headers=world["headers"], timeout=10
    )
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_cursor"


def test_runs_api_lists_details_and_scopes_runs(shared_world, other_user):
    world = shared_world
    stack = world["stack"]
    web = stack.url
    # Questions the scripted answer answers: the answer check reads every run.
    for query in (
        "First: what did Marie Curie discover?",
        "Second: what did Marie Curie discover?",
    ):
        script(stack, query)
        response = requests.post(
            web + "/api/query",
            json={"query": query, "provider": "scripted"},
            headers=world["headers"],
            stream=True,
            timeout=(5, 60),
        )
        js_reader_frames(response)
    listing = requests.get(
        web + "/api/runs?page_size=1", headers=world["headers"], timeout=10
    ).json()
    assert listing["count"] == 2 and len(listing["results"]) == 1 and listing["next"]
    assert listing["results"][0]["query"] == "Second: what did Marie Curie discover?"
    found = requests.get(
        web + "/api/runs?q=first&status=succeeded&provider=scripted",
        headers=world["headers"],
        timeout=10,
    ).json()
    assert [r["query"] for r in found["results"]] == ["First: what did Marie Curie discover?"]
    assert (
        requests.get(
            web + "/api/runs?status=bogus", headers=world["headers"], timeout=10
        ).status_code
        == 400
    )
    run_id = found["results"][0]["id"]
    detail = requests.get(f"{web}/api/runs/{run_id}", headers=world["headers"], timeout=10).json()
    assert detail["answer"] == "Marie Curie discovered radium [1]."
    assert detail["events"][0]["frame"]["type"] == "stage_start" and detail["events"][-1][
        "frame"
    ] == {"type": "stream_end"}
    assert detail["config"]["retrieval_top_k"] == 10 and detail["usage"]["reasoning"]["calls"] == 1
    assert detail["timings"]["total_ms"] > 0 and detail["duration_ms"] > 0
    stranger = {"Authorization": f"Token {Token.objects.create(user=other_user).key}"}
    assert requests.get(web + "/api/runs", headers=stranger, timeout=10).json()["count"] == 0
    for path in (f"/api/runs/{run_id}", f"/api/runs/{run_id}/events"):
        response = requests.get(web + path, headers=stranger, timeout=10)
        assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert (
        requests.post(f"{web}/api/runs/{run_id}/cancel", headers=stranger, timeout=10).status_code
        == 404
    )


def test_a_killed_worker_leaves_an_interrupted_run_with_terminal_frames(world):
    stack = world["stack"]
    # The run must be found dead within 30 s (asserted below); the stream's idle timeout, 15 s
    # in test stacks, would end it first while a loaded machine starts the new worker.
    stack.env["STREAM_IDLE_TIMEOUT_SECONDS"] = "60"
    web = stack.start_web(wait=False)  # the worker starts while the web process does
    worker = stack.start_worker()
    stack.wait_for_web(web)
    stack.wait_for_worker()
    # Loaded before the question, so that a slow CPU's warm-up is not a silence in its stream.
    stack.wait_for_warm_up(0)
    query = "A query whose worker dies"
    script(stack, query, {"reasoning": 60})
    post = requests.post(
        web + "/api/query",
        json={"query": query, "provider": "scripted"},
        headers=world["headers"],
        stream=True,
        timeout=(5, 90),
    )
    run_id = post.headers["X-Run-Id"]
    killed_at = []

    def kill_at_reasoning(seen):
        last = seen[-1]
        if last["type"] == "stage_start" and last["data"]["stage"] == "reasoning" and not killed_at:
            worker.send_signal(signal.SIGKILL)
            killed_at.append(time.monotonic())
            # A process manager starts a worker again; its periodic reaper ends the dead run
            # (readers never do), and the stream, woken by the reaper's frames, ends.
            stack.start_worker()
        return False

    frames, _ = js_reader_frames(post, stop_after=kill_at_reasoning)
    assert killed_at
    detected_after = time.monotonic() - killed_at[0]
    assert frames[-2:] == [
        {
            "type": "error",
            "data": {
                "message": "The worker running this query stopped before it finished.",
                "stage": "pipeline",
                "code": "interrupted",
            },
        },
        {"type": "stream_end"},
    ]
    run = QueryRun.objects.get(id=run_id)
    assert run.status == "interrupted" and run.error_code == "interrupted"
    assert detected_after < 30


# The real model: its embedding is the load ("minutes of embedding") the run must not wait behind.
@pytest.mark.real_embedder
def test_a_query_starts_at_once_while_many_ingestions_are_pending(world):
    from django.conf import settings

    from knowledge.models import Document

    stack = world["stack"]
    url = stack.start_web(wait=False)  # the workers start while the web process does
    stack.start_worker(queues="runs,default")
    # One ingestion at a time, as runportal runs an ingest worker: four at once (the worker
    # default) kept both cores embedding, and stopping the worker waited for each of the four
    # to reach its next batch.
    stack.start_worker(queues="ingest", concurrency=settings.INGEST_WORKER_CONCURRENCY)
    stack.wait_for_web(url)
    stack.wait_for_worker()
    # The runs worker loaded before the question: a slow CPU's warm-up beside twenty
    # ingestions is no silence in the question's stream.
    stack.wait_for_warm_up(0)
    # Twenty uploads of about 200 KB each: minutes of embedding for one ingest worker.
    for n in range(20):
        text = " ".join(f"Entry {n}.{k}: sample {k * 31 % 997} was weighed." for k in range(5000))
        response = requests.post(
            f"{url}/api/knowledge-bases/{world['kb'].id}/documents",
            files={"file": (f"notes-{n}.txt", text.encode())},
            headers=world["headers"],
            timeout=30,
        )
        assert response.status_code == 202, response.text
    waits = []
    for query in ("What did Curie discover?", "What did Curie win?"):
        script(stack, query)
        response = requests.post(
            url + "/api/query",
            json={"query": query, "provider": "scripted"},
            headers=world["headers"],
            stream=True,
            timeout=(5, 60),
        )
        frames, _ = js_reader_frames(response)
        assert frames[-2]["type"] == "done"
        run = QueryRun.objects.get(id=response.headers["X-Run-Id"])
        waits.append((run.started_at - run.created_at).total_seconds())
    pending = Document.objects.filter(status__in=Document.ACTIVE_STATUSES).count()
    print(
        f"\nqueue wait of runs with {pending} ingestions pending: "
        + ", ".join(f"{wait * 1000:.0f} ms" for wait in waits)
    )
    # The run was queued, started and finished while the ingest queue was still full.
    assert pending >= 15
    for document in Document.objects.filter(status__in=Document.ACTIVE_STATUSES):
        requests.post(
            f"{url}/api/documents/{document.id}/cancel", headers=world["headers"], timeout=10
        )
