"""The POST /api/query contract against a live server, read as the spec's clients read it."""

from __future__ import annotations

import json
import time

import pytest
import requests
from rest_framework.authtoken.models import Token

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.models import QueryRun
from tests.queries.clients import js_reader_frames, python_reader_frames, sse_events
from tests.queries.pipeline.contract import CLEAN_PASS, RETRY_BLOCK, check_frames
from tests.queries.pipeline.scripted import PLAN_DIRECT, PLAN_RETRIEVE, answer, verdict
from tests.support import SHARED_STREAM_IDLE_TIMEOUT

pytestmark = pytest.mark.slow


@pytest.fixture
def world(shared_stack, transactional_db, user):
    # One web process and worker serve the whole module; each test makes its own user and KB.
    kb = kb_create(owner=user, name="Physics")
    documents_ingest_inline(
        kb=kb,
        items=[
            TextItem(
                "curie.txt",
                b"Marie Curie discovered polonium and radium. She won two Nobel Prizes.",
            ),
            TextItem("risotto.txt", b"Risotto is cooked with arborio rice and stock added slowly."),
        ],
    )
    token = Token.objects.create(user=user).key
    return {
        "url": shared_stack.url,
        "headers": {"Authorization": f"Token {token}"},
        "kb": kb,
        "stack": shared_stack,
    }


def post_query(world, body, url=None, **kwargs):
    return requests.post(
        (url or world["url"]) + "/api/query",
        json=body,
        headers=world["headers"],
        stream=True,
        timeout=(5, 60),
        **kwargs,
    )


def types_and_stages(frames):
    return [
        (f["type"], (f.get("data") or {}).get("stage") if f["type"] not in ("error",) else None)
        for f in frames
    ]


def test_clean_run_is_the_spec_sequence_for_both_reference_clients(world):
    query = "What did Marie Curie discover?"
    world["stack"].write_scripts(
        {query: {"planner": [PLAN_RETRIEVE], "reasoning": [answer()], "reflection": [verdict()]}}
    )
    response = post_query(world, {"query": query, "provider": " Scripted "})
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/event-stream")
    assert response.headers["Cache-Control"] == "no-cache"
    assert response.headers["X-Accel-Buffering"] == "no"
    run_id = response.headers["X-Run-Id"]
    frames, raw = js_reader_frames(response)
    assert types_and_stages(frames) == CLEAN_PASS
    check_frames(frames)
    assert frames[-1] == {"type": "stream_end"}
    assert frames[-2]["data"]["answer"] == "Marie Curie discovered radium [1]."
    # The same run, read by the Python reference client from the replay, gives the same frames.
    replay = requests.get(
        f"{world['url']}/api/runs/{run_id}/events",
        headers=world["headers"],
        stream=True,
        timeout=30,
    )
    replayed = python_reader_frames(replay)
    # The events endpoint also carries the answer as it was written (answer_delta).
    assert [f for f in replayed if f["type"] != "answer_delta"] == frames
    deltas = [f["data"] for f in replayed if f["type"] == "answer_delta"]
    assert deltas and deltas[-1]["offset"] + len(deltas[-1]["text"]) == len(
        "Marie Curie discovered radium [1]."
    )
    run = QueryRun.objects.get(id=run_id)
    assert run.status == "succeeded" and run.answer == frames[-2]["data"]["answer"]
    assert run.usage["planner"]["total_tokens"] == 110
    assert run.config["rerank_top_k"] == 5 and run.config["reranker"]["kind"]


def test_a_post_that_asks_for_answer_deltas_gets_them_and_otherwise_the_same_frames(world):
    query = "What did Pierre Curie discover?"
    world["stack"].write_scripts(
        {query: {"planner": [PLAN_RETRIEVE], "reasoning": [answer()], "reflection": [verdict()]}}
    )
    response = post_query(world, {"query": query, "provider": "scripted", "answer_deltas": True})
    assert response.status_code == 200
    frames, _ = js_reader_frames(response)
    deltas = [f["data"] for f in frames if f["type"] == "answer_delta"]
    assert deltas and deltas[-1]["offset"] + len(deltas[-1]["text"]) == len(
        "Marie Curie discovered radium [1]."
    )
    spec_frames = [f for f in frames if f["type"] != "answer_delta"]
    assert types_and_stages(spec_frames) == CLEAN_PASS
    check_frames(spec_frames)


