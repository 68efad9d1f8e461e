"""Reason: build the sources, then ask for a cited JSON answer; keep only cited sources."""

from __future__ import annotations

import logging

from knowledge.tables.store import is_computed
from providers.llm.base import RunCancelled, log_failure, public_error
from queries.answering.checks import REFUSAL
from queries.answering.stated import stated_values
from queries.answering.types import BY_MODEL, BY_QUOTE, BY_TABLE
from queries.pipeline import stages
from queries.pipeline.answer_stream import AnswerStream
from queries.pipeline.context import RunContext, run_context
from queries.pipeline.sources import (
    UNABLE,
    build_sources,
    cited_indices,
    computed_answer,
    source_blocks,
)
from queries.pipeline.state import RAGState, question, question_frame

logger = logging.getLogger(__name__)


def reason(state: RAGState, config) -> dict:
    """Write the answer with inline [n] citations, streaming it out as it is written."""
    run = run_context(config)
    run.check_cancelled()
    run.emit(stages.STAGE_START, {"stage": stages.REASONING, "message": "Generating answer..."})
    stream = AnswerStream(
        run.emit,
        attempt=state.get("retry_count", 0) + 1,
        interval=run.config.answer_delta_seconds,
        max_events=run.config.answer_delta_max_events,
    )
    run.call.on_answer_text = stream
    try:
        # An attempt that is no table program's asserts no values as data.
        return {"answer_values": [], **_reason(run, state, stream)}
    finally:
        run.call.on_answer_text = None


def _reason(run: RunContext, state: RAGState, stream: AnswerStream) -> dict:
    docs = state.get("context_docs", [])
    retrying = state.get("retry_count", 0) > 0
    if retrying:
        run.call.temperature = run.config.retry_temperature
    if not docs:
        return _direct(run, state, stream)
    sources = build_sources(docs)
    if is_computed(docs[0]):
        return _computed(run, docs, sources, stream)
    blocks = source_blocks(sources, docs)
    feedback = state.get("feedback", "") if retrying else ""
    try:
        result = run.strategy.answer(
            question_frame(state), state.get("context", ""), blocks, run.call, feedback=feedback
        )
        stream.flush()
    except RunCancelled:
        raise
    except Exception as exc:
        log_failure(logger, "JSON answer failed", exc)
        run.emit(stages.STAGE_ERROR, {"stage": stages.REASONING, "error": public_error(exc)})
        return _plain(run, state, stream, sources, blocks, feedback)
    answer = result.text.strip()
    confidence = round(result.confidence, 2)
    is_sufficient = bool(answer) if result.is_sufficient is None else result.is_sufficient
    key_facts = list(result.key_facts)
    keep = cited_indices(answer, result.cited)
    cited = [source for source in sources if source["index"] in keep]
    complete = {
        "stage": stages.REASONING,
        "message": f"Answer generated with {len(cited)} cited source(s)",
        "confidence": confidence,
        "is_sufficient": is_sufficient,
        "key_facts": key_facts,
    }
    answered_by = result.answered_by or ""
    if result.answered_by:
        # Additive: which of a strategy's ways wrote the answer (quote-first's model, or the
        # passages quoted).
        complete["answered_by"] = result.answered_by
        if result.answered_by == BY_QUOTE:
            complete["message"] += " — by quoting the passages"
    run.emit(stages.STAGE_COMPLETE, complete)
    values = list(result.values)
    if not values and is_sufficient and _a_models_words(run, result, answer):
        values = stated_values(question(state), answer, blocks)
    return {
        "answer": answer,
        "sources": cited,
        "confidence": confidence,
        "key_facts": key_facts,
        "is_sufficient": is_sufficient,
        "answered_by": answered_by,
        # A cell read from a row is asserted as data too (additive `answer_values`), and so
        # are the cells of the cited rows an answer in words states.
        **({"answer_values": values} if values else {}),
    }


def _a_models_words(run: RunContext, result, answer: str) -> bool:
    """Return whether an answer is a model's, in words, and does not decline: the one whose
    values are the cells it states. The extractive quotes assert the values they mean."""
    by_model = result.answered_by == BY_MODEL or (
        result.answered_by is None and run.strategy.kind != "extractive"
    )
    return by_model and not REFUSAL.search(answer)


def _computed(run: RunContext, docs: list[dict], sources: list[dict], stream: AnswerStream) -> dict:
    """Answer with a table program's result (knowledge/tables/store.py). Every provider
    answers so: the value is computed, not written."""
    structure = docs[0]["structure"]
    answer, keep = computed_answer(docs, sources)
    stream(answer)
    stream.flush()
    confidence = round(float(structure.get("confidence") or 0.0), 2)
    run.emit(
        stages.STAGE_COMPLETE,
        {
            "stage": stages.REASONING,
            "message": f"Answer computed from a table with {len(keep)} cited source(s)",
            "confidence": confidence,
            "is_sufficient": True,
            "key_facts": [structure["result"]],
            "answered_by": BY_TABLE,
            # Additive: the program that computed the answer, and its values as data.
            "program": {"words": structure["words"], **structure["program"]},
            "answer_values": list(structure.get("values") or []),
        },
    )
    return {
        "answer": answer,
        "sources": [source for source in sources if source["index"] in keep],
        "confidence": confidence,
        "key_facts": [structure["result"]],
        "is_sufficient": True,
        "answered_by": BY_TABLE,
        "answer_values": list(structure.get("values") or []),
    }


def _direct(run: RunContext, state: RAGState, stream: AnswerStream) -> dict:
    """Answer from the model's own knowledge: no passage was retrieved."""
    try:
        direct = run.strategy.answer_direct(question_frame(state), run.call)
        stream.flush()
        answer, declined = direct.text, direct.is_sufficient is False
        direct_by = direct.answered_by or ""
    except RunCancelled:
        raise
    except Exception as exc:
        log_failure(logger, "direct answer failed", exc)
        run.emit(stages.STAGE_ERROR, {"stage": stages.REASONING, "error": public_error(exc)})
        answer, declined, direct_by = UNABLE, True, ""
    run.emit(
        stages.STAGE_COMPLETE,
        {
            "stage": stages.REASONING,
            "message": "Answered without retrieved context",
            "confidence": 0.5,
        },
    )
    return {
        "answer": answer,
        "sources": [],
        "confidence": 0.5,
        "key_facts": [],
        # A direct answer rests on no passage; one that declines is never shown as verified,
        # nor one a model wrote from its own knowledge (reflect.py).
        "is_sufficient": not declined,
        "answered_by": direct_by,
    }


def _plain(run: RunContext, state: RAGState, stream: AnswerStream, sources, blocks, feedback):
    """Ask for the answer as plain text after the JSON answer failed (the spec's error path)."""
    try:
        answer = run.strategy.answer_plain(
            question_frame(state), state.get("context", ""), blocks, run.call, feedback=feedback
        ).text.strip()
        stream.flush()
    except RunCancelled:
        raise
    except Exception as exc:
        log_failure(logger, "plain answer failed too", exc)
        answer = ""
    # The spec's error path bypasses the citation filter and returns every candidate. A plain
    # answer carries no judgement of its own evidence: None, not False.
    return {
        "answer": answer or UNABLE,
        "sources": sources,
        "confidence": 0.0 if not answer else 0.5,
        "key_facts": [],
        "is_sufficient": None,
        "answered_by": "",
    }
