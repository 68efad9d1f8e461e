"""Where a chat-model provider's time goes, per stage, and how fast a stop ends a run.

    .venv/bin/python bench/local_speed.py [--provider local] [--model NAME] [--questions N]
                                          [--stops N] [--cold]

Ingests the team documents of `bench/team_docs/` (as `team_answers.py` does) and asks N of
their questions (spread over the kinds, no follow-ups) through the whole pipeline with the
provider (`local` unless told; `openai` with OPENAI_BASE_URL set measures llama.cpp's server).
It prints, per question and as medians: the time each stage took (planner, retrieval,
rerank, compressor, reasoning, reflection), the time to the first answer text (the first
`answer_delta` event) and to the end of the run.

`--cold` first drops the process's loaded model, so the first question pays the load, as the
first question after a start without warm-up would.

Then, for each stage, it starts a run, sets the cancel flag when that stage has started (for
the answer: once while the prompt is read, before any text, and once while text streams), and
prints how long the run took to end after the flag was set: the stop figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from _setup import bench_user, setup
from team_answers import DATA, build_documents

STAGES = ("planner", "retrieval", "reranker", "compressor", "reasoning", "reflection")
# Where a stop is measured: a stage's start, or the answer before and after its first text.
STOP_POINTS = (
    ("planner", "stage_start"),
    ("retrieval", "stage_start"),
    ("compressor", "stage_start"),
    ("reasoning", "stage_start"),
    ("reasoning", "answer_delta"),
    ("reflection", "stage_start"),
)
# After the trigger event, wait this long before the stop, so the stage is under way.
STOP_DELAY_SECONDS = 0.5


class TimedSink:
    """Record each event's time; set the cancel flag when the trigger event arrives."""

    def __init__(self, trigger: tuple[str, str] | None = None) -> None:
        self.events: list[tuple[float, str, dict]] = []
        self.trigger = trigger
        self.cancel_at: float | None = None
        self._lock = threading.Lock()

    def write(self, event_type: str, data) -> None:
        now = time.monotonic()
        with self._lock:
            self.events.append((now, event_type, data or {}))
        if self.trigger and self.cancel_at is None:
            stage, kind = self.trigger
            if event_type == kind and (
                kind == "answer_delta" or (data or {}).get("stage") == stage
            ):
                self.cancel_at = now + STOP_DELAY_SECONDS

    def is_cancelled(self) -> bool:
        return self.cancel_at is not None and time.monotonic() >= self.cancel_at

    def stage_seconds(self) -> dict[str, float]:
        """Return each stage's time from its first start to its last event."""
        starts: dict[str, float] = {}
        ends: dict[str, float] = {}
        for moment, event_type, data in self.events:
            stage = data.get("stage")
            if event_type == "stage_start" and stage not in starts:
                starts[stage] = moment
            elif event_type not in ("stage_start", "answer_delta") and stage:
                # stage_complete, stage_error, or the spec's retrieval_result.
                ends[stage] = moment
        return {s: ends[s] - starts[s] for s in starts if s in ends}

    def first(self, event_type: str) -> float | None:
        return next((moment for moment, kind, _ in self.events if kind == event_type), None)

    def planner_message(self) -> str:
        for _, event_type, data in self.events:
            if event_type == "stage_complete" and data.get("stage") == "planner":
                return str(data.get("message") or "")
        return ""


def ingest(user):
    from knowledge.bulk import TextItem, documents_ingest_inline
    from knowledge.models import KnowledgeBase

    name = "team-docs-speed"
    KnowledgeBase.objects.filter(owner=user, name=name).delete()
    kb = KnowledgeBase.objects.create(owner=user, name=name)
    with tempfile.TemporaryDirectory() as folder:
        files = build_documents(Path(folder))
        items = [TextItem(path.name, path.read_bytes()) for path in files]
        documents_ingest_inline(kb=kb, items=items, user=user)
    return kb