def test_post_frames_carry_ids_and_one_line_data(world):
    query = "Ids please"
    world["stack"].write_scripts({query: {"planner": [PLAN_DIRECT], "reasoning": ["Hi."]}})
    response = post_query(world, {"query": query, "provider": "scripted"})
    run_id = response.headers["X-Run-Id"]
    events = [e for e in sse_events(response) if "comment" not in e]
    # The ids are the log's seqs; answer_delta events (events endpoint only) leave gaps.
    logged = QueryRun.objects.get(id=run_id).events.exclude(type="answer_delta")
    assert [int(e["id"]) for e in events] == list(logged.values_list("seq", flat=True))
    assert logged.count() < QueryRun.objects.get(id=run_id).events.count()
    assert all(set(e) == {"id", "data"} for e in events)
    assert json.loads(events[-1]["data"]) == {"type": "stream_end"}


def test_direct_answer(world):
    query = "hello"
    world["stack"].write_scripts(
        {query: {"planner": [PLAN_DIRECT], "reasoning": ["Hello! Ask about your documents."]}}
    )
    frames = python_reader_frames(post_query(world, {"query": query, "provider": "scripted"}))
    check_frames(frames)
    kinds = types_and_stages(frames)
    assert kinds[2:4] == [("stage_skip", "retrieval"), ("stage_skip", "external_tools")]
    assert frames[-2]["data"]["sources"] == [] and frames[-1] == {"type": "stream_end"}


def test_retry_run(world):
    query = "What did Curie find?"
    world["stack"].write_scripts(
        {
            query: {
                "planner": [PLAN_RETRIEVE],
                "reasoning": [
                    answer("Curie found uranium [1]."),
                    answer("Curie found radium [1]."),
                ],
                "reflection": [
                    verdict(False, True, ["uranium unsupported"], "stick to [1]"),
                    "Curie radium",
                    verdict(),
                ],
            }
        }
    )
    frames, _ = js_reader_frames(post_query(world, {"query": query, "provider": "scripted"}))
    check_frames(frames)
    kinds = types_and_stages(frames)
    i = kinds.index(("retry", None))
    assert kinds[i + 1 :] == RETRY_BLOCK + [
        ("finalize", "reflection"),
        ("done", None),
        ("stream_end", None),
    ]
    assert frames[-2]["data"]["answer"] == "Curie found radium [1]."


def test_pipeline_failure_is_an_in_band_error_on_a_200(world):
    response = post_query(world, {"query": "anything", "provider": "broken"})
    assert response.status_code == 200
    frames = python_reader_frames(response)
    assert frames == [
        {
            "type": "error",
            "data": {
                "message": "the 'broken' provider is misconfigured",
                "stage": "pipeline",
                "code": "pipeline_failed",
            },
        },
        {"type": "stream_end"},
    ]
    assert QueryRun.objects.get().status == "failed"


def test_cancel_stops_a_running_query(world):
    query = "Slow question about Curie"
    world["stack"].write_scripts(
        {
            query: {
                "planner": [PLAN_RETRIEVE],
                "reasoning": [answer()],
                "reflection": [verdict()],
                "_delays": {"reasoning": 60},
            }
        }
    )
    response = post_query(world, {"query": query, "provider": "scripted"})
    run_id = response.headers["X-Run-Id"]
    frames = []

    def cancel_when_reasoning(seen):
        if seen[-1]["type"] == "stage_start" and seen[-1]["data"]["stage"] == "reasoning":
            reply = requests.post(
                f"{world['url']}/api/runs/{run_id}/cancel", headers=world["headers"], timeout=10
            )
            assert reply.status_code == 202
        return False

    started = time.monotonic()
    frames, _ = js_reader_frames(response, stop_after=cancel_when_reasoning)
    assert time.monotonic() - started < 30
    assert frames[-2:] == [
        {
            "type": "error",
            "data": {"message": "Run cancelled", "stage": "pipeline", "code": "cancelled"},
        },
        {"type": "stream_end"},
    ]
    assert ("stage_complete", "reasoning") not in types_and_stages(frames)
    run = QueryRun.objects.get(id=run_id)
    assert run.status == "cancelled"
    again = requests.post(
        f"{world['url']}/api/runs/{run_id}/cancel", headers=world["headers"], timeout=10
    )
    assert again.status_code == 202 and again.json()["status"] == "cancelled"


