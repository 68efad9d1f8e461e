"""Questions over tables: WikiTableQuestions through the whole pipeline.

    .venv/bin/python bench/tables.py [--split test|train|dev] [--mode given|open]
                                     [--sample N] [--seed S] [--skip N] [--limit N]
                                     [--reindex]
                                     [--provider NAME] [--model NAME]
                                     [--out results.jsonl]

WikiTableQuestions 1.0.2 (`../shared/eval-data/wikitablequestions/`, public data nobody here
wrote): questions over Wikipedia tables, each with its table as a CSV file.

- `--split test` (the default) is the scoreboard: the 4,344 questions of the unseen-tables test
  (421 tables never seen in training). Report it; never tune on it, never read its questions.
  `--split train` samples the training questions: tune there. `--split dev` keeps the training
  questions on the dev fifth's tables (`training.part`), which the ranker never trained on: the
  pipeline's share of what the parser alone gets right is measured there. Each record names the
  table's judge half (`a` fits the judge, `b` is held out).
- `--mode given`: each question is asked of a knowledge base holding only its table (one
  knowledge base per table, `wtq-<group>-<n>`, reused when it already holds the file;
  `--reindex` extracts the files again, after a change to how tables are read).
  `--mode open`: every table of the split in one knowledge base (`wtq-<split>-all`, the 421
  tables of the test split): retrieval must find the table.
- `--sample N --seed S`: N questions drawn with that seed (the same N and seed draw the same
  questions for every provider); all of the split without `--sample`. `--limit N` asks the
  first N of them (a slow provider's share of the same sample), `--skip N` leaves out the first
  N (`--skip 100 --limit 100`: its next share).

Each answer is scored two ways with the dataset's rule (knowledge/tables/matching.py): **strict**, on the
values the run asserts as data (the `done` metadata's `answer_values`; a run without them scores
nothing), and **lenient**, every gold item said in the answer's first sentence. Also printed:
the verdicts ("not found" is a miss), the median and p95 seconds per question, and how many
answers say "I could not find". `--out` writes one JSON line per question.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import statistics
import time
from collections import Counter
from pathlib import Path

from _setup import EVAL_DATA, bench_user, setup

from knowledge.tables import training
from knowledge.tables.matching import right, said, target_items

WTQ = EVAL_DATA / "wikitablequestions"
SPLITS = {
    "test": "pristine-unseen-tables.canon.tsv",
    "train": "training.tsv",
    "dev": "training.tsv",
}
# A citation followed by a capital ends a sentence even when the quoted text has no full stop.
CITED_BREAK = re.compile(r"(\[\d+(?:\s*[,;]\s*\d+)*\])\s+(?=[A-Z\"“(])")


def load(split: str) -> list[dict]:
    """Return the split's questions: id, question, table path, target items."""
    path = WTQ / "data" / SPLITS[split]
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [
        {
            "id": row["id"],
            "question": row["utterance"],
            "table": row["context"],
            "target": row["targetValue"],
            "canon": row.get("targetCanon", ""),
            "canon_type": row.get("targetCanonType", ""),
        }
        for row in rows
        if split != "dev" or training.part(row["context"]) == "dev"
    ]


def kb_name(table: str) -> str:
    """Return the knowledge base of one table: csv/204-csv/149.csv is wtq-204-149."""
    group, name = Path(table).parent.name.removesuffix("-csv"), Path(table).stem
    return f"wtq-{group}-{name}"


def table_item(table: str):
    """Return a table's CSV file as an item to ingest."""
    from knowledge.bulk import TextItem

    name = f"{kb_name(table)}.csv"
    return TextItem(name, (WTQ / table).read_bytes(), external_id=table)


