"""The first questions after `make run` with the local model: what a new user waits for.

    .venv/bin/python bench/first_question.py [--questions N]

Starts the portal as `make run` does (`manage.py runportal`, on a fresh data folder of its
own) with DEFAULT_PROVIDER=local and the fetched catalogue model, uploads the team documents
of `bench/team_docs/` through the API, and prints: the seconds from the start until /api/health
said healthy and until it said the local model is ready (its run worker loaded it and read the
answer prompt's start), then, for the first N questions of the team set (no follow-ups), the
seconds until each one's stream ended, over POST /api/query as a client sees it.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import requests
from _portal import ROOT, fresh_portal
from team_answers import DATA, build_documents


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=3)
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args()
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "adrag_site.settings")
    models = ROOT / "var" / "models"
    model = next(models.glob("qwen2.5-coder-1.5b*.gguf"), None)
    if model is None:
        raise SystemExit("fetch the model first: manage.py fetch_model")
    questions = [
        q for q in json.loads((DATA / "questions.json").read_text())["questions"]
        if q["kind"] != "followup"
    ][: args.questions]  # fmt: skip
    with fresh_portal(args.port, DEFAULT_PROVIDER="local", LOCAL_MODEL_PATH=str(model)) as portal:
        healthy = portal.wait_for(lambda h: h["status"] == "healthy")
        print(f"{'healthy after the start (s)':<44}{healthy:.1f}")
        ready = portal.wait_for(lambda h: h.get("local_model", {}).get("ready"))
        print(f"{'local model ready after the start (s)':<44}{ready:.1f}")
        with tempfile.TemporaryDirectory() as folder:
            files = build_documents(Path(folder))
            kb = requests.post(
                portal.base + "/api/knowledge-bases", json={"name": "Team"}, headers=portal.headers,
                timeout=30,
            ).json()  # fmt: skip
            handles = [("file", (path.name, path.read_bytes())) for path in files]
            reply = requests.post(
                f"{portal.base}/api/knowledge-bases/{kb['id']}/documents", files=handles,
                headers=portal.headers, timeout=120,
            ).json()  # fmt: skip
        ids = [doc["id"] for doc in reply["documents"]]
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            states = [
                requests.get(f"{portal.base}/api/documents/{i}", headers=portal.headers, timeout=10)
                .json()["status"]
                for i in ids
            ]  # fmt: skip
            if all(state in ("ready", "failed") for state in states):
                break
            time.sleep(1)
        print(f"{'documents indexed':<44}{states.count('ready')}/{len(ids)}")
        times = []
        for question in questions:
            _, done, seconds = portal.ask(question["question"], 180, knowledge_bases=[kb["id"]])
            times.append(seconds)
            print(f"  {seconds:6.1f}s  {'done' if done else 'NOT DONE'}  {question['question']}")
        print(f"{'first question after ready, done (s)':<44}{times[0]:.1f}")


if __name__ == "__main__":
    main()
