"""POST /api/query end to end on a real OpenAI-compatible server: llama.cpp's server with a
small GGUF model, through the web server and a Procrastinate worker. Nothing is scripted."""

from __future__ import annotations

import json
import time

import pytest
import requests
from rest_framework.authtoken.models import Token

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.models import QueryRun
from tests.model_server import seconds_until_idle
from tests.queries.clients import js_reader_frames, sse_events
from tests.queries.pipeline.contract import check_frames

pytestmark = pytest.mark.slow

EIFFEL = (
    b"The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. It was "
    b"designed by the engineering firm of Gustave Eiffel. Its lead designer was Maurice "
    b"Koechlin. The tower was built from 1887 to 1889 for the World's Fair."
)


@pytest.fixture
def world(model_stack, transactional_db, user):
    kb = kb_create(owner=user, name="Landmarks")
    documents_ingest_inline(
        kb=kb,
        items=[
            TextItem("eiffel.txt", EIFFEL),
            TextItem("risotto.txt", b"Risotto is cooked with arborio rice and stock added slowly."),
        ],
    )
    token = Token.objects.create(user=user).key
    return {"url": model_stack.url, "headers": {"Authorization": f"Token {token}"}}


def post_query(world, query: str):
    return requests.post(
        world["url"] + "/api/query",
        json={"query": query, "provider": "openai"},
        headers=world["headers"],
        stream=True,
        timeout=(5, 180),
    )


def test_a_question_is_answered_by_the_real_server_with_usage_per_stage(world):
    response = post_query(world, "Who was the lead designer of the Eiffel Tower?")
    assert response.status_code == 200
    run_id = response.headers["X-Run-Id"]
    frames, _ = js_reader_frames(response)
    check_frames(frames)
    assert "answer_delta" not in {frame["type"] for frame in frames}
    assert frames[-1] == {"type": "stream_end"}
    assert frames[-2]["type"] == "done", frames[-2]
    assert frames[-2]["data"]["answer"].strip()
    run = QueryRun.objects.get(id=run_id)
    assert run.status == "succeeded" and run.provider == "openai"
    for stage in ("planner", "reasoning", "reflection"):
        assert run.usage[stage]["calls"] >= 1, run.usage
        assert run.usage[stage]["output_tokens"] > 0, run.usage
    # The events endpoint also carries the answer as it was written.
    replay = requests.get(
        f"{world['url']}/api/runs/{run_id}/events", headers=world["headers"], timeout=30
    )
    events = [e for e in sse_events(replay) if "comment" not in e]
    check_frames([json.loads(e["data"]) for e in events])
    deltas = [json.loads(e["data"])["data"] for e in events if e["event"] == "answer_delta"]
    assert deltas, [e["event"] for e in events]
    text = ""
    for delta in deltas:
        text = text[: delta["offset"]] + delta["text"]
    assert text.strip()


def test_cancel_during_the_answer_stops_the_model_server(world, llama_server):
    response = post_query(
        world, "Describe the Eiffel Tower in great detail, in many long paragraphs."
    )
    run_id = response.headers["X-Run-Id"]
    response.close()
    # Wait on the events endpoint until the answer is being written, then cancel.
    events = requests.get(
        f"{world['url']}/api/runs/{run_id}/events",
        headers=world["headers"],
        stream=True,
        timeout=(5, 180),
    )
    seen = sse_events(
        events, stop_after=lambda got: got[-1].get("event") in ("answer_delta", "done")
    )
    events.close()
    assert seen[-1].get("event") == "answer_delta", seen[-1]
    cancelled_at = time.monotonic()
    cancel = requests.post(
        f"{world['url']}/api/runs/{run_id}/cancel", headers=world["headers"], timeout=10
    )
    assert cancel.status_code == 202
    idle_after = seconds_until_idle(llama_server.pid)
    print(f"\nmodel server idle {time.monotonic() - cancelled_at:.1f}s after the cancel request")
    assert idle_after <= 5.0
    deadline = time.monotonic() + 30
    while QueryRun.objects.get(id=run_id).is_active and time.monotonic() < deadline:
        time.sleep(0.2)
    run = QueryRun.objects.get(id=run_id)
    assert run.status == "cancelled" and run.error_code == "cancelled"
