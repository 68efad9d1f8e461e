"""The team-answers set scored two ways on one knowledge base: as bench/team_answers.py asks
it (the pipeline in this process, follow-ups with their earlier turns as history) and as the
portal's evaluation runs it (a batch of ordinary runs, each with its event log), then the two
tables and every question whose score differs.

    ADRAG_DB_NAME=adrag_evalbench .venv/bin/python bench/evaluation_parity.py [--provider NAME]
                                                          [--limit N] [--worker]

Both score with queries/evaluation/scoring.py and sum with queries/evaluation/metrics.py, so
a difference is a difference of the answers, not of the scoring. Without `--worker` the
evaluation's runs run in this process (`manage.py evaluate --inline`); with it, a runs-queue
worker must be running against the same database (`manage.py runportal --no-web`), and the
wall time is the evaluation's on the queue.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from _setup import bench_user, setup
from team_answers import DATA, ask, build_documents, score


def bench_rows(questions: list[dict], *, kb_id: int, provider_name: str) -> list[dict]:
    """Score each question as bench/team_answers.py does."""
    from queries.answering.registry import get_strategy

    provider = get_strategy(provider_name)
    rows = []
    for item in questions:
        history: list[dict] = []
        for turn in item.get("turns", []):
            earlier, _ = ask(turn, provider=provider, kb_id=kb_id, model=None, history=history)
            history.append(
                {
                    "query": turn,
                    "standalone_query": earlier.standalone_query or turn,
                    "answer": earlier.answer,
                }
            )
        outcome, _ = ask(
            item["question"], provider=provider, kb_id=kb_id, model=None, history=history
        )
        rows.append(score(item, outcome))
    return rows


def portal_evaluation(questions: list[dict], *, user, kb_id: int, provider: str, worker: bool):
    """Run the questions as a portal evaluation and return it, ended."""
    from queries.evaluation import services

    data = "\n".join(json.dumps(item) for item in questions).encode()
    evaluation_set = services.evaluation_set_upload(
        user=user, name="team-answers (parity)", data=data, file_name="team-answers.jsonl"
    )
    evaluation = services.evaluation_start(
        user=user, evaluation_set=evaluation_set, kb_ids=[kb_id], provider=provider, model=None
    )
    if not worker:
        return services.evaluation_run_inline(evaluation_id=evaluation.id)
    while evaluation.is_active:
        time.sleep(0.5)
        evaluation.refresh_from_db()
    return evaluation


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--provider", default="extractive")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--worker", action="store_true")
    args = parser.parse_args()
    setup("adrag_evalbench")
    from knowledge.bulk import TextItem, documents_ingest_inline
    from knowledge.models import KnowledgeBase
    from queries.evaluation.metrics import summarise, table_lines

    user = bench_user()
    KnowledgeBase.objects.filter(owner=user, name="team-docs-parity").delete()
    kb = KnowledgeBase.objects.create(owner=user, name="team-docs-parity")
    with tempfile.TemporaryDirectory() as folder:
        files = build_documents(Path(folder))
        documents_ingest_inline(
            kb=kb, items=[TextItem(p.name, p.read_bytes()) for p in files], user=user
        )
    questions = json.loads((DATA / "questions.json").read_text())["questions"][: args.limit]
    started = time.perf_counter()
    rows = bench_rows(questions, kb_id=kb.id, provider_name=args.provider)
    bench_seconds = time.perf_counter() - started
    started = time.perf_counter()
    evaluation = portal_evaluation(
        questions, user=user, kb_id=kb.id, provider=args.provider, worker=args.worker
    )
    portal_seconds = time.perf_counter() - started
    bench_table = table_lines(summarise(rows))
    portal_rows = [item.score for item in evaluation.items.order_by("position")]
    portal_table = table_lines(summarise(portal_rows))
    print(f"== bench/team_answers.py scoring, {len(rows)} questions, {bench_seconds:.1f} s ==")
    print("\n".join(line for line in bench_table if " ms p50" not in line))
    print(f"== portal evaluation #{evaluation.id}, {evaluation.status}, {portal_seconds:.1f} s ==")
    print("\n".join(line for line in portal_table if " ms p50" not in line))
    keys = ("verdict", "right", "correct", "cites_right", "recognised", "false_badge", "on_topic")
    differing = [
        (item["id"], {k: (a.get(k), b.get(k)) for k in keys if a.get(k) != b.get(k)})
        for item, a, b in zip(questions, rows, portal_rows)
        if any(a.get(k) != b.get(k) for k in keys)
    ]
    same = [line for line in bench_table if " ms p50" not in line] == [
        line for line in portal_table if " ms p50" not in line
    ]
    print(f"identical metrics: {same}; questions scored differently: {len(differing)}")
    for item_id, diff in differing:
        print(f"  {item_id}: {diff}")


if __name__ == "__main__":
    sys.exit(main())