def dev_fifth_in_one_kb(held_out: int, fit_questions: int):
    """Return the knowledge base holding every table of the training split's dev fifth (`wtq-dev-
    all`, ingested or reused), its questions held out (`bench/tables.py --split dev --sample N`,
    seed 7), others to fit on (seed 11), and each table's id by its CSV path."""
    from knowledge.bulk import documents_ingest_inline
    from knowledge.models import KnowledgeBase, Table

    every = load("dev")
    held = random.Random(7).sample(every, held_out)
    kept = {item["id"] for item in held}
    rest = [item for item in every if item["id"] not in kept]
    to_fit = random.Random(11).sample(rest, min(fit_questions, len(rest)))
    started = time.perf_counter()
    kb, _ = KnowledgeBase.objects.get_or_create(owner=bench_user(), name="wtq-dev-all")
    tables = sorted({item["table"] for item in every})
    documents_ingest_inline(kb=kb, items=[table_item(t) for t in tables], user=bench_user())
    ids = dict(Table.objects.filter(knowledge_base=kb).values_list("document__external_id", "id"))
    print(f"{len(tables)} tables in one knowledge base ({time.perf_counter() - started:.0f} s)")
    return kb, to_fit, held, ids


def first_sentence(answer: str) -> str:
    from queries.answering.sentences import split_sentences

    body = "\n".join(
        line for line in answer.splitlines() if not line.lower().startswith("note: some claims")
    )
    return (split_sentences(CITED_BREAK.sub(r"\1\n\n", body)) or [""])[0]


def no_web(query: str, count: int) -> list[dict]:
    return []


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", choices=sorted(SPLITS), default="test")
    parser.add_argument("--mode", choices=("given", "open"), default="given")
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--seed", type=int, default=7)
    # Extract the tables again though the knowledge base holds them (after a reader changed).
    parser.add_argument("--reindex", action="store_true")
    # The first N questions of the sample (a slow provider's partial run of the same sample).
    parser.add_argument("--limit", type=int, default=None)
    # Leave out the first N of them: a slow provider's next share, run apart from the first.
    parser.add_argument("--skip", type=int, default=0)
    # Only the questions whose ids a file lists, one a line (those a change can touch, e.g. the
    # ones a model was asked in an earlier run), in the sample's order.
    parser.add_argument("--ids", default="")
    parser.add_argument("--provider", default="extractive")
    parser.add_argument("--model", default=None)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    setup()
    from knowledge.bulk import documents_ingest_inline
    from knowledge.models import KnowledgeBase
    from queries.answering.registry import get_strategy
    from queries.pipeline.events import ListSink
    from queries.pipeline.nodes.reflect import TENTATIVE_ISSUE as tentative
    from queries.pipeline.runner import run_pipeline

    every = load(args.split)
    questions = every
    if args.sample and args.sample < len(questions):
        questions = random.Random(args.seed).sample(questions, args.sample)
    questions = questions[args.skip :]
    if args.limit:
        questions = questions[: args.limit]
    if args.ids:
        wanted = set(Path(args.ids).read_text(encoding="utf-8").split())
        questions = [item for item in questions if item["id"] in wanted]
    # Open mode holds every table of the split, whichever questions are asked.
    tables = sorted({item["table"] for item in (every if args.mode == "open" else questions)})
    user = bench_user()
    started = time.perf_counter()
    kbs: dict[str, KnowledgeBase] = {}
    if args.mode == "open":
        kb, _ = KnowledgeBase.objects.get_or_create(owner=user, name=f"wtq-{args.split}-all")
        documents_ingest_inline(
            kb=kb, items=[table_item(t) for t in tables], user=user, reindex=args.reindex
        )
        kbs = dict.fromkeys(tables, kb)
    else:
        for table in tables:
            kb, _ = KnowledgeBase.objects.get_or_create(owner=user, name=kb_name(table))
            documents_ingest_inline(
                kb=kb, items=[table_item(table)], user=user, reindex=args.reindex
            )
            kbs[table] = kb
    print(
        f"split {args.split}, mode {args.mode}: {len(questions)} questions over {len(tables)} "
        f"tables (ingested or reused in {time.perf_counter() - started:.0f} s); "
        f"provider {args.provider}, model {args.model or 'default'}",
        flush=True,
    )
    strategy = get_strategy(args.provider)
    out = open(args.out, "w") if args.out else None  # noqa: SIM115 - closed below
    rows: list[dict] = []
    for n, item in enumerate(questions, start=1):
        asked = time.perf_counter()
        sink = ListSink()
        outcome = run_pipeline(
            query=item["question"],
            strategy=strategy,
            kb_ids=[kbs[item["table"]].id],
            sink=sink,
            model=args.model,
            web_search=no_web,
        )
        seconds = time.perf_counter() - asked
        target = target_items(item["target"], item["canon"], item["canon_type"])
        values = outcome.metadata.get("answer_values") or []
        first = first_sentence(outcome.answer)
        verdict = outcome.metadata.get("verdict") or (
            "verified" if outcome.metadata.get("grounded") else "unverified"
        )
        row = {
            "id": item["id"],
            "strict": bool(values) and right(values, target),
            "lenient": said(first, target),
            "verdict": verdict,
            "not_found": verdict == "not_found",
            "seconds": seconds,
        }
        if args.split == "dev":
            row["half"] = training.half(item["table"])
        retrieval = next((f["data"] for f in sink.frames() if f["type"] == "retrieval_result"), {})
        program = (retrieval.get("program") or {}).get("program") or {}
        # Who wrote the program that answered (the parser, a model's query) and what became
        # of a model's query that did not answer.
        row["program_by"] = program.get("by", "")
        if tentative in (outcome.metadata.get("issues") or []):
            # The passages found nothing; the program the rules held back answered, hedged.
            row["program_by"] = "held-back program"
        row["table_query"] = (retrieval.get("table_query") or {}).get("outcome", "")
        rows.append(row)
        if out:
            record = {**item, **row, "answer_values": values, "first_sentence": first}
            record["answer"] = outcome.answer
            # The table the program read (its label), to tell a table not found from a
            # program that read the right table wrongly (open mode).
            shown = retrieval.get("program") or retrieval.get("tentative_program") or {}
            record["table_read"] = shown.get("caption")
            record["sql"] = program.get("sql") or (retrieval.get("table_query") or {}).get("sql")
            # A program the rules held back, and what it computed, whether or not it answered.
            held = retrieval.get("tentative_program") or {}
            record["held_back"] = (
                {k: held.get(k) for k in ("values", "confidence")} if held else None
            )
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
        if n % 100 == 0:
            report(rows, progress=True)
    if out:
        out.close()
    report(rows)


