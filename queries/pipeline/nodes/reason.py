"""Reason: build the sources, then ask for a cited JSON answer; keep only cited sources."""

from __future__ import annotations

import logging
import re

from knowledge.chunk_kinds import KIND_ROW, KIND_TABLE
from knowledge.tables.store import is_computed
from providers.llm.base import RunCancelled, log_failure, public_error
from queries.answering.types import BY_QUOTE, BY_TABLE, SourceBlock
from queries.pipeline import stages
from queries.pipeline.answer_stream import AnswerStream
from queries.pipeline.context import RunContext, run_context
from queries.pipeline.nodes.compress import block_label
from queries.pipeline.state import RAGState, question_frame

logger = logging.getLogger(__name__)

UNABLE = "Unable to generate an answer."
PREVIEW_CHARS = 250
CITATION = re.compile(r"\[(\d+)\]")


def build_sources(docs: list[dict]) -> list[dict]:
    """Return the spec's eight-key source of each context document, 1-based.

    Additive keys that no reference client reads: `section` (the headings above the
    passage), `kind` (prose, list, row, table), for table rows `table` ({caption, headers,
    rows, first_row}) so a card can show a row as a table, and for a passage of a knowledge
    base `document_id` and `chunk_id`, so a citation can open the document at the passage.
    """
    sources = []
    for index, doc in enumerate(docs, start=1):
        text = doc.get("text", "")
        score = doc.get("rerank_score")
        if score is None:
            score = doc.get("score", 0.0)
        source = {
            "index": index,
            "file_name": block_label(doc),
            "source_type": doc.get("source_type", "vector"),
            "url": doc.get("url") or "",
            "page": doc.get("page") if doc.get("page") is not None else "",
            "rerank_score": round(float(score or 0.0), 4),
            "content_preview": text[:PREVIEW_CHARS],
            "content": text,
        }
        source.update(structure_keys(doc))
        if doc.get("chunk_id") is not None and doc.get("document_id") is not None:
            source["document_id"] = int(doc["document_id"])
            source["chunk_id"] = int(doc["chunk_id"])
        sources.append(source)
    return sources


def structure_keys(doc: dict) -> dict:
    """Return a document's additive source keys: its section, kind, and a row's table."""
    keys: dict = {}
    if doc.get("section"):
        keys["section"] = list(doc["section"])
    if doc.get("kind"):
        keys["kind"] = doc["kind"]
    structure = doc.get("structure") or {}
    if doc.get("kind") == KIND_ROW and structure.get("cells"):
        rows, first = [structure["cells"]], structure.get("row")
    elif doc.get("kind") == KIND_TABLE and structure.get("rows"):
        rows, first = structure["rows"], structure.get("first_row")
    else:
        return keys
    keys["table"] = {
        "caption": structure.get("caption") or "",
        "headers": list(structure.get("headers") or []),
        "rows": [list(row) for row in rows],
        "first_row": first,
    }
    return keys


def source_blocks(sources: list[dict], docs: list[dict]) -> list[SourceBlock]:
    """Return the evidence blocks a strategy reads, numbered as the sources are."""
    return [
        SourceBlock(
            index=source["index"],
            file_name=source["file_name"],
            text=source["content"],
            source_type=source["source_type"],
            rerank_score=source["rerank_score"],
            section=tuple(doc.get("section") or ()),
            kind=doc.get("kind") or "",
            structure=doc.get("structure"),
        )
        for source, doc in zip(sources, docs)
    ]


def cited_indices(answer: str, declared) -> set[int]:
    """Return the cited source numbers: those declared by the model, else those in the text."""
    indices: set[int] = set()
    for value in declared or []:
        try:
            indices.add(int(value))
        except (TypeError, ValueError):
            continue
    if not indices:
        indices = {int(n) for n in CITATION.findall(answer or "")}
    return indices


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
    return {
        "answer": answer,
        "sources": cited,
        "confidence": confidence,
        "key_facts": key_facts,
        "is_sufficient": is_sufficient,
        "answered_by": answered_by,
        # A cell read from a row is asserted as data too (additive `answer_values`).
        **({"answer_values": list(result.values)} if result.values else {}),
    }


def computed_answer(docs: list[dict], sources: list[dict], lead: str = "") -> tuple[str, set[int]]:
    """Return a table program's answer (the result first, citing the computed passage, then
    the program in words, citing the rows it read) and the source numbers it cites. `lead`
    goes before the result ("Probably")."""
    structure = docs[0]["structure"]
    rows = [
        source["index"]
        for source, doc in zip(sources, docs)
        if doc.get("chunk_id") in set(structure.get("row_chunks") or [])
    ]
    cited_rows = "".join(f"[{index}]" for index in rows)
    result = f"{lead} {structure['result']}" if lead else structure["result"]
    if rows and not structure.get("computed"):
        # Cells read from rows: the value cites the rows that hold it, the program [1].
        answer = f"{result} {cited_rows}. {structure['words']} [1]."
    else:
        answer = f"{result} [1]. {structure['words']}{' ' + cited_rows if rows else ''}."
    return answer, {1, *rows}


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
    except RunCancelled:
        raise
    except Exception as exc:
        log_failure(logger, "direct answer failed", exc)
        run.emit(stages.STAGE_ERROR, {"stage": stages.REASONING, "error": public_error(exc)})
        answer, declined = UNABLE, True
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
        # A direct answer rests on no passage; one that declines is never shown as verified.
        "is_sufficient": not declined,
        "answered_by": "",
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