def test_cancelling_a_finished_run_is_409(world):
    query = "quick"
    world["stack"].write_scripts({query: {"planner": [PLAN_DIRECT], "reasoning": ["Done."]}})
    response = post_query(world, {"query": query, "provider": "scripted"})
    python_reader_frames(response)
    reply = requests.post(
        f"{world['url']}/api/runs/{response.headers['X-Run-Id']}/cancel",
        headers=world["headers"],
        timeout=10,
    )
    assert reply.status_code == 409 and reply.json()["code"] == "run_finished"


def test_idle_timeout_ends_the_stream_but_not_the_run(world):
    query = "A question whose answer takes a while"
    world["stack"].write_scripts(
        {
            query: {
                "planner": [PLAN_RETRIEVE],
                "reasoning": [answer()],
                "reflection": [verdict()],
                # Past the stream's idle timeout (tests/support.py), well short of the run's.
                "_delays": {"reasoning": SHARED_STREAM_IDLE_TIMEOUT + 3},
            }
        }
    )
    response = post_query(world, {"query": query, "provider": "scripted"})
    run_id = response.headers["X-Run-Id"]
    events = sse_events(response)
    assert {"comment": "keep-alive"} in events
    last = [e for e in events if "data" in e][-1]
    assert json.loads(last["data"]) == {"type": "error", "data": {"message": "Stream timeout"}}
    # The run went on; its events endpoint has everything, ending with done and stream_end.
    deadline = time.monotonic() + 40
    while QueryRun.objects.get(id=run_id).status == "running":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    replay = python_reader_frames(
        requests.get(
            f"{world['url']}/api/runs/{run_id}/events",
            headers=world["headers"],
            stream=True,
            timeout=30,
        )
    )
    assert [f["type"] for f in replay[-2:]] == ["done", "stream_end"]


@pytest.mark.parametrize(
    "body, code",
    [
        ({}, "missing_query"),
        ({"query": "   "}, "missing_query"),
        ({"query": 42}, "invalid_query"),
        ({"query": "x", "provider": None}, "invalid_provider"),
        ({"query": "x", "provider": "gpt"}, "invalid_provider"),
        ({"query": "x", "model": 7}, "invalid_model"),
        ({"query": "x", "knowledge_bases": "all"}, "invalid_knowledge_bases"),
    ],
)
@pytest.mark.django_db
def test_bad_bodies_are_json_400s_before_the_stream(auth_client, body, code):
    # Request validation needs no live server.
    response = auth_client.post("/api/query", body, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == code
    if code == "missing_query":
        assert response.json()["error"] == "Missing or empty 'query' field"
    assert QueryRun.objects.count() == 0


@pytest.mark.django_db
def test_not_json_is_the_missing_query_400(auth_client):
    response = auth_client.generic("POST", "/api/query", "query=hi", content_type="text/plain")
    assert (
        response.status_code == 400 and response.json()["error"] == "Missing or empty 'query' field"
    )


def test_auth_and_limits(world, user, settings):
    assert (
        requests.post(world["url"] + "/api/query", json={"query": "x"}, timeout=10).status_code
        == 401
    )
    other_kb = kb_create(
        owner=type(user).objects.create_user("mallory", password="m-pass-1234"), name="Other"
    )
    response = requests.post(
        world["url"] + "/api/query",
        json={"query": "x", "knowledge_bases": [other_kb.id]},
        headers=world["headers"],
        timeout=10,
    )
    assert response.status_code == 404
    assert (
        requests.get(world["url"] + "/api/query", headers=world["headers"], timeout=10).status_code
        == 405
    )
