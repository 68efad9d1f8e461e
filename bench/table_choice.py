"""Choosing among the tables tried: which table's best program answers, WikiTableQuestions' dev
fifth in one knowledge base.

    .venv/bin/python bench/table_choice.py [--fit] [--held-out 300] [--fit-questions 900]
                                           [--dump FILE]

Every table of the training split's dev fifth (340 tables the parser's ranker never trained on)
is in one knowledge base (`wtq-dev-all`, as `bench/table_finding.py` and `bench/tables.py
--split dev --mode open` build it, and reused). For each question the table store tries the
TABLES_PER_QUESTION tables the finding model puts first and takes the best program of each
(`store.tried_tables`); one of them answers. Printed, on the held-out questions (the `--sample
300` of `bench/tables.py --split dev`, seed 7) and on those fitted on (900 others, seed 11): how
often some tried table's program is right, and how often the one chosen is, by the rules'
standing with the hand-set fit (confidence × relevance × vote) and with the fitted choice
(knowledge/tables/choosing.py).

`--fit` fits the choice on the fitted-on questions and writes
`knowledge/tables/choosing_weights.json`. No question of the test split is read.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from _setup import setup


def tried(kb_id: int, question: str, grids: dict) -> list:
    """Return the question's tried tables: (choice, standing) pairs, as the store weighs them."""
    from knowledge.tables import store
    from knowledge.tables.steps import split_two_step, threshold_question

    first, second = split_two_step(question)
    threshold = None if second else threshold_question(first)
    if threshold is not None:
        first = threshold[0]
    votes = store.table_votes([kb_id], question, None, grids)
    return store.tried_tables(question, first, votes, grids)[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--held-out", type=int, default=300)
    parser.add_argument("--fit-questions", type=int, default=900)
    parser.add_argument("--dump", default="")
    args = parser.parse_args()
    setup()
    from tables import bench_user, load, table_item

    from knowledge.bulk import documents_ingest_inline
    from knowledge.models import KnowledgeBase, Table
    from knowledge.tables import choosing
    from knowledge.tables.matching import right, target_items

    every = load("dev")
    held_out = random.Random(7).sample(every, args.held_out)
    kept = {item["id"] for item in held_out}
    rest = [item for item in every if item["id"] not in kept]
    to_fit = random.Random(11).sample(rest, min(args.fit_questions, len(rest)))
    started = time.perf_counter()
    kb, _ = KnowledgeBase.objects.get_or_create(owner=bench_user(), name="wtq-dev-all")
    tables = sorted({item["table"] for item in every})
    documents_ingest_inline(kb=kb, items=[table_item(t) for t in tables], user=bench_user())
    ids = dict(Table.objects.filter(knowledge_base=kb).values_list("document__external_id", "id"))
    print(f"{len(tables)} tables in one knowledge base ({time.perf_counter() - started:.0f} s)")
    grids: dict = {}
    measured: dict[str, list] = {}
    dump = open(args.dump, "w") if args.dump else None  # noqa: SIM115 - closed below
    for name, questions in (("fitted on", to_fit), ("held out", held_out)):
        rows = []
        for item in questions:
            target = target_items(item["target"], item["canon"], item["canon_type"])
            pairs = tried(kb.id, item["question"], grids)
            labels = [right(choice.best.result.values, target) for choice, _ in pairs]
            rows.append((item["question"], pairs, labels))
            if dump:
                record = {
                    "id": item["id"],
                    "set": name,
                    "tables": [
                        {
                            "own": choice.table_id == ids.get(item["table"]),
                            "right": label,
                            "standing": [float(part) for part in standing],
                            "signals": choosing.signals(choice),
                            "vote": choice.vote,
                            "relevance": choice.relevance,
                            "share": choice.share,
                        }
                        for (choice, standing), label in zip(pairs, labels, strict=True)
                    ],
                }
                dump.write(json.dumps(record) + "\n")
        measured[name] = rows
    if dump:
        dump.close()
    if args.fit:
        examples = [
            (choosing.matrix([choice for choice, _ in pairs]), labels)
            for _, pairs, labels in measured["fitted on"]
            if any(labels) and not all(labels)
        ]
        choosing.save(choosing.fit(examples))
        print(f"fitted on {len(examples)} questions with a right and a wrong table; written")
    model = choosing.load_choosing()
    print(f"{'questions':<20}{'some tried right':<20}{'by standing':<16}by the fitted choice")
    for name, rows in measured.items():
        reachable = by_standing = by_model = 0
        for _, pairs, labels in rows:
            if not pairs:
                continue
            reachable += any(labels)
            standing_best = max(range(len(pairs)), key=lambda i: pairs[i][1])
            by_standing += labels[standing_best]
            if model is not None:
                fitted = choosing.scores([choice for choice, _ in pairs], model)
                keys = [(*standing[:2], fitted[i]) for i, (_, standing) in enumerate(pairs)]
                by_model += labels[max(range(len(pairs)), key=keys.__getitem__)]
        n = len(rows)
        print(
            f"{name + f' ({n})':<20}{reachable:>4} ({reachable / n:.1%})     "
            f"{by_standing:>4} ({by_standing / n:.1%})  {by_model:>4} ({by_model / n:.1%})"
        )


if __name__ == "__main__":
    main()
