"""One finished run scored against its question: the shared scorer's result, and what the
run's log tells of retrieval (the expected passage's rank), latency and tokens per stage."""

from __future__ import annotations

from typing import Any

from knowledge.selectors import chunk_list_for_kbs
from queries.compare import RunLog
from queries.evaluation.scoring import retrieval_ranks, score
from queries.models import EvaluationQuestion, QueryRun
from queries.pipeline import stages

# A passage is found in a chunk by its first characters: a chunk boundary may cut the rest.
PASSAGE_PREFIX_CHARS = 120


def question_item(question: EvaluationQuestion) -> dict[str, Any]:
    """Return a set's question as the scorer's item."""
    return {**question.gold, "kind": question.kind, "question": question.question}


def passage_chunk_ids(*, passage: str, kb_ids: list[int], sources: list[str]) -> list[int]:
    """Return the chunks of the knowledge bases that hold the expected passage (in the expected
    files, when the item names them)."""
    words = " ".join(passage.split())[:PASSAGE_PREFIX_CHARS]
    if not words:
        return []
    chunks = chunk_list_for_kbs(kb_ids=kb_ids).filter(text__icontains=words)
    if sources:
        chunks = chunks.filter(document__file_name__in=sources)
    return list(chunks.values_list("id", flat=True))


def run_score(*, question: EvaluationQuestion, run: QueryRun) -> dict[str, Any]:
    """Return the row of one question: its score, verdict, run status, retrieval ranks,
    milliseconds and tokens per stage."""
    item = question_item(question)
    row: dict[str, Any] = {"kind": question.kind, "status": run.status}
    if run.status == QueryRun.Status.SUCCEEDED:
        row.update(score(item, run))
    else:
        # A run that failed or was cancelled answered nothing: it scores as a wrong answer.
        row.update(score(item, _Unanswered()))
        row["verdict"] = ""
    log = RunLog(run)
    row["stage_ms"] = {
        stage: ms for stage, ms in log.durations_ms.items() if stage in stages.STAGES
    }
    row["tokens"] = {
        stage: int(usage.get("total_tokens", 0)) for stage, usage in (run.usage or {}).items()
    }
    if item.get("passage"):
        relevant = passage_chunk_ids(
            passage=item["passage"], kb_ids=run.kb_ids or [], sources=item.get("sources", [])
        )
        ranked = [ref for ref in log.result(stages.RERANKER).get("ids") or [] if ref is not None]
        row.update(
            retrieval_ranks(ranked, relevant) or {"recall_at_k": 0.0, "reciprocal_rank": 0.0}
        )
        row["passage_found"] = bool(relevant)
    if run.duration_ms is not None:
        row["seconds"] = round(run.duration_ms / 1000, 3)
    return row


class _Unanswered:
    answer = ""
    sources: list[dict] = []
    metadata = {"verdict": ""}
    standalone_query = ""
