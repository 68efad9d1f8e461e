"""The embedded database killed under `manage.py runportal`, and Ctrl-C: what a user sees.

    .venv/bin/python bench/db_recovery.py [--questions N]

Starts the portal as `make run` does, on a fresh data folder of its own (its own embedded
PostgreSQL), asks N questions, then `kill -9`s the postmaster and, every half second, reads
/api/health and asks a new question until one is answered. Prints what health said while the
database was away, the seconds from the kill until health was healthy again and until a new
question was answered (no restart by hand), the runs that did not end (target 0) and the
events missing from any run's log (gaps in its seqs; target 0). Last, it sends SIGINT (Ctrl-C)
and lists the portal's processes (the database's included) 10 s later, and the pids left in
the server's handle file.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import threading
import time

import psutil
import requests
from _portal import PYTHON, ROOT, fresh_portal

CHECK_RUNS = """
import os
from queries.models import QueryRun, RunEvent
ids = [i for i in os.environ["RUN_IDS"].split(",") if i]
runs = list(QueryRun.objects.filter(id__in=ids))
unfinished = [str(r.id) for r in runs if r.status in ("queued", "running")]
gaps = 0
for run in runs:
    seqs = list(RunEvent.objects.filter(run=run).order_by("seq").values_list("seq", flat=True))
    gaps += len(set(range(1, (seqs[-1] if seqs else 0) + 1)) - set(seqs))
statuses = {}
for r in runs:
    statuses[r.status] = statuses.get(r.status, 0) + 1
print(f"{'runs asked (by status)':<44}{statuses}")
print(f"{'runs not ended (lost)':<44}{len(unfinished) + len(ids) - len(runs)}")
print(f"{'events missing from run logs (lost)':<44}{gaps}")
"""


def portal_processes(data_dir, root_pid: int) -> list[str]:
    """Return the processes of this portal still alive: its tree and its database's."""
    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            if proc.info["status"] == psutil.STATUS_ZOMBIE:
                continue
            cmdline = " ".join(proc.info["cmdline"] or [])
            mine = str(data_dir) in cmdline or proc.info["pid"] == root_pid
            if not mine:
                mine = proc.environ().get("ADRAG_DATA_DIR") == str(data_dir)
            if mine:
                found.append(f"{proc.info['pid']} {cmdline[:100]}")
        except psutil.Error:
            continue
    return found


def health_line(portal) -> tuple[str, dict]:
    try:
        reply = requests.get(portal.base + "/api/health", timeout=3)
        body = reply.json()
    except (requests.RequestException, ValueError) as exc:
        return f"no answer ({type(exc).__name__})", {}
    queues = ", ".join(
        f"{name} {queue['workers']}" for name, queue in (body.get("queues") or {}).items()
    )
    return f"{reply.status_code} {body['status']} (database {body['database']}; {queues})", body


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=3)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    with fresh_portal(args.port) as portal:
        print(f"healthy {portal.wait_for(lambda h: h['status'] == 'healthy'):.1f}s after the start")
        run_ids = []
        for n in range(args.questions):
            run_id, done, _ = portal.ask(f"Hello, question {n}?", provider="extractive")
            run_ids.append(run_id)
            assert done, f"question {n} was not answered before the fault"
        pgdata = portal.data_dir / "pgdata"
        postmaster = int((pgdata / "postmaster.pid").read_text().split()[0])
        os.kill(postmaster, signal.SIGKILL)
        killed_at = time.monotonic()
        print(f"kill -9 of the postmaster (pid {postmaster})")
        seen: list[tuple[float, str]] = []
        healthy: list[float] = []
        stop = threading.Event()

        def watch_health() -> None:
            # Every half second, on a thread of its own: a question may wait for a worker.
            while not stop.is_set():
                said, body = health_line(portal)
                now = time.monotonic() - killed_at
                if not seen or seen[-1][1] != said:
                    seen.append((now, said))
                if not healthy and body.get("status") == "healthy":
                    healthy.append(now)
                stop.wait(0.5)

        watcher = threading.Thread(target=watch_health, daemon=True)
        watcher.start()
        answered_after = None
        attempt = 0
        while time.monotonic() - killed_at < 90 and answered_after is None:
            attempt += 1
            try:
                run_id, done, _ = portal.ask(f"Hello again, {attempt}?", 10, provider="extractive")
            except requests.RequestException:
                run_id, done = "", False
            if run_id:
                run_ids.append(run_id)
            if done:
                answered_after = time.monotonic() - killed_at
            else:
                time.sleep(0.5)
        while not healthy and time.monotonic() - killed_at < 90:
            time.sleep(0.5)
        stop.set()
        watcher.join()
        healthy_after = healthy[0] if healthy else None
        print("what /api/health said after the kill (seconds after it):")
        for at, said in seen:
            print(f"  {at:6.1f}s  {said}")
        print(f"{'healthy again after (s)':<44}{healthy_after and round(healthy_after, 1)}")
        print(
            f"{'a new question answered after (s)':<44}{answered_after and round(answered_after, 1)}"
        )
        time.sleep(2)
        check = subprocess.run(
            [PYTHON, str(ROOT / "manage.py"), "shell", "-c", CHECK_RUNS],
            cwd=ROOT, env={**portal.env, "RUN_IDS": ",".join(run_ids)},
            capture_output=True, text=True,
        )  # fmt: skip
        print(check.stdout.strip() or check.stderr.strip()[-2000:])
        # Ctrl-C: nothing of the portal is left 10 s later.
        portal.process.send_signal(signal.SIGINT)
        time.sleep(10)
        left = portal_processes(portal.data_dir, portal.process.pid)
        print(f"{'processes left 10 s after Ctrl-C':<44}{len(left)}")
        for line in left:
            print("  " + line)
        handles = pgdata / ".handle_pids.json"
        pids = json.loads(handles.read_text()) if handles.exists() else []
        print(f"{'pids left in the handle file':<44}{pids}")


if __name__ == "__main__":
    main()
