"""The offline table parser alone, on the dev fifth of WikiTableQuestions' training split.

    .venv/bin/python bench/table_parser.py [--weights parser_weights.json] [--limit N]
                                           [--out results.jsonl]

No database and no pipeline: each question of the training split whose table is in the dev
fifth (`training.part`, tables the ranker never trained on; 2,810 questions) is read against
its CSV table, and the parser's first program that follows the question, of the likeliest
answer (`follows.followed`), is scored with the dataset's rule. Printed: how often it is
right, how often some candidate is right (what any ranking could reach), and both for the
judge's halves `a` (it fits there) and `b`. This is where a rule or a retrained ranker is
measured before the whole pipeline (`bench/tables.py --split dev`); `--weights` scores weights
a training run wrote elsewhere (`manage.py train_table_parser --out`).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from _setup import EVAL_DATA, setup

WTQ = EVAL_DATA / "wikitablequestions"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--weights", default="")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    setup()
    from knowledge.tables import follows as shape
    from knowledge.tables import training
    from knowledge.tables.matching import right, target_items
    from knowledge.tables.parser import WEIGHTS_PATH, load_weights, ranked

    weights = load_weights(Path(args.weights) if args.weights else WEIGHTS_PATH)
    questions = [q for q in training.load_questions(WTQ) if training.part(q["table"]) == "dev"]
    questions = questions[: args.limit] if args.limit else questions
    counts: Counter = Counter()
    grids: dict = {}
    out = open(args.out, "w") if args.out else None  # noqa: SIM115 - closed below
    started = time.perf_counter()
    for question in questions:
        table = question["table"]
        if table not in grids:
            grids[table] = training.read_csv_table(WTQ / table, table)
        grid, target = grids[table], target_items(question["target"])
        found = ranked(question["question"], grid, weights) if grid is not None else []
        # As the store reads them: the programs that follow the question, the likeliest
        # answer's first, with those the rules build (a sum, a count of groups, the same as).
        follows = shape.followed(question["question"], grid, weights) if grid is not None else []
        first = bool(follows) and right(follows[0].result.values, target)
        reachable = any(right(c.result.values, target) for c in found)
        half = training.half(table)
        counts.update({"all": 1, f"all {half}": 1})
        counts.update({"right": first, f"right {half}": first})
        counts.update({"reachable": reachable, f"reachable {half}": reachable})
        if out:
            record = {"id": question["id"], "question": question["question"], "right": first}
            record["program"] = follows[0].program.to_dict() if follows else None
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    if out:
        out.close()
    seconds = time.perf_counter() - started
    print(f"{'questions':<28}{'first program right':<24}some candidate right")
    for name in ("", " a", " b"):
        total = counts[f"all{name}"]
        print(
            f"{'dev fifth' + (', half' + name if name else ''):<28}"
            f"{counts[f'right{name}']:>5} / {total} ({counts[f'right{name}'] / total:.1%})     "
            f"{counts[f'reachable{name}']:>5} ({counts[f'reachable{name}'] / total:.1%})"
        )
    print(f"{seconds:.0f} s, {seconds / max(len(questions), 1) * 1000:.0f} ms per question")


if __name__ == "__main__":
    main()
