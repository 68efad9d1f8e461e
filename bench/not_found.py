"""Questions the knowledge base cannot answer: do they come back "not found", never "verified"?

    .venv/bin/python bench/not_found.py [--provider NAME] [--model NAME] [--per-half N]
                                        [--only other|control] [--out results.jsonl] [--web]

Sorts XQuAD English's 48 articles by title and splits them in two halves: the articles at
even positions are half A, those at odd positions half B. Each half is ingested into its own
knowledge base (`xquad-half-a`, `xquad-half-b`; one document per paragraph, named
`{title}-{index}.txt` as in bench/answers.py; a knowledge base already holding the same files
is reused as it is). Then, through the full pipeline with the provider (the offline
`extractive` one unless told):

- "other half" run: every question is asked of the knowledge base of the OTHER half, which
  does not hold its article. The right answer is the verdict `not_found`; the run counts the
  shares of not_found, unverified and verified (a verified answer here is a false badge).
- "control" run: the same questions asked of their OWN half: the share whose first sentence
  holds a gold answer span (the first-sentence rule of bench/answers.py), the shares verified,
  unverified and not_found, and the verified answers whose first sentence holds no gold span.

Every figure is printed for the TUNING set (the questions of half A) and the HELD-OUT set (the
questions of half B) side by side, and for all, with the median and p95 seconds per question.
The web search the plan may ask for is replaced by one that finds nothing (`--web` keeps the
real one), so the figures measure the knowledge base alone and do not depend on the network.
`--per-half N` asks N questions of each half, spread evenly over that half's questions (all by
default). `--out` writes one JSON line per question per run: question, article, half, run,
verdict, the answer's first sentence, issues, seconds (and the gold spans and the answer).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections import defaultdict
from collections.abc import Callable

from _setup import EVAL_DATA, bench_user, setup

# A citation followed by a capital ends a sentence even when the quoted text has no full stop.
CITED_BREAK = re.compile(r"(\[\d+(?:\s*[,;]\s*\d+)*\])\s+(?=[A-Z\"“(])")
CAVEAT_PREFIX = "note: some claims"
HALVES = {"A": "tuning", "B": "held_out"}
KB_NAMES = {"A": "xquad-half-a", "B": "xquad-half-b"}
RUNS = ("other", "control")


def answer_body(answer: str) -> str:
    """Return the answer without its caveat line."""
    return "\n".join(
        line for line in answer.splitlines() if not line.strip().lower().startswith(CAVEAT_PREFIX)
    ).strip()


def first_sentence(answer: str, split_sentences: Callable[[str], list[str]]) -> str:
    """Return the first sentence of an answer's body (as bench/answers.py does)."""
    return (split_sentences(CITED_BREAK.sub(r"\1\n\n", answer_body(answer))) or [""])[0]


def verdict_of(outcome) -> str:
    """Return what the answer card shows: verified, unverified, or not_found."""
    verdict = outcome.metadata.get("verdict")
    if verdict:
        return verdict
    return "verified" if outcome.metadata.get("grounded") else "unverified"


def no_web(query: str, count: int) -> list[dict]:
    """A web search that finds nothing: the knowledge base alone is measured."""
    return []


def load_halves() -> tuple[dict[str, list], dict[str, list[dict]]]:
    """Return each half's paragraphs (TextItems) and questions."""
    from knowledge.bulk import TextItem

    data = json.loads((EVAL_DATA / "xquad-en" / "xquad.en.json").read_text())
    articles = sorted(data["data"], key=lambda article: article["title"])
    paragraphs: dict[str, list] = {"A": [], "B": []}
    questions: dict[str, list[dict]] = {"A": [], "B": []}
    for position, article in enumerate(articles):
        half = "A" if position % 2 == 0 else "B"
        for index, paragraph in enumerate(article["paragraphs"]):
            name = f"{article['title']}-{index}.txt"
            paragraphs[half].append(TextItem(name, paragraph["context"].encode(), external_id=name))
            for qa in paragraph["qas"]:
                questions[half].append(
                    {
                        "question": qa["question"],
                        "article": article["title"],
                        "paragraph": name,
                        "half": half,
                        "gold": [answer["text"] for answer in qa["answers"]],
                    }
                )
    return paragraphs, questions


def spread(items: list, count: int | None) -> list:
    """Return `count` items spread evenly over the list (all of them without a count)."""
    if not count or count >= len(items):
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def share(rows: list[dict], key: str) -> str:
    """Return "x% (k/n)" for a boolean key over rows."""
    if not rows:
        return "-"
    hits = sum(bool(row[key]) for row in rows)
    return f"{hits / len(rows):.1%} ({hits}/{len(rows)})"


def seconds(rows: list[dict]) -> str:
    """Return the median / p95 seconds per question of the rows."""
    if not rows:
        return "-"
    times = sorted(row["seconds"] for row in rows)
    return f"{statistics.median(times):.2f} / {times[int(0.95 * (len(times) - 1))]:.2f}"


