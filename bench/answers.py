"""Answer quality of an answer provider on XQuAD English, through the pipeline.

    .venv/bin/python bench/answers.py [--limit N | --sample N] [--provider NAME] [--model NAME]

Ingests the 240 paragraphs (one document each), then asks the 1,190 questions through the
full eight-node pipeline with the provider (the offline `extractive` one unless told), in this
process, and prints the share of answers that cite the gold paragraph, that contain a gold
answer span anywhere and in their first sentence, that are judged grounded, the mean answer
length in words, the median and p95 time per question, and, for chat-model providers, the
share of planner, answer and reflection replies that parsed as their JSON (a reply that did not
sends the pipeline down the spec's fallback). `--sample N` takes N questions spread evenly
over the articles; `--limit N` the first N.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections.abc import Callable

from _setup import EVAL_DATA, bench_user, setup

CITATION = re.compile(r"\s*\[\d+(?:\s*[,;]\s*\d+)*\]")
# A citation followed by a capital ends a sentence even when the quoted text has no full stop.
CITED_BREAK = re.compile(r"(\[\d+(?:\s*[,;]\s*\d+)*\])\s+(?=[A-Z\"“(])")
CAVEAT_PREFIX = "note: some claims"


def answer_body(answer: str) -> str:
    """Return the answer without its caveat line."""
    return "\n".join(
        line for line in answer.splitlines() if not line.strip().lower().startswith(CAVEAT_PREFIX)
    ).strip()


def first_sentence(answer: str, split_sentences: Callable[[str], list[str]]) -> str:
    """Return the first sentence of an answer's body."""
    return (split_sentences(CITED_BREAK.sub(r"\1\n\n", answer_body(answer))) or [""])[0]


def answer_words(answer: str) -> int:
    """Return the number of words of an answer, not counting [n] citations or the caveat."""
    return len(CITATION.sub(" ", answer_body(answer)).split())


JSON_TASKS = {"plan": "planner", "answer": "answer", "critique": "reflection"}


class JsonCounter:
    """Wrap a strategy, counting which of its JSON replies parsed, per stage."""

    def __init__(self, strategy) -> None:
        self.provider = strategy
        self.parsed = dict.fromkeys(JSON_TASKS.values(), 0)
        self.calls = dict.fromkeys(JSON_TASKS.values(), 0)

    def __getattr__(self, name):
        attribute = getattr(self.provider, name)
        if name not in JSON_TASKS:
            return attribute
        stage = JSON_TASKS[name]

        def counted(*args, **kwargs):
            self.calls[stage] += 1
            result = attribute(*args, **kwargs)  # a reply that does not parse raises
            self.parsed[stage] += 1
            return result

        return counted


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--provider", default="extractive")
    parser.add_argument("--model", default=None)
    parser.add_argument("--out", default="", help="write each answer as a JSON line here")
    args = parser.parse_args()
    setup()
    from knowledge.bulk import TextItem, documents_ingest_inline
    from knowledge.models import KnowledgeBase
    from queries.answering.registry import get_strategy
    from queries.answering.sentences import split_sentences
    from queries.pipeline.events import ListSink
    from queries.pipeline.runner import run_pipeline

    data = json.loads((EVAL_DATA / "xquad-en" / "xquad.en.json").read_text())
    paragraphs, questions = [], []
    for article in data["data"]:
        for index, paragraph in enumerate(article["paragraphs"]):
            name = f"{article['title']}-{index}.txt"
            paragraphs.append(TextItem(name, paragraph["context"].encode(), external_id=name))
            for qa in paragraph["qas"]:
                questions.append((qa["question"], name, [a["text"] for a in qa["answers"]]))
    user = bench_user()
    kb, _ = KnowledgeBase.objects.get_or_create(owner=user, name="xquad-en")
    summary = documents_ingest_inline(kb=kb, items=paragraphs, user=user)
    print(
        f"paragraphs: {len(paragraphs)} (ready {summary['ready']}, unchanged {summary['skipped']}); "
        f"questions: {len(questions)}"
    )
    if args.sample:
        step = len(questions) / args.sample
        questions = [questions[int(i * step)] for i in range(args.sample)]
    elif args.limit:
        questions = questions[: args.limit]
    counter = JsonCounter(get_strategy(args.provider))
    cites = contains = first_contains = grounded = direct = by_model = 0
    times, lengths = [], []
    out = open(args.out, "w") if args.out else None  # noqa: SIM115 - closed below
    for n, (question, gold, answers) in enumerate(questions, start=1):
        sink = ListSink()
        started = time.perf_counter()
        outcome = run_pipeline(
            query=question, strategy=lambda: counter, kb_ids=[kb.id], sink=sink, model=args.model
        )
        times.append(time.perf_counter() - started)
        cited = {source["file_name"] for source in outcome.sources}
        cites += gold in cited
        contains += any(answer.lower() in outcome.answer.lower() for answer in answers)
        first = first_sentence(outcome.answer, split_sentences).lower()
        first_contains += any(answer.lower() in first for answer in answers)
        lengths.append(answer_words(outcome.answer))
        grounded += bool(outcome.metadata.get("grounded"))
        writers = [
            frame["data"].get("answered_by", "")
            for frame in sink.frames()
            if frame["type"] == "stage_complete" and frame["data"]["stage"] == "reasoning"
        ]
        by_model += bool(writers) and writers[-1] == "model" and len(writers) > 1
        if out:
            record = {"question": question, "gold": answers, "answer": outcome.answer}
            record["verdict"] = outcome.metadata.get("verdict", "")
            record["issues"] = outcome.metadata.get("issues", [])
            record["seconds"] = round(times[-1], 2)
            record["answered_by"] = writers
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
        direct += outcome.metadata.get("query_type") not in ("factual", "analytical")
        if n % 25 == 0:
            print(
                f"  {n} questions: gold span {contains / n:.1%}, first sentence "
                f"{first_contains / n:.1%}, cites gold {cites / n:.1%}, grounded {grounded / n:.1%}, "
                f"median {statistics.median(times) * 1000:.0f} ms",
                flush=True,
            )
    if out:
        out.close()
    total = len(questions)
    print(f"provider: {args.provider}; model: {args.model or 'default'}; questions: {total}")
    print(f"{'measure':<44}{'value':>10}")
    print(f"{'answers citing the gold paragraph':<44}{cites / total:>10.1%}")
    print(f"{'answers containing a gold answer span':<44}{contains / total:>10.1%}")
    print(f"{'first sentences containing a gold span':<44}{first_contains / total:>10.1%}")
    print(f"{'mean answer length (words)':<44}{statistics.mean(lengths):>10.1f}")
    print(f"{'answers judged grounded':<44}{grounded / total:>10.1%}")
    # Quote-first: a quote the check did not verify is answered by the model on its retry.
    print(f"{'final answers by the model after a quote':<44}{by_model / total:>10.1%}")
    print(f"{'questions the planner answered directly':<44}{direct / total:>10.1%}")
    print(f"{'median time per question (ms)':<44}{statistics.median(times) * 1000:>10.0f}")
    print(
        f"{'p95 time per question (ms)':<44}{sorted(times)[int(0.95 * (total - 1))] * 1000:>10.0f}"
    )
    for stage in JSON_TASKS.values():
        label = f"{stage} replies that parsed as JSON"
        if args.provider == "extractive":
            print(f"{label:<44}{'n/a':>10}")
        elif counter.calls[stage]:
            share = counter.parsed[stage] / counter.calls[stage]
            print(f"{label:<44}{share:>10.1%}  ({counter.parsed[stage]}/{counter.calls[stage]})")


if __name__ == "__main__":
    main()
