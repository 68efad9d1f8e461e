"""A rehearsal of a deployment on several nodes, and of its database going away.

One PostgreSQL reached only through DATABASE_URL over TCP; two web processes on different
ports; two workers, one taking only `ingest` and one only `runs` (each under
`runportal --no-web`, as a worker machine runs them). Nothing is shared between
the processes but that database (and, on one machine, the media folder).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import pytest
import requests

from adrag_site.server import uvicorn_command
from tests.embedding import use_hash_embedder
from tests.live import PLUGINS
from tests.model_server import free_port
from tests.queries.clients import sse_events
from tests.queries.pipeline.contract import check_frames
from tests.support import ROOT, child_env
from tests.tcp_postgres import TcpPostgres

pytestmark = pytest.mark.slow

CURIE = b"Marie Curie discovered polonium and radium. She won two Nobel Prizes."
PLAN = {"retrieve": True, "use_external": False, "query_type": "factual", "reasoning": "docs"}
ANSWER = {
    "answer": "Marie Curie discovered polonium and radium [1].",
    "confidence": 0.9,
    "cited_sources": [1],
    "key_facts": ["radium"],
    "is_sufficient": True,
}
VERDICT = {"grounded": True, "confidence": 0.9, "issues": [], "feedback": "", "should_retry": False}
MAKE_USER = (
    "from django.contrib.auth import get_user_model; "
    "from rest_framework.authtoken.models import Token; "
    "u = get_user_model().objects.create_user('alice', password='alice-pass-123'); "
    "print(Token.objects.create(user=u).key)"
)


class Cluster:
    """The processes of the rehearsal, all on the TCP database."""

    def __init__(self, tmp) -> None:
        self.db = TcpPostgres()
        self.tmp = tmp
        self.scripts = tmp / "scripts.json"
        self.scripts.write_text("{}")
        self.env = child_env(
            DATABASE_URL=self.db.url,
            ADRAG_MEDIA_ROOT=str(tmp / "media"),
            ADRAG_PROVIDER_PLUGINS=PLUGINS,
            SCRIPTED_PROVIDER_FILE=str(self.scripts),
            PYTHONPATH=str(ROOT),
            WORKER_HEARTBEAT_SECONDS="1",
            RUN_STALE_SECONDS="6",
            STREAM_IDLE_TIMEOUT_SECONDS="60",
            RUNS_MAX_CONCURRENT_PER_USER="20",
        )
        self.processes: list[subprocess.Popen] = []
        self.manage("migrate", "--noinput")
        self.token = self.manage("shell", "-c", MAKE_USER).strip().splitlines()[-1]
        self.headers = {"Authorization": f"Token {self.token}"}
        self.web_a, self.web_b = self.start_web("a"), self.start_web("b")
        # Each "machine" runs its workers under the portal's supervisor, which starts a worker
        # again when it stops (Procrastinate stops a worker whose listener lost the database).
        self.start_workers("runs", "--workers", "1", "--ingest-workers", "0")
        self.start_workers("ingest", "--workers", "0", "--ingest-workers", "1")

    def manage(self, *args: str) -> str:
        result = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), *args],
            cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=180,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout

    def _spawn(self, name: str, command: list[str]) -> subprocess.Popen:
        process = subprocess.Popen(
            command, cwd=ROOT, env=self.env,
            stdout=open(self.tmp / f"{name}.log", "ab"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.processes.append(process)
        return process

    def start_web(self, name: str) -> str:
        port = free_port()
        process = self._spawn(f"web-{name}", uvicorn_command(sys.executable, "127.0.0.1", port))
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(url + "/api/health", timeout=2)
                return url
            except requests.RequestException:
                assert process.poll() is None, (self.tmp / f"web-{name}.log").read_text()
                assert time.monotonic() < deadline
                time.sleep(0.2)

    def start_workers(self, name: str, *args: str) -> None:
        self._spawn(
            f"worker-{name}",
            [sys.executable, str(ROOT / "manage.py"), "runportal", "--no-web", *args],
        )

    def write_script(self, query: str, **extra) -> None:
        scripts = json.loads(self.scripts.read_text())
        scripts[query] = {
            "planner": [PLAN],
            "reasoning": [ANSWER],
            "reflection": [VERDICT],
            **extra,
        }
        self.scripts.write_text(json.dumps(scripts))

    def api(self, method: str, url: str, **kwargs) -> requests.Response:
        return requests.request(method, url, headers=self.headers, timeout=30, **kwargs)

    def wait_run(self, url: str, run_id: str, timeout: float = 90) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            run = self.api("GET", f"{url}/api/runs/{run_id}").json()
            assert "status" in run, (run, self.log("web-a"), self.log("worker-runs"))
            if run["status"] not in ("queued", "running") or time.monotonic() > deadline:
                return run
            time.sleep(0.3)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
        self.db.stop()

    def log(self, name: str) -> str:
        return (self.tmp / f"{name}.log").read_text(errors="replace")[-4000:]


@pytest.fixture(scope="module")
def cluster(django_db_setup, django_db_blocker, tmp_path_factory, _hash_embedder):
    # A rehearsal of processes, not of what they find: they embed with the small
    # deterministic embedder (tests/embedding.py) and load no model.
    with pytest.MonkeyPatch.context() as patch:
        use_hash_embedder(patch, *_hash_embedder)
        yield from _cluster(django_db_blocker, tmp_path_factory)


def _cluster(django_db_blocker, tmp_path_factory):
    with django_db_blocker.unblock():
        cluster = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        # A knowledge base, filled through web B and indexed by the ingest-only worker.
        kb = cluster.api("POST", cluster.web_b + "/api/knowledge-bases", json={"name": "Physics"})
        assert kb.status_code == 201, kb.text
        cluster.kb_id = kb.json()["id"]
        upload = cluster.api(
            "POST",
            f"{cluster.web_b}/api/knowledge-bases/{cluster.kb_id}/documents",
            files={"file": ("curie.txt", CURIE)},
        )
        assert upload.status_code == 202, upload.text
        document_id = upload.json()["documents"][0]["id"]
        deadline = time.monotonic() + 120
        while (
            cluster.api("GET", f"{cluster.web_a}/api/documents/{document_id}").json()["status"]
            != "ready"
        ):
            assert time.monotonic() < deadline, cluster.log("worker-ingest")
            time.sleep(0.5)
        yield cluster
    finally:
        cluster.stop()


def test_a_run_started_on_a_streams_through_b_is_cancelled_through_b_and_replays_from_a(cluster):
    query = "What did Marie Curie discover? (multi-node)"
    cluster.write_script(query, _delays={"reasoning": 30})
    started = cluster.api(
        "POST", cluster.web_a + "/api/query", json={"query": query, "provider": "scripted"},
        stream=True,
    )  # fmt: skip
    run_id = started.headers["X-Run-Id"]
    started.close()
    # Web B streams the run that web A started and the runs-only worker is running.
    stream = requests.get(
        f"{cluster.web_b}/api/runs/{run_id}/events", headers=cluster.headers, stream=True,
        timeout=(5, 60),
    )  # fmt: skip
    received: list[dict] = []

    def cancel_once_reasoning(events):
        received[:] = events
        data = events[-1].get("data")
        if data and json.loads(data).get("data", {}).get("stage") == "reasoning":
            reply = cluster.api("POST", f"{cluster.web_b}/api/runs/{run_id}/cancel")
            assert reply.status_code == 202, reply.text
        return events[-1].get("event") == "stream_end"

    sse_events(stream, stop_after=cancel_once_reasoning)
    frames_b = [json.loads(e["data"]) for e in received if "data" in e]
    check_frames(frames_b)
    assert frames_b[-2] == {
        "type": "error",
        "data": {"message": "Run cancelled", "stage": "pipeline", "code": "cancelled"},
    }
    assert frames_b[-1] == {"type": "stream_end"}
    run = cluster.api("GET", f"{cluster.web_a}/api/runs/{run_id}").json()
    assert run["status"] == "cancelled"
    # Web A replays exactly what web B sent live, ids included.
    replay = requests.get(
        f"{cluster.web_a}/api/runs/{run_id}/events", headers=cluster.headers, timeout=30
    )
    replayed = [e for e in sse_events(replay) if "data" in e]
    assert [(e["id"], e["data"]) for e in replayed] == [
        (e["id"], e["data"]) for e in received if "data" in e
    ]


def test_runs_survive_a_database_restart_with_no_event_lost(cluster):
    queries = [f"Restart question {n}" for n in range(3)]
    for query in queries:
        cluster.write_script(query, _token_delays={"reasoning": 0.4})
    run_ids = []
    for query in queries:
        response = cluster.api(
            "POST", cluster.web_a + "/api/query", json={"query": query, "provider": "scripted"},
            stream=True,
        )  # fmt: skip
        assert response.status_code == 200, response.text
        run_ids.append(response.headers["X-Run-Id"])
        response.close()
    # Each run is followed like EventSource does: reconnect with Last-Event-ID after a drop.
    received: dict[str, dict[str, str]] = {run_id: {} for run_id in run_ids}

    def follow(run_id: str) -> None:
        deadline = time.monotonic() + 150
        last = "0"
        while time.monotonic() < deadline:
            try:
                response = requests.get(
                    f"{cluster.web_b}/api/runs/{run_id}/events",
                    headers={**cluster.headers, "Last-Event-ID": last},
                    stream=True, timeout=(5, 30),
                )  # fmt: skip
                if response.status_code == 204:
                    return
                for event in sse_events(response):
                    if "id" in event and "data" in event:
                        received[run_id][event["id"]] = event["data"]
                        last = event["id"]
                        if event.get("event") == "stream_end":
                            return
            except (requests.RequestException, ValueError):
                pass
            time.sleep(0.5)

    followers = [threading.Thread(target=follow, args=(run_id,)) for run_id in run_ids]
    for follower in followers:
        follower.start()
    time.sleep(3)  # the runs are writing their answers
    cluster.db.restart()
    restarted_at = time.monotonic()
    for follower in followers:
        follower.join(180)
    runs = [cluster.wait_run(cluster.web_a, run_id) for run_id in run_ids]
    print(
        f"\nafter a restart: {[run['status'] for run in runs]}, "
        f"{time.monotonic() - restarted_at:.1f}s to settle"
    )
    for run_id, run in zip(run_ids, runs):
        assert run["status"] == "succeeded", (run, cluster.log("worker-runs"))
        logged = cluster.api("GET", f"{cluster.web_a}/api/runs/{run_id}").json()["events"]
        seqs = [event["seq"] for event in logged]
        assert seqs == list(range(1, len(seqs) + 1))
        assert [e["frame"]["type"] for e in logged].count("stream_end") == 1
        frames = [e["frame"] for e in logged if e["frame"]["type"] != "answer_delta"]
        assert [f["type"] for f in frames][-3:] == ["finalize", "done", "stream_end"]
        # What the client received, across reconnects, is the whole log.
        assert sorted(received[run_id], key=int) == [str(seq) for seq in seqs]
    # The workers and web processes reconnected by themselves: a new run goes through.
    query = "A question after the restart"
    cluster.write_script(query)
    response = cluster.api(
        "POST", cluster.web_b + "/api/query", json={"query": query, "provider": "scripted"},
        stream=True,
    )  # fmt: skip
    assert response.status_code == 200
    run_id = response.headers["X-Run-Id"]
    response.close()
    assert cluster.wait_run(cluster.web_a, run_id)["status"] == "succeeded"


def test_a_worker_s_job_listener_waits_out_the_database_being_away(cluster, caplog, monkeypatch):
    # Procrastinate stops a worker whose listener fails, aborting its runs; its own listener
    # fails when its reconnection meets a database still shutting down or starting.
    import asyncio
    import logging

    import psycopg

    from adrag_site import jobs
    from adrag_site.jobs import ListenerRetryingConnector

    # Its pauses double from 0.5 s up to 1 s here, not 5 s: it listens again within a second
    # of the database's return (the tries came 0.5, 1.5, 3.5, 7.5 and 12.5 s after the first
    # failure, so a database back just after one was waited for until the next).
    monkeypatch.setattr(jobs, "LISTEN_RETRY_MAX_SECONDS", 1.0)

    received: list[str] = []

    async def on_notification(*, channel: str, payload: str) -> None:
        received.append(payload)

    async def scenario() -> asyncio.Task:
        connector = ListenerRetryingConnector(conninfo=cluster.db.url)
        await connector.open_async()
        listener = asyncio.create_task(connector.listen_notify(on_notification, ["adrag_probe"]))
        await asyncio.sleep(0.5)
        await asyncio.to_thread(cluster.db.halt)
        await asyncio.sleep(2)  # the listener's connection is gone, and so is the server
        await asyncio.to_thread(cluster.db.start)
        deadline = time.monotonic() + 30
        while not received and not listener.done() and time.monotonic() < deadline:
            with psycopg.connect(cluster.db.url, autocommit=True) as connection:
                connection.execute("NOTIFY adrag_probe, 'back'")
            await asyncio.sleep(0.5)
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)
        await connector.close_async()
        return listener

    with caplog.at_level(logging.WARNING, logger="adrag_site.jobs"):
        listener = asyncio.run(scenario())
    retries = [r for r in caplog.records if "listening again" in r.getMessage()]
    assert retries, "the listener never met the database away"
    assert listener.cancelled(), listener.exception()
    assert "back" in received