def share(rows: list[dict], key: str) -> str:
    hits = sum(bool(row[key]) for row in rows)
    return f"{hits / len(rows):.1%} ({hits}/{len(rows)})" if rows else "-"


def report(rows: list[dict], progress: bool = False) -> None:
    times = sorted(row["seconds"] for row in rows)
    median, p95 = statistics.median(times), times[int(0.95 * (len(times) - 1))]
    if progress:
        print(
            f"  {len(rows)} questions: strict {share(rows, 'strict')}, lenient "
            f"{share(rows, 'lenient')}, median {median:.2f} s",
            flush=True,
        )
        return
    verdicts = Counter(row["verdict"] for row in rows)
    print(f"{'measure':<44}value")
    print(f"{'right, strict (answer_values, the rule)':<44}{share(rows, 'strict')}")
    print(f"{'right, lenient (gold in the first sentence)':<44}{share(rows, 'lenient')}")
    print(f"{'answered not found':<44}{share(rows, 'not_found')}")
    print(f"{'verdicts':<44}{dict(verdicts)}")
    print(f"{'median / p95 s per question':<44}{median:.2f} / {p95:.2f}")
    by = Counter(row.get("program_by") or "passages" for row in rows)
    for who, count in sorted(by.items()):
        hits = sum(row["strict"] for row in rows if (row.get("program_by") or "passages") == who)
        print(f"{'answered by ' + who + ' (right, strict)':<44}{count} ({hits})")
    queries = Counter(row["table_query"] for row in rows if row.get("table_query"))
    if queries:
        print(f"{'model queries that did not answer':<44}{dict(queries)}")


if __name__ == "__main__":
    main()
