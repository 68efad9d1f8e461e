"""An evaluation's headline metrics from its per-question scores, and the table that prints
them: shared by the portal's evaluation runs, `manage.py evaluate` and bench/team_answers.py.

A row is one question's `scoring.score` result with its `kind` and, from a run, `stage_ms`
(milliseconds per stage), `tokens` (tokens per stage), and the retrieval ranks when the item
names its expected passage.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from queries.evaluation.scoring import VERDICTS, mean, share
from queries.pipeline import stages

UNANSWERABLE = "unanswerable"
# The headline metrics, in the order the table and the page show them: key, label.
HEADLINE = (
    ("answer_correct", "answer correct"),
    ("fact_first", "answer in the first sentence"),
    ("citation_hit", "citation hit (answered)"),
    ("honest_not_found", "honest not-found (unanswerable)"),
    ("followups_on_topic", "follow-ups kept their topic"),
    ("recall_at_k", "retrieval recall@k"),
    ("mrr", "retrieval MRR"),
)


def percentile(values: list[float], fraction: float) -> float:
    """Return the nearest-rank percentile the bench scripts print (sorted[int(f * (n - 1))])."""
    ordered = sorted(values)
    return ordered[int(fraction * (len(ordered) - 1))]


def stage_latency(rows: list[dict]) -> dict[str, dict[str, float]]:
    """Return p50, p95 and the count of each stage's milliseconds, in pipeline order."""
    latency = {}
    for stage in stages.STAGES:
        values = [row["stage_ms"][stage] for row in rows if stage in (row.get("stage_ms") or {})]
        if values:
            latency[stage] = {
                "p50": round(percentile(values, 0.5), 1),
                "p95": round(percentile(values, 0.95), 1),
                "n": len(values),
            }
    return latency


def stage_tokens(rows: list[dict]) -> dict[str, dict[str, float]]:
    """Return the total and mean tokens of each stage that used any."""
    totals: Counter = Counter()
    for row in rows:
        totals.update({stage: int(n) for stage, n in (row.get("tokens") or {}).items()})
    return {
        stage: {"total": total, "mean": round(total / len(rows), 1)}
        for stage, total in totals.items()
        if total
    }


def summarise(rows: list[dict]) -> dict[str, Any]:
    """Return an evaluation's metrics: the headline shares, the verdicts, per kind, latency
    and tokens per stage."""
    answerable = [row for row in rows if row.get("kind") != UNANSWERABLE]
    unanswerable = [row for row in rows if row.get("kind") == UNANSWERABLE]
    recall, rr = mean(answerable, "recall_at_k"), mean(answerable, "reciprocal_rank")
    headline = {
        "answer_correct": share(answerable, "correct"),
        "fact_first": share(answerable, "right"),
        "citation_hit": share(answerable, "cites_right"),
        "honest_not_found": share(unanswerable, "recognised"),
        "followups_on_topic": share(answerable, "on_topic"),
        "recall_at_k": recall and {"share": recall["mean"], "n": recall["n"]},
        "mrr": rr and {"share": rr["mean"], "n": rr["n"]},
    }
    kinds = sorted({row.get("kind") or "" for row in answerable})
    return {
        "questions": len(rows),
        "headline": headline,
        "false_badges": sum(1 for row in unanswerable if row.get("false_badge")),
        "verdicts": {
            "answerable": _verdicts(answerable),
            UNANSWERABLE: _verdicts(unanswerable),
        },
        "kinds": {
            kind: {
                "n": sum(1 for row in answerable if (row.get("kind") or "") == kind),
                "fact_first": share(
                    [r for r in answerable if (r.get("kind") or "") == kind], "right"
                ),
                "citation_hit": share(
                    [r for r in answerable if (r.get("kind") or "") == kind], "cites_right"
                ),
            }
            for kind in kinds
        },
        "latency_ms": stage_latency(rows),
        "tokens": stage_tokens(rows),
    }


def _verdicts(rows: list[dict]) -> dict[str, int]:
    counted = Counter(row.get("verdict") for row in rows if row.get("verdict"))
    return {verdict: counted.get(verdict, 0) for verdict in VERDICTS}


def _cell(value: dict | None) -> str:
    if not value:
        return "-"
    if "hits" in value:
        return f"{value['share']:.1%} ({value['hits']}/{value['n']})"
    return f"{value['share']:.3f} (n={value['n']})"


def _in_stage_order(values: dict) -> list[tuple[str, dict]]:
    """Return a per-stage dict's items in pipeline order (JSONB keeps no key order)."""
    order = {stage: index for index, stage in enumerate(stages.STAGES)}
    return sorted(values.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))


def table_lines(metrics: dict[str, Any]) -> list[str]:
    """Return the metrics as the text table `manage.py evaluate` and the bench print (in a
    fixed order, whatever order the stored metrics' keys came back in)."""
    lines = [f"questions: {metrics['questions']}"]
    for key, label in HEADLINE:
        lines.append(f"{label:<40}{_cell(metrics['headline'].get(key))}")
    lines.append(f"{'false verified badges (unanswerable)':<40}{metrics['false_badges']}")
    for group in ("answerable", UNANSWERABLE):
        counts = metrics["verdicts"].get(group, {})
        shown = ", ".join(f"{verdict} {counts.get(verdict, 0)}" for verdict in VERDICTS)
        lines.append(f"{'verdicts, ' + group:<40}{shown}")
    for kind, values in sorted(metrics["kinds"].items()):
        lines.append(
            f"{'  kind ' + (kind or '-'):<40}{_cell(values['fact_first'])}"
            f"  cites {_cell(values['citation_hit'])}"
        )
    for stage, values in _in_stage_order(metrics["latency_ms"]):
        lines.append(f"{'  ' + stage + ' ms p50 / p95':<40}{values['p50']} / {values['p95']}")
    for stage, values in _in_stage_order(metrics["tokens"]):
        lines.append(
            f"{'  ' + stage + ' tokens total / mean':<40}{values['total']} / {values['mean']}"
        )
    return lines
