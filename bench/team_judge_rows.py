"""What the table judge is fitted on besides WikiTableQuestions: the team-tables sets' tuning halves.

    .venv/bin/python bench/team_judge_rows.py [--out knowledge/tables/team_judge_rows.jsonl]

The judge (knowledge/tables/judge.py) turns what is known of a table's best program into the
probability that its result is the answer. Fitted on Wikipedia's tables alone it under-rates a
team's: among a workbook's sheets, a CSV and a slide, a question's best program holds a smaller
share of the votes and reads fewer rows than one over a single Wikipedia table, and of the
team sets' tuning questions it scored 196 from 0.5, 164 of them right, where a judge that also
saw those questions scores more of the right ones above the bar. This writes, for each tuning
question of every set (odd numbers; the held-out halves are never read), the judge's signals of
the program the table store would choose and whether its result is the answer (an unanswerable
question's program is never right). `manage.py train_table_parser --judge-only` fits on these
rows with the WikiTableQuestions rows and reports each set as judged by a judge fitted without
it. Each set is ingested into its benchmark knowledge base first when `bench/team_tables.py`
has not left one. The rows depend on the rules and on the judge shipped when they are written
(the store's choice of table weighs the judge's probability): write them again, then fit the
judge, after changing either.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from _setup import ROOT, bench_user, setup
from team_tables import SETS, build_documents

OUT = ROOT / "knowledge" / "tables" / "team_judge_rows.jsonl"


def _knowledge_base(name: str, user):
    """Return the set's benchmark knowledge base, ingesting its documents when there is none."""
    from knowledge.bulk import TextItem, documents_ingest_inline
    from knowledge.models import KnowledgeBase

    kb_name = f"team-tables-{name}-extractive"
    kb = KnowledgeBase.objects.filter(owner=user, name=kb_name).first()
    if kb is not None:
        return kb
    kb = KnowledgeBase.objects.create(owner=user, name=kb_name)
    with tempfile.TemporaryDirectory() as folder:
        items = [
            TextItem(p.name, p.read_bytes()) for p in build_documents(SETS[name], Path(folder))
        ]
        documents_ingest_inline(kb=kb, items=items, user=user)
    return kb


def _judged(kb_ids: list[int], question: str) -> tuple[list, dict] | None:
    """Return the result and the judge's signals of the program the table store chooses first
    for a question of one step (None for two steps, or when no program fits)."""
    from knowledge.tables import store
    from knowledge.tables.choice import stands_highest
    from knowledge.tables.follows import followed
    from knowledge.tables.rules import signals
    from knowledge.tables.steps import split_two_step

    first, second = split_two_step(question)
    if second:
        return None
    votes = store.table_votes(kb_ids, question, None, {})
    best = stands_highest(store.tried_tables(question, first, votes, {})[0])
    if best is None:
        return None
    # The answer the store serves must be this program's result: a question it answers by a
    # step after the program (a join, a yes or no) or by a nested reading is left out, since
    # its first program's result is not what the judge's probability is read for.
    served = store.choose(kb_ids, question)
    if served is None or served.steps or served.best.program != best.best.program:
        return None
    return best.best.result.values, signals(first, best, followed(first, best.grid))


def rows_of_set(name: str, user) -> list[dict]:
    """Return the judge's rows of one set's tuning questions that a table program answers."""
    from knowledge.tables.matching import right, target_items

    kb = _knowledge_base(name, user)
    questions = json.loads((SETS[name] / "questions.json").read_text())["questions"]
    out = []
    for item in questions:
        if item["half"] != "tune":
            continue  # the held-out half measures the judge; it never fits it
        judged = _judged([kb.id], item["question"])
        if judged is None:
            continue
        values, signals = judged
        ok = bool(item["answers"]) and right(values, target_items("|".join(item["answers"])))
        out.append({"set": name, "id": item["id"], "signals": signals, "right": ok})
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    setup()
    user = bench_user()
    rows = [row for name in SETS for row in rows_of_set(name, user)]
    with open(args.out, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, sort_keys=True) + "\n")
    print(
        f"{len(rows)} rows of {len(SETS)} sets' tuning halves, {sum(r['right'] for r in rows)} right"
    )


if __name__ == "__main__":
    main()