def sample_questions(count: int) -> list[dict]:
    questions = [
        q
        for q in json.loads((DATA / "questions.json").read_text())["questions"]
        if q["kind"] != "followup"
    ]
    step = len(questions) / count
    return [questions[int(i * step)] for i in range(min(count, len(questions)))]


def run_one(question: str, *, provider, kb_id: int, model, sink: TimedSink):
    from queries.pipeline.runner import run_pipeline

    started = time.monotonic()
    outcome = run_pipeline(
        query=question,
        strategy=provider,
        kb_ids=[kb_id],
        sink=sink,
        model=model,
        is_cancelled=sink.is_cancelled,
    )
    return outcome, started, time.monotonic()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--provider", default="local")
    parser.add_argument("--model", default=None)
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--stops", type=int, default=1, help="runs per stop point")
    parser.add_argument("--cold", action="store_true")
    args = parser.parse_args()
    setup()
    from queries.answering.registry import get_strategy

    kb = ingest(bench_user())
    provider = get_strategy(args.provider)
    if args.cold and args.provider == "local":
        from providers.llm import local

        local._close_models()
    else:
        from queries.answering.prompts import ANSWER_PLAIN_SYSTEM

        started = time.monotonic()
        provider.backend.warm_up(system=ANSWER_PLAIN_SYSTEM, model=args.model)
        print(f"warm-up: {time.monotonic() - started:.1f} s")
    rows = []
    print(f"provider: {args.provider}; model: {args.model or provider.default_model()}")
    header = "".join(f"{s[:10]:>11}" for s in STAGES)
    print(f"{'q':<5}{header}{'1st text':>10}{'done':>8}  plan")
    for item in sample_questions(args.questions):
        sink = TimedSink()
        outcome, started, ended = run_one(
            item["question"], provider=provider, kb_id=kb.id, model=args.model, sink=sink
        )
        stages = sink.stage_seconds()
        first = sink.first("answer_delta")
        row = {
            **{s: stages.get(s) for s in STAGES},
            "first_text": (first - started) if first else None,
            "done": ended - started,
        }
        rows.append(row)
        cells = "".join(f"{row[s]:>11.2f}" if row[s] is not None else f"{'-':>11}" for s in STAGES)
        first_text = f"{row['first_text']:>10.2f}" if row["first_text"] else f"{'-':>10}"
        print(f"{item['id']:<5}{cells}{first_text}{row['done']:>8.2f}  {sink.planner_message()}")
        sys.stdout.flush()
    medians = {}
    for key in (*STAGES, "first_text", "done"):
        values = [row[key] for row in rows if row[key] is not None]
        medians[key] = statistics.median(values) if values else None
    cells = "".join(
        f"{medians[s]:>11.2f}" if medians[s] is not None else f"{'-':>11}" for s in STAGES
    )
    first_text = f"{medians['first_text']:>10.2f}" if medians["first_text"] else f"{'-':>10}"
    print(f"{'med':<5}{cells}{first_text}{medians['done']:>8.2f}")
    if not args.stops:
        return
    print("\nstop: seconds from the cancel flag to the end of the run")
    questions = sample_questions(len(STOP_POINTS) * args.stops)
    for number, (stage, kind) in enumerate(STOP_POINTS):
        figures = []
        for attempt in range(args.stops):
            item = questions[(number * args.stops + attempt) % len(questions)]
            sink = TimedSink((stage, kind))
            outcome, _, ended = run_one(
                item["question"], provider=provider, kb_id=kb.id, model=args.model, sink=sink
            )
            if sink.cancel_at is None or outcome.status != "cancelled":
                figures.append(f"not reached ({outcome.status})")
                continue
            figures.append(f"{ended - sink.cancel_at:.2f}")
        where = f"{stage} ({'while text streams' if kind == 'answer_delta' else 'started'})"
        print(f"  {where:<34}{', '.join(figures)}")


if __name__ == "__main__":
    sys.exit(main())
