"""Choosing among the tables tried: how often the table store tries a table whose best program
is right, and how often it chooses one, WikiTableQuestions' dev fifth in one knowledge base and
the team-tables sets' tuning halves.

    .venv/bin/python bench/table_choice.py [--held-out 300] [--fit-questions 900] [--tried N]
                                           [--dump FILE]

Every table of the training split's dev fifth (340 tables the parser's ranker never trained on)
is in one knowledge base (`wtq-dev-all`, as `bench/table_finding.py` and `bench/tables.py
--split dev --mode open` build it, and reused). For each question the table store tries the
TABLES_PER_QUESTION tables the finding model puts first and takes the best program of each
(`store.tried_tables`); the one whose standing is highest answers (rules.standing: a program
that reads every name the question says, then one that orders on the column its "most" names,
then the judge's probability × the table's share of the votes × its relevance). Printed, for
the held-out questions (the `--sample 300` of `bench/tables.py --split dev`, seed 7), for 900
others (seed 11; those `bench/table_finding.py` fits the finding on) and for the team-tables
sets' tuning halves (odd ids, in each set's benchmark knowledge base, ingested when
`bench/team_tables.py` has left none; the held-out halves are never read): how often some
tried table's program is right, how often the question's own table's is, and how often the one
chosen is. `--tried N` tries N tables instead of TABLES_PER_QUESTION; `--dump` writes each
question's tried tables with their signals and labels, one JSON line each, to fit a choice on.
No question of the test split is read.
"""

from __future__ import annotations

import argparse
import json

from _setup import bench_user, setup


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


def _measured(kb_id: int, questions: list[dict], grids: dict, name: str, dump) -> list:
    """Return each question's tried tables and which of their programs are right (`questions`:
    each with its `question`, its `target` items and its own table's id when known)."""
    from knowledge.tables.matching import right

    rows = []
    for item in questions:
        pairs = tried(kb_id, item["question"], grids)
        labels = [right(choice.best.result.values, item["target"]) for choice, _ in pairs]
        own = [choice.table_id == item.get("own") for choice, _ in pairs]
        rows.append((pairs, labels, own))
        if dump:
            tables = [
                {
                    "own": choice.table_id == item.get("own"),
                    "right": label,
                    "standing": [float(part) for part in standing],
                    "confidence": choice.confidence,
                    "vote": choice.vote,
                    "relevance": choice.relevance,
                    "share": choice.share,
                }
                for (choice, standing), label in zip(pairs, labels, strict=True)
            ]
            dump.write(json.dumps({"id": item["id"], "set": name, "tables": tables}) + "\n")
    return rows


def _wtq(args) -> tuple[int, list[dict], list[dict]]:
    """Return the dev fifth's knowledge base (ingested or reused), the questions fitted on and
    the held-out ones, each with its target items and its own table's id."""
    from tables import dev_fifth_in_one_kb

    from knowledge.tables.matching import target_items

    kb, to_fit, held_out, ids = dev_fifth_in_one_kb(args.held_out, args.fit_questions)
    for item in to_fit + held_out:
        item["target"] = target_items(item["target"], item["canon"], item["canon_type"])
        item["own"] = ids.get(item["table"])
    return kb.id, to_fit, held_out


def _team_rows(grids: dict, dump) -> list:
    """Return the team-tables sets' tuning questions' tried tables and their labels."""
    from team_judge_rows import _knowledge_base
    from team_tables import SETS

    from knowledge.tables.matching import target_items

    rows = []
    for name in SETS:
        kb = _knowledge_base(name, bench_user())
        questions = json.loads((SETS[name] / "questions.json").read_text())["questions"]
        tuning = [
            {**item, "target": target_items("|".join(item["answers"]))}
            for item in questions
            if item["half"] == "tune" and item["answers"]
        ]
        rows += _measured(kb.id, tuning, grids, f"team {name}", dump)
    return rows


def _report(measured: dict[str, list]) -> None:
    from knowledge.tables.choice import stands_highest

    print(f"{'questions':<24}{'some tried right':<20}{'its own table right':<22}chosen right")
    for name, rows in measured.items():
        reachable = own_right = chosen = 0
        for pairs, labels, own in rows:
            if not pairs:
                continue
            reachable += any(labels)
            own_right += any(a and b for a, b in zip(labels, own, strict=True))
            chosen += labels[[choice for choice, _ in pairs].index(stands_highest(pairs))]
        n = len(rows)
        print(
            f"{name + f' ({n})':<24}{reachable:>4} ({reachable / n:.1%})     "
            f"{own_right:>4} ({own_right / n:.1%})       {chosen:>4} ({chosen / n:.1%})"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--held-out", type=int, default=300)
    parser.add_argument("--fit-questions", type=int, default=900)
    parser.add_argument("--tried", type=int, default=0)
    parser.add_argument("--dump", default="")
    args = parser.parse_args()
    setup()
    from knowledge.tables import store

    if args.tried:
        store.TABLES_PER_QUESTION = args.tried
    kb_id, to_fit, held_out = _wtq(args)
    dump = open(args.dump, "w") if args.dump else None  # noqa: SIM115 - closed below
    measured = {
        "others": _measured(kb_id, to_fit, {}, "others", dump),
        "held out": _measured(kb_id, held_out, {}, "held out", dump),
        "team tuning halves": _team_rows({}, dump),
    }
    if dump:
        dump.close()
    _report(measured)


if __name__ == "__main__":
    main()
