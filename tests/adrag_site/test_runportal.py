"""`manage.py runportal` (what `make run` starts): daphne and a worker, stopped together."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import psutil
import pytest
import requests

from tests.conftest import ROOT, child_env


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_runportal_serves_login_and_health_and_stops_both_on_ctrl_c():
    from tests.queries.conftest import free_port

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
        assert len(children) == 2
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    assert "No user exists yet" in output and "createsuperuser" in output
    assert "adRAG stopped." in output
    assert not any(
        child.is_running() and child.status() != psutil.STATUS_ZOMBIE for child in children
    )