def print_table(title: str, measures: list[tuple[str, str]], rows: list[dict]) -> None:
    """Print one run's measures for the tuning set, the held-out set and all."""
    groups = [
        [row for row in rows if row["half"] == "A"],
        [row for row in rows if row["half"] == "B"],
        rows,
    ]
    print(title)
    print(f"{'measure':<40}{'tuning (half A)':<22}{'held-out (half B)':<22}{'all':<22}")
    for label, key in measures:
        print(f"{label:<40}" + "".join(f"{share(group, key):<22}" for group in groups))
    label = "median / p95 s per question"
    print(f"{label:<40}" + "".join(f"{seconds(group):<22}" for group in groups))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--provider", default="extractive")
    parser.add_argument("--model", default=None)
    parser.add_argument("--per-half", type=int, default=None, help="N questions of each half")
    parser.add_argument("--only", choices=RUNS, default=None)
    parser.add_argument("--out", default="", help="write each answer as a JSON line here")
    parser.add_argument("--web", action="store_true", help="keep the real web search")
    args = parser.parse_args()
    setup()
    from knowledge.bulk import documents_ingest_inline
    from knowledge.models import KnowledgeBase
    from queries.answering.registry import get_strategy
    from queries.answering.sentences import split_sentences
    from queries.pipeline.events import ListSink
    from queries.pipeline.runner import run_pipeline

    paragraphs, questions = load_halves()
    user = bench_user()
    kbs = {}
    for half, name in KB_NAMES.items():
        kb, _ = KnowledgeBase.objects.get_or_create(owner=user, name=name)
        started = time.perf_counter()
        summary = documents_ingest_inline(kb=kb, items=paragraphs[half], user=user)
        kbs[half] = kb
        print(
            f"half {half} ({HALVES[half]}): {len(paragraphs[half])} paragraphs (ready "
            f"{summary['ready']}, unchanged {summary['skipped']}, failed {summary['failed']}) "
            f"in {time.perf_counter() - started:.1f} s; questions {len(questions[half])}",
            flush=True,
        )
    asked = spread(questions["A"], args.per_half) + spread(questions["B"], args.per_half)
    provider = get_strategy(args.provider)
    runs = [args.only] if args.only else list(RUNS)
    results: dict[str, list[dict]] = defaultdict(list)
    out = open(args.out, "w") if args.out else None  # noqa: SIM115 - closed below
    print(f"provider: {args.provider}; model: {args.model or 'default'}; runs: {', '.join(runs)}")
    for run in runs:
        for n, item in enumerate(asked, start=1):
            half = item["half"]
            kb = kbs[half] if run == "control" else kbs["B" if half == "A" else "A"]
            started = time.perf_counter()
            outcome = run_pipeline(
                query=item["question"],
                strategy=provider,
                kb_ids=[kb.id],
                sink=ListSink(),
                model=args.model,
                **({} if args.web else {"web_search": no_web}),
            )
            elapsed = time.perf_counter() - started
            verdict = verdict_of(outcome)
            first = first_sentence(outcome.answer, split_sentences)
            gold_first = any(gold.lower() in first.lower() for gold in item["gold"])
            row = {
                "half": half,
                "seconds": elapsed,
                "not_found": verdict == "not_found",
                "unverified": verdict == "unverified",
                "verified": verdict == "verified",
                "gold_first": gold_first,
                "cites_gold": item["paragraph"] in {s["file_name"] for s in outcome.sources},
                "verified_wrong": verdict == "verified" and not gold_first,
            }
            results[run].append(row)
            if out:
                record = {
                    "question": item["question"],
                    "article": item["article"],
                    "half": HALVES[half],
                    "run": run,
                    "kb": kb.name,
                    "verdict": verdict,
                    "first_sentence": first,
                    "issues": outcome.metadata.get("issues", []),
                    "seconds": round(elapsed, 2),
                    "gold": item["gold"],
                    "gold_first": gold_first,
                    "answer": outcome.answer,
                }
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                out.flush()
            if n % 100 == 0:
                rows = results[run]
                median = statistics.median(row["seconds"] for row in rows)
                print(
                    f"  {run}: {n} questions, not_found {share(rows, 'not_found')}, verified "
                    f"{share(rows, 'verified')}, median {median:.2f} s",
                    flush=True,
                )
    if out:
        out.close()
    if "other" in results:
        print_table(
            "OTHER HALF: each question asked of the half that does not hold its article "
            "(right: not_found)",
            [
                ("not_found (right)", "not_found"),
                ("unverified", "unverified"),
                ("verified (false badge)", "verified"),
            ],
            results["other"],
        )
    if "control" in results:
        print_table(
            "CONTROL: each question asked of its own half",
            [
                ("first sentence holds a gold span", "gold_first"),
                ("cites the gold paragraph", "cites_gold"),
                ("verified", "verified"),
                ("unverified", "unverified"),
                ("not_found", "not_found"),
                ("verified, no gold span first", "verified_wrong"),
            ],
            results["control"],
        )


if __name__ == "__main__":
    main()
