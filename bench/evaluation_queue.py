"""A portal evaluation on the runs queue, and people's questions asked while it runs.

    ADRAG_DB_NAME=adrag_evalbench .venv/bin/python bench/evaluation_queue.py [--limit N]

Needs a runs-queue worker on the same database (`manage.py procrastinate worker --queues
runs,default`, or `runportal --no-web`). Uses the knowledge base bench/evaluation_parity.py
built (`team-docs-parity`), or builds it. First asks PEOPLE questions on an idle queue, one at
a time, for the baseline; then starts the team-answers set as an evaluation (extractive) and,
while it runs, asks a question every few seconds as another user; prints the evaluation's wall
time and each person's question's time from queued to answered, idle and during the evaluation.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _setup import bench_user, setup
from team_answers import DATA, build_documents

PEOPLE = ["Who runs the Dublin office?", "What is step 2 of rolling back a deploy?",
          "How much do we pay Orbitdesk per year?", "Which laptop does a customer support agent get?"]  # fmt: skip
EVERY_SECONDS = 4.0


def team_kb(user):
    from knowledge.bulk import TextItem, documents_ingest_inline
    from knowledge.models import KnowledgeBase

    kb = KnowledgeBase.objects.filter(owner=user, name="team-docs-parity").first()
    if kb is not None:
        return kb
    kb = KnowledgeBase.objects.create(owner=user, name="team-docs-parity")
    with tempfile.TemporaryDirectory() as folder:
        files = build_documents(Path(folder))
        documents_ingest_inline(kb=kb, items=[TextItem(p.name, p.read_bytes()) for p in files])
    return kb


def ask_and_wait(person, kb_id: int, question: str) -> float:
    """Queue a person's question as POST /api/query does and return its seconds to answered."""
    from queries.models import QueryRun
    from queries.services import run_create

    run = run_create(
        user=person, query=question, provider_name="extractive", model=None, kb_ids=[kb_id]
    )
    while True:
        run.refresh_from_db()
        if run.status not in QueryRun.ACTIVE_STATUSES:
            return (run.finished_at - run.created_at).total_seconds()
        time.sleep(0.02)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    setup("adrag_evalbench")
    from django.contrib.auth import get_user_model

    from queries.evaluation import services

    user = bench_user()
    person, _ = get_user_model().objects.get_or_create(username="bench-person")
    kb = team_kb(user)
    idle = [ask_and_wait(person, kb.id, question) for question in PEOPLE * 2]
    questions = json.loads((DATA / "questions.json").read_text())["questions"][: args.limit]
    data = "\n".join(json.dumps(item) for item in questions).encode()
    evaluation_set = services.evaluation_set_upload(
        user=user, name="team-answers (queue)", data=data, file_name="team-answers.jsonl"
    )
    started = time.perf_counter()
    evaluation = services.evaluation_start(
        user=user, evaluation_set=evaluation_set, kb_ids=[kb.id], provider="extractive", model=None
    )
    busy, asked = [], 0
    while evaluation.is_active:
        if time.perf_counter() - started >= asked * EVERY_SECONDS:
            busy.append(ask_and_wait(person, kb.id, PEOPLE[asked % len(PEOPLE)]))
            asked += 1
        time.sleep(0.1)
        evaluation.refresh_from_db()
    wall = time.perf_counter() - started
    runs = evaluation.runs.count()
    print(f"evaluation #{evaluation.id}: {evaluation.status}, {evaluation.question_count} questions "
          f"({runs} runs) in {wall:.1f} s")  # fmt: skip
    for label, values in (("idle queue", idle), ("during the evaluation", busy)):
        print(f"people's questions, {label}: n={len(values)} median {statistics.median(values):.2f} s, "
              f"max {max(values):.2f} s")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
