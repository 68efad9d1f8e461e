"""Answer quality on a team's own kind of documents, through the whole pipeline.

    .venv/bin/python bench/team_answers.py [--provider NAME] [--model NAME] [--only KIND,...]
                                           [--limit N | --sample N] [--out results.jsonl]
                                           [--half tune|held_out|all]
                                           [--show-chunks] [--scanned | --scannable]

Builds the documents of `bench/team_docs/` (Markdown policies with headings, tables and
numbered steps, release notes, a runbook, HTML pages with a FAQ, tables and lists, two CSVs,
meeting notes, a DOCX with a table and a numbered list, a two-page PDF), ingests them into a
fresh knowledge base, and asks the questions of `bench/team_docs/questions.json` through the
eight-node pipeline with the provider (the offline `extractive` one unless told). Follow-ups
are asked after their earlier turns, in one conversation. It prints, per kind of question
and in all:

- fact first: a gold answer in the answer's first sentence (every gold value anywhere in it,
  for questions about several rows);
- follow-ups right: the same for follow-ups, and how often the rewritten question kept its
  topic (`standalone_contains`);
- unanswerable recognised: the answer says the documents do not hold it (verdict `not_found`);
- false badges: an unanswerable question shown as grounded and verified;
- citations correct: answers (not "not found") whose first sentence cites only passages of
  the files that hold the fact.

Every item is in one of two halves, fixed by its id: `tune` when the SHA-1 of the id, as an
integer, is even, `held_out` when it is odd (a follow-up goes with its earlier turns). Rules
are tuned on the first half; the second shows whether they generalise. The table is printed
for the tuning half, for the held-out half and for all; `--half tune|held_out` asks and reports
one half only. `--out` records each item's half.

`--scanned` replaces three documents by scans (image-only PDFs, `bench/team_docs/scan.py`:
the travel policy PDF, the meeting notes, the offices table), read by OCR at ingestion, asks
only the questions those documents answer, and prints how well OCR read each one (word
recall) and its seconds per page. `--scannable` asks the same questions of the typed
documents, for the comparison.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from _setup import ROOT, bench_user, setup

DATA = ROOT / "bench" / "team_docs"
KINDS = ("table", "table_multi", "steps", "prose", "followup", "unanswerable")
HALVES = ("tune", "held_out")


def half_of(item: dict) -> str:
    """Return the item's half, fixed by its id: tune (even SHA-1) or held_out (odd)."""
    return "tune" if int(hashlib.sha1(item["id"].encode()).hexdigest(), 16) % 2 == 0 else "held_out"


