"""A backup of a data folder with runs, restored into a fresh one: every run replays the same.

    .venv/bin/python bench/backup_replay.py [--questions N]

Starts the portal on a fresh data folder, uploads a document and asks N questions (the
offline extractive provider), takes `manage.py backup` while the portal runs, stops it,
restores the backup into a second fresh data folder with `manage.py restore`, starts the
portal there, and compares, run by run, the bytes of GET /api/runs/<id>/events (the replay)
from both portals. Prints the backup's size and times and the
number of runs whose replay differs (target 0).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import requests
from _portal import data_env, fresh_portal, manage

DOCUMENT = (
    b"# Travel policy\n\nThe nightly hotel cap is EUR 180 in Munich and EUR 140 in Lisbon.\n\n"
    b"Trains are booked in second class for journeys under four hours.\n"
)
QUESTIONS = [
    "What is the nightly hotel cap in Munich?",
    "Which class are trains booked in?",
    "What is the hotel cap in Lisbon?",
    "Who approves travel?",
]


def replays(portal, run_ids: list[str]) -> dict[str, bytes]:
    return {
        run_id: requests.get(
            f"{portal.base}/api/runs/{run_id}/events", headers=portal.headers, timeout=30
        ).content
        for run_id in run_ids
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=4)
    args = parser.parse_args()
    archive = Path(tempfile.mkdtemp(prefix="adrag-backup-")) / "backup.tar"
    with fresh_portal(8767) as portal:
        portal.wait_for(lambda h: h["status"] == "healthy")
        kb = requests.post(
            portal.base + "/api/knowledge-bases", json={"name": "Policies"},
            headers=portal.headers, timeout=30,
        ).json()  # fmt: skip
        upload = requests.post(
            f"{portal.base}/api/knowledge-bases/{kb['id']}/documents",
            files=[("file", ("travel.md", DOCUMENT))], headers=portal.headers, timeout=60,
        ).json()  # fmt: skip
        document_id = upload["documents"][0]["id"]
        while requests.get(
            f"{portal.base}/api/documents/{document_id}", headers=portal.headers, timeout=10
        ).json()["status"] not in ("ready", "failed"):
            time.sleep(0.5)
        run_ids = []
        for question in QUESTIONS[: args.questions]:
            run_id, done, _ = portal.ask(
                question, provider="extractive", knowledge_bases=[kb["id"]]
            )
            assert done, question
            run_ids.append(run_id)
        started = time.monotonic()
        print(manage(portal.env, "backup", str(archive)).strip())
        print(f"{'backup while serving (s)':<44}{time.monotonic() - started:.1f}")
        before = replays(portal, run_ids)
        token = portal.token
    restored_dir = Path(tempfile.mkdtemp(prefix="adrag-restored-"))
    started = time.monotonic()
    print(manage(data_env(restored_dir), "restore", str(archive)).strip())
    print(f"{'restore into a fresh data folder (s)':<44}{time.monotonic() - started:.1f}")
    with fresh_portal(8768, data_dir=restored_dir, token=token) as portal:
        portal.wait_for(lambda h: h["database"] == "ok")
        after = replays(portal, run_ids)
    differ = [run_id for run_id in run_ids if before[run_id] != after[run_id]]
    print(f"{'runs replayed':<44}{len(run_ids)} ({sum(map(len, after.values()))} bytes)")
    print(f"{'runs whose replay differs':<44}{len(differ)}")


if __name__ == "__main__":
    main()
