"""The portal's figures on /metrics: runs, stage latencies, ingestion, and open streams."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
import requests
from django.utils import timezone

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.models import Chunk, Document
from knowledge.services import kb_create
from queries.execution import run_execute
from queries.models import QueryRun, RunEvent
from queries.services import run_create
from tests.live import METRICS_TOKEN
from tests.metrics_scrape import samples, value
from tests.queries.pipeline.scripted import PLAN_RETRIEVE, answer, verdict

TOKEN = "scrape-me-3f9a"
CURIE = b"Marie Curie discovered polonium and radium in 1898. She won two Nobel Prizes."


@pytest.fixture
def scrape(client, settings):
    settings.METRICS_TOKEN = TOKEN

    def _scrape() -> dict:
        response = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert response.status_code == 200
        return samples(response.content.decode())

    return _scrape


def _event(run: QueryRun, seq: int, event_type: str, stage: str, at) -> None:
    payload = json.dumps({"type": event_type, "data": {"stage": stage}})
    RunEvent.objects.create(run=run, seq=seq, type=event_type, payload=payload, created_at=at)


@pytest.mark.django_db
def test_stage_latency_times_every_attempt_and_only_runs_of_the_window(scrape, user, settings):
    settings.METRICS_WINDOW_MINUTES = 30
    t0 = timezone.now()
    run = QueryRun.objects.create(user=user, query="q", provider="scripted", status="succeeded")
    # planner 0.3 s; reasoning twice (a retry): 2 s, then 4 s; reranker failed at 0.2 s and its
    # fallback finished at 0.7 s; retrieval ends with retrieval_result; a skip is no attempt.
    timeline = [
        ("stage_start", "planner", 0.0),
        ("stage_complete", "planner", 0.3),
        ("stage_start", "retrieval", 0.3),
        ("retrieval_result", "retrieval", 1.3),
        ("stage_skip", "external_tools", 1.3),
        ("stage_start", "reranker", 1.3),
        ("stage_error", "reranker", 1.5),
        ("stage_complete", "reranker", 2.0),
        ("stage_start", "reasoning", 2.0),
        ("stage_complete", "reasoning", 4.0),
        ("stage_start", "reasoning", 5.0),
        ("stage_complete", "reasoning", 9.0),
        ("stage_start", "reflection", 9.0),  # still running: not counted
    ]
    for seq, (event_type, stage, offset) in enumerate(timeline, start=1):
        _event(run, seq, event_type, stage, t0 + timedelta(seconds=offset))
    old = QueryRun.objects.create(user=user, query="old", provider="scripted", status="succeeded")
    QueryRun.objects.filter(id=old.id).update(created_at=t0 - timedelta(minutes=31))
    _event(old, 1, "stage_start", "planner", t0 - timedelta(minutes=31))
    _event(old, 2, "stage_complete", "planner", t0 - timedelta(minutes=30))

    scraped = scrape()

    def bucket(stage: str, le: str) -> float:
        return value(scraped, "adrag_stage_duration_seconds_bucket", stage=stage, le=le)

    def count(stage: str) -> float:
        return value(scraped, "adrag_stage_duration_seconds_gcount", stage=stage)

    assert (bucket("planner", "0.25"), bucket("planner", "0.5"), count("planner")) == (0, 1, 1)
    assert (bucket("retrieval", "0.5"), bucket("retrieval", "1.0"), count("retrieval")) == (0, 1, 1)
    assert (bucket("reranker", "0.5"), bucket("reranker", "1.0")) == (0, 1)
    assert (bucket("reasoning", "2.5"), bucket("reasoning", "5.0"), count("reasoning")) == (1, 2, 2)
    assert value(scraped, "adrag_stage_duration_seconds_gsum", stage="reasoning") == pytest.approx(
        6
    )
    assert count("external_tools") == 0 and count("reflection") == 0
    assert value(scraped, "adrag_metrics_window_seconds") == 1800


@pytest.mark.django_db(transaction=True)
def test_runs_by_status_and_provider_and_ingestion_from_real_work(scrape, user):
    # Procrastinate's tables outlive other tests' flushes: count this test's jobs on top.
    todo_before = value(scrape(), "adrag_queue_jobs", queue="runs", status="todo")
    kb = kb_create(owner=user, name="Physics")
    documents_ingest_inline(kb=kb, items=[TextItem("curie.txt", CURIE)])
    done = run_create(
        user=user, query="What did Marie Curie discover?", provider_name="extractive", model=None,
        kb_ids=[kb.id],
    )  # fmt: skip
    run_execute(run_id=done.id)
    run_create(user=user, query="Waiting", provider_name="extractive", model=None, kb_ids=[kb.id])

    scraped = scrape()
    assert value(scraped, "adrag_runs", status="succeeded", provider="extractive") == 1
    assert value(scraped, "adrag_runs", status="queued", provider="extractive") == 1
    assert value(scraped, "adrag_runs", status="failed", provider="extractive") == 0
    # The executed run's stages, timed from its event log.
    for stage in ("planner", "retrieval", "aggregator", "reranker", "reasoning", "reflection"):
        assert value(scraped, "adrag_stage_duration_seconds_gcount", stage=stage) == 1, stage
        assert value(scraped, "adrag_stage_duration_seconds_gsum", stage=stage) > 0, stage
    assert value(scraped, "adrag_run_duration_seconds_gcount", provider="extractive") == 1
    # Both runs' jobs wait in the runs queue: run_execute ran one outside a worker.
    assert value(scraped, "adrag_queue_jobs", queue="runs", status="todo") == todo_before + 2

    document = Document.objects.get()
    assert document.status == "ready" and document.chunk_count >= 1
    assert value(scraped, "adrag_documents", status="ready") == 1
    assert value(scraped, "adrag_documents", status="failed") == 0
    assert value(scraped, "adrag_chunks_indexed") == Chunk.objects.count() >= 1
    assert value(scraped, "adrag_ingest_recent_documents") == 1
    assert value(scraped, "adrag_ingest_recent_chunks") == document.chunk_count
    assert value(scraped, "adrag_ingest_duration_seconds_gcount") == 1


@pytest.mark.django_db
def test_open_streams_of_both_endpoints_are_exported_before_any_stream(scrape):
    # A process that has served no stream says 0 for each endpoint (a missing series is not 0).
    scraped = scrape()
    assert value(scraped, "adrag_streams_open", endpoint="query") == 0
    assert value(scraped, "adrag_streams_open", endpoint="events") == 0


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_open_streams_are_counted_by_the_web_process_that_serves_them(shared_stack, user):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=user).key
    kb = kb_create(owner=user, name="Physics")
    documents_ingest_inline(kb=kb, items=[TextItem("curie.txt", CURIE)])
    query = "A slow question about Curie"
    stack = shared_stack
    stack.write_scripts(
        {
            query: {
                "planner": [PLAN_RETRIEVE],
                "reasoning": [answer()],
                "reflection": [verdict()],
                "_delays": {"reasoning": 4},
            }
        }
    )
    url = stack.url

    def open_streams() -> dict[str, float]:
        response = requests.get(
            url + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10
        )
        assert response.status_code == 200
        scraped = samples(response.text)
        return {
            endpoint: value(scraped, "adrag_streams_open", endpoint=endpoint)
            for endpoint in ("query", "events")
        }

    def until_none_open() -> None:
        # Streams of the earlier tests on this shared web process end as their clients go.
        deadline = time.monotonic() + 20
        while open_streams() != {"query": 0, "events": 0}:
            assert time.monotonic() < deadline, open_streams()
            time.sleep(0.3)

    until_none_open()
    headers = {"Authorization": f"Token {token}"}
    stream = requests.post(
        url + "/api/query", json={"query": query, "provider": "scripted"}, headers=headers,
        stream=True, timeout=60,
    )  # fmt: skip
    lines = stream.iter_lines(decode_unicode=True)
    assert next(line for line in lines if line.startswith("data:"))
    run_id = stream.headers["X-Run-Id"]
    assert open_streams() == {"query": 1, "events": 0}

    # A second reader of the same run, on the events endpoint, until its end.
    events = requests.get(
        f"{url}/api/runs/{run_id}/events", headers=headers, stream=True, timeout=60
    )
    event_lines = events.iter_lines(decode_unicode=True)
    assert next(line for line in event_lines if line.startswith("data:"))
    assert open_streams() == {"query": 1, "events": 1}
    assert any("stream_end" in line for line in event_lines)
    events.close()

    # The client that leaves early is uncounted as soon as the server sees it go.
    stream.close()
    until_none_open()