def build_documents(target: Path) -> list[Path]:
    """Build the data set's files (the DOCX and the PDF from their specs) into target."""
    spec = importlib.util.spec_from_file_location("team_docs_build", DATA / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build(target)


def first_sentence(answer: str) -> str:
    """Return the first sentence of an answer's body, as the portal's evaluations read it."""
    from queries.evaluation.scoring import first_sentence as shared

    return shared(answer)


def verdict_of(outcome) -> str:
    """Return what the answer card shows: verified, unverified, or not_found."""
    from queries.evaluation.scoring import verdict_of as shared

    return shared(outcome)


def ask(question: str, *, provider, kb_id: int, model: str | None, history: list[dict]):
    """Run one question through the pipeline and return its outcome and time."""
    from queries.pipeline.events import ListSink
    from queries.pipeline.runner import run_pipeline

    started = time.perf_counter()
    outcome = run_pipeline(
        query=question,
        strategy=provider,
        kb_ids=[kb_id],
        sink=ListSink(),
        model=model,
        history=list(history),
    )
    return outcome, time.perf_counter() - started


def score(item: dict, outcome) -> dict:
    """Return what one answer got right: the portal's scorer (queries/evaluation/scoring.py),
    so that this table and an evaluation of the same set in the portal agree."""
    from queries.evaluation.scoring import score as shared

    return {"kind": item["kind"], **shared(item, outcome)}


def show_chunks(kb) -> None:
    """Print a sample of the chunks of a CSV, a Markdown table and a numbered list."""
    from knowledge.models import Chunk

    samples = [
        Chunk.objects.filter(knowledge_base=kb, document__file_type="csv", kind="row")[:2],
        Chunk.objects.filter(knowledge_base=kb, document__file_type="csv", kind="table")[:1],
        Chunk.objects.filter(knowledge_base=kb, document__file_type="md", kind="row")[:2],
        Chunk.objects.filter(knowledge_base=kb, document__file_type="md", kind="list")[:1],
        Chunk.objects.filter(knowledge_base=kb, document__file_type="pdf", kind="list")[:1],
    ]
    for chunks in samples:
        for chunk in chunks:
            print(f"--- {chunk.document.file_name} #{chunk.ordinal} kind={chunk.kind}")
            print(f"section: {chunk.section}")
            if chunk.structure:
                print(f"structure: {json.dumps(chunk.structure, ensure_ascii=False)[:300]}")
            print(chunk.text[:400])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--provider", default="extractive")
    parser.add_argument("--model", default=None)
    parser.add_argument("--only", default="", help="comma-separated kinds")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--sample", type=int, default=None, help="N questions spread evenly")
    parser.add_argument("--out", default="")
    parser.add_argument("--half", choices=(*HALVES, "all"), default="all")
    parser.add_argument("--show-chunks", action="store_true")
    scan = parser.add_mutually_exclusive_group()
    scan.add_argument("--scanned", action="store_true", help="three documents as scans")
    scan.add_argument("--scannable", action="store_true", help="their questions, typed")
    args = parser.parse_args()
    setup()
    from knowledge.bulk import TextItem, documents_ingest_inline
    from knowledge.models import KnowledgeBase
    from queries.answering.registry import get_strategy

    user = bench_user()
    # A fresh knowledge base each time, so the chunks are those of the code being measured;
    # one per provider, so two providers can be measured at once.
    name = f"team-docs-{args.provider}"
    KnowledgeBase.objects.filter(owner=user, name=name).delete()
    kb = KnowledgeBase.objects.create(owner=user, name=name)
    renamed: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as folder:
        files = build_documents(Path(folder))
        if args.scanned:
            sys.path.insert(0, str(DATA))
            from scan import scan_documents

            originals = {path.name: path for path in files}
            files, renamed = scan_documents(files, Path(folder) / "scans")
            ocr_report(originals, renamed, Path(folder) / "scans")
        items = [TextItem(path.name, path.read_bytes()) for path in files]
        started = time.perf_counter()
        summary = documents_ingest_inline(kb=kb, items=items, user=user)
    print(
        f"documents: {len(items)} (ready {summary['ready']}, failed {summary['failed']}) "
        f"in {time.perf_counter() - started:.1f} s"
    )
    if args.show_chunks:
        show_chunks(kb)
    questions = json.loads((DATA / "questions.json").read_text())["questions"]
    if args.half != "all":
        questions = [q for q in questions if half_of(q) == args.half]
    if args.only:
        questions = [q for q in questions if q["kind"] in args.only.split(",")]
    if args.scanned or args.scannable:
        sys.path.insert(0, str(DATA))
        from scan import SCANNED

        # The questions the scanned documents answer, and every unanswerable one.
        questions = [
            {**q, "sources": [renamed.get(name, name) for name in q.get("sources", [])]}
            for q in questions
            if q["kind"] == "unanswerable" or set(q.get("sources", [])) & set(SCANNED)
        ]
    if args.sample:
        step = len(questions) / args.sample
        questions = [questions[int(i * step)] for i in range(min(args.sample, len(questions)))]
    questions = questions[: args.limit] if args.limit else questions
    provider = get_strategy(args.provider)
    results: dict[str, dict[str, list[dict]]] = {half: defaultdict(list) for half in HALVES}
    times: dict[str, list[float]] = {half: [] for half in HALVES}
    out = open(args.out, "w") if args.out else None  # noqa: SIM115 - closed below
    for number, item in enumerate(questions, start=1):
        history: list[dict] = []
        for turn in item.get("turns", []):
            earlier, _ = ask(
                turn, provider=provider, kb_id=kb.id, model=args.model, history=history
            )
            history.append(
                {
                    "query": turn,
                    "standalone_query": earlier.standalone_query or turn,
                    "answer": earlier.answer,
                }
            )
        outcome, seconds = ask(
            item["question"], provider=provider, kb_id=kb.id, model=args.model, history=history
        )
        half = half_of(item)
        times[half].append(seconds)
        result = score(item, outcome)
        results[half][item["kind"]].append(result)
        if out:
            record = {**item, "half": half, **result}
            record.update(answer=outcome.answer, seconds=round(seconds, 2))
            record["standalone_query"] = outcome.standalone_query
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        if number % 20 == 0:
            every = [t for half in HALVES for t in times[half]]
            print(f"  {number} questions, median {statistics.median(every):.2f} s", flush=True)
    if out:
        out.close()
    for half in HALVES:
        if args.half in (half, "all"):
            print(f"== {half} half ==")
            report(results[half], times[half], args.provider, args.model)
    if args.half == "all":
        print("== all ==")
        merged: dict[str, list[dict]] = defaultdict(list)
        for half in HALVES:
            for kind, rows in results[half].items():
                merged[kind] += rows
        report(merged, times["tune"] + times["held_out"], args.provider, args.model)
        shared_table([row for rows in merged.values() for row in rows])


def shared_table(rows: list[dict]) -> None:
    """Print the table the portal's evaluations print (`manage.py evaluate`), over all rows."""
    from queries.evaluation.metrics import summarise, table_lines

    print("== the portal's evaluation table ==")
    for line in table_lines(summarise(rows)):
        print(line)


def ocr_report(originals: dict[str, Path], renamed: dict[str, str], folder: Path) -> None:
    """Print how well OCR reads each scanned document, and its seconds per page."""
    from scan import source_text, word_recall

    from knowledge.ingest.extract import extract
    from knowledge.ingest.ocr import OcrOptions

    for name, scanned_name in renamed.items():
        data = (folder / scanned_name).read_bytes()
        started = time.perf_counter()
        extracted = extract(data, scanned_name, ocr=OcrOptions())
        seconds = time.perf_counter() - started
        pages = max(len(extracted.ocr_pages), 1)
        # Headings become section paths, not text: they count as read.
        read = "\n".join(" ".join([*s.section, s.text]) for s in extracted.segments)
        recall = word_recall(source_text(originals[name]), read)
        print(
            f"OCR {scanned_name}: {len(extracted.ocr_pages)} pages read, "
            f"{len(extracted.unreadable_pages)} unreadable, word recall {recall:.1%}, "
            f"{seconds / pages:.1f} s per page"
        )


def report(results: dict[str, list[dict]], times: list[float], provider: str, model) -> None:
    """Print the table of the measures, per kind and in all."""

    def share(rows: list[dict], key: str) -> str:
        values = [row[key] for row in rows if key in row]
        return f"{sum(values) / len(values):.1%} ({sum(values)}/{len(values)})" if values else "-"

    print(f"provider: {provider}; model: {model or 'default'}; questions: {len(times)}")
    print(f"{'kind':<14}{'n':>4}  {'fact first':<18}{'cites right':<18}{'on topic':<16}")
    answerable: list[dict] = []
    for kind in KINDS:
        rows = results.get(kind, [])
        if not rows or kind == "unanswerable":
            continue
        answerable += rows
        print(
            f"{kind:<14}{len(rows):>4}  {share(rows, 'right'):<18}{share(rows, 'cites_right'):<18}"
            f"{share(rows, 'on_topic'):<16}"
        )
    facts = [row for kind in ("table", "table_multi", "steps", "prose") for row in results[kind]]
    print(f"{'fact first (non-follow-up)':<44}{share(facts, 'right')}")
    print(f"{'follow-ups right':<44}{share(results['followup'], 'right')}")
    print(f"{'follow-ups kept their topic':<44}{share(results['followup'], 'on_topic')}")
    print(f"{'unanswerable recognised':<44}{share(results['unanswerable'], 'recognised')}")
    false_badges = sum(row["false_badge"] for row in results["unanswerable"])
    print(f"{'false verified badges (unanswerable)':<44}{false_badges}")
    print(f"{'citations correct (answered)':<44}{share(answerable, 'cites_right')}")
    verdicts = defaultdict(int)
    for row in answerable:
        verdicts[row["verdict"]] += 1
    print(f"{'answerable shown as':<44}{dict(verdicts)}")
    if times:
        p95 = sorted(times)[int(0.95 * (len(times) - 1))]
        print(f"{'median / p95 s per question':<44}{statistics.median(times):.2f} / {p95:.2f}")


if __name__ == "__main__":
    sys.exit(main())
