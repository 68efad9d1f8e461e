"""`manage.py runportal` (what `make run` starts): the web server and a worker, supervised."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import psutil
import pytest
import requests

from tests.support import ROOT, child_env


# Supervision, not answers: the workers runportal starts embed with the small deterministic
# embedder and load no model (this module's two tests: 31.8 CPU-seconds before, 24.6 after).
@pytest.mark.slow
@pytest.mark.hash_embedder
@pytest.mark.django_db(transaction=True)
def test_runportal_serves_login_and_health_and_stops_both_on_ctrl_c():
    from tests.live import free_port

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "runportal", "--port", str(port)],
        cwd=ROOT,
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        health = None
        while time.monotonic() < deadline:
            try:
                health = requests.get(base + "/api/health", timeout=2).json()
                if health["worker"]["seen"]:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.5)
        assert health and health["database"] == "ok" and health["worker"]["seen"], health
        login = requests.get(base + "/accounts/login/", timeout=5)
        assert login.status_code == 200 and 'name="password"' in login.text
        children = psutil.Process(process.pid).children()
        commands = sorted(" ".join(child.cmdline()) for child in children)
        assert len(children) == 3, commands  # the web server, a runs worker, an ingest worker
        assert sum("--queues runs,default" in c for c in commands) == 1
        assert sum("--queues ingest" in c for c in commands) == 1
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    assert "No user exists yet" in output and "createsuperuser" in output
    assert "adRAG stopped." in output
    assert not any(
        child.is_running() and child.status() != psutil.STATUS_ZOMBIE for child in children
    )


@pytest.mark.slow
@pytest.mark.hash_embedder
@pytest.mark.django_db(transaction=True)
def test_a_killed_worker_is_restarted_while_the_web_keeps_serving_and_its_run_is_interrupted(
    user, tmp_path
):
    import json

    from rest_framework.authtoken.models import Token

    from queries.models import QueryRun
    from tests.live import PLUGINS, free_port

    scripts = tmp_path / "scripts.json"
    query = "A slow question"
    scripts.write_text(
        json.dumps({query: {"planner": [{"retrieve": False, "use_external": False,
                   "query_type": "conversational", "reasoning": "r"}], "reasoning": ["Hi."],
                   "_delays": {"reasoning": 60}}})
    )  # fmt: skip
    token = Token.objects.create(user=user).key
    port = free_port()
    stale = 4.0
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "runportal", "--port", str(port)],
        cwd=ROOT,
        env=child_env(
            ADRAG_PROVIDER_PLUGINS=PLUGINS,
            SCRIPTED_PROVIDER_FILE=str(scripts),
            RUN_STALE_SECONDS=str(stale),
            WORKER_HEARTBEAT_SECONDS="1",
            PYTHONPATH=str(ROOT),
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Token {token}"}
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if requests.get(base + "/api/health", timeout=2).json()["worker"]["seen"]:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.5)
        response = requests.post(
            base + "/api/query", json={"query": query, "provider": "scripted"},
            headers=headers, stream=True, timeout=(5, 60),
        )  # fmt: skip
        run_id = response.headers["X-Run-Id"]
        response.close()
        while QueryRun.objects.get(id=run_id).status != "running":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        portal = psutil.Process(process.pid)
        worker = next(c for c in portal.children() if "runs,default" in " ".join(c.cmdline()))
        worker.kill()
        killed_at = time.monotonic()
        interrupted_after = restarted_after = None
        health_worst = 0.0
        while time.monotonic() - killed_at < stale + 15:
            started = time.monotonic()
            assert requests.get(base + "/api/health", timeout=2).status_code in (200, 503)
            health_worst = max(health_worst, time.monotonic() - started)
            if (
                interrupted_after is None
                and QueryRun.objects.get(id=run_id).status == "interrupted"
            ):
                interrupted_after = time.monotonic() - killed_at
            workers = [
                c for c in portal.children()
                if c.pid != worker.pid and "runs,default" in " ".join(c.cmdline())
            ]  # fmt: skip
            if restarted_after is None and workers:
                restarted_after = time.monotonic() - killed_at
            if interrupted_after is not None and restarted_after is not None:
                break
            time.sleep(0.2)
        print(
            f"\nworker back after {restarted_after}s; run interrupted after {interrupted_after}s; "
            f"slowest health answer {health_worst:.2f}s"
        )
        assert restarted_after is not None and restarted_after < 5
        assert interrupted_after is not None and interrupted_after <= stale + 5
        run = QueryRun.objects.get(id=run_id)
        assert run.events.filter(type="stream_end").count() == 1
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
    assert "worker 1 exited with -9; starting it again" in output
