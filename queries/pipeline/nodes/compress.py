"""Compress: number the evidence blocks; shrink them only above MAX_CONTEXT_CHARS."""

from __future__ import annotations

import logging

from knowledge.chunk_kinds import SECTION_SEPARATOR
from providers.llm.base import RunCancelled, log_failure, public_error
from queries.pipeline import stages
from queries.pipeline.context import run_context
from queries.pipeline.sources import block_label
from queries.pipeline.state import RAGState, question_frame

logger = logging.getLogger(__name__)

# The compression prompt reads at most this much of the context (the spec's limit).
COMPRESS_INPUT_CHARS = 10_000


def context_label(doc: dict) -> str:
    """Return a block's label line: its file name, then the section path it sits under."""
    section = [*(doc.get("section") or [])]
    caption = (doc.get("structure") or {}).get("caption")
    if caption and (not section or section[-1] != caption):
        section.append(caption)
    return SECTION_SEPARATOR.join([block_label(doc), *section])


def build_context(docs: list[dict]) -> str:
    """Number the blocks [1], [2], ... in the order the answer's sources will use."""
    return "\n\n".join(
        f"[{index}] {context_label(doc)}\n{doc.get('text', '')}"
        for index, doc in enumerate(docs, start=1)
    )


def _context_limit(run, context: str) -> int:
    """Return how much context the run's answer may read: the run's limit, or the model's own
    budget when it is lower."""
    limit = run.config.max_context_chars
    try:
        budget = run.strategy.context_budget(context, run.call)
    except RunCancelled:
        raise
    except Exception:
        logger.warning("the strategy's context budget failed; the run's limit holds", exc_info=True)
        budget = None
    if budget:
        # The model's own budget (a small local model reads a long prompt slowly).
        limit = min(limit, budget)
    return limit


def compress(state: RAGState, config) -> dict:
    """Pass short context verbatim; compress long context with the strategy, else truncate."""
    run = run_context(config)
    run.check_cancelled()
    run.emit(stages.STAGE_START, {"stage": stages.COMPRESSOR, "message": "Preparing context..."})
    docs = state.get("context_docs", [])
    if not docs:
        run.emit(
            stages.STAGE_COMPLETE, {"stage": stages.COMPRESSOR, "message": "No context to compress"}
        )
        return {"context": ""}
    context = build_context(docs)
    original = len(context)
    limit = _context_limit(run, context)
    if original <= limit:
        run.emit(
            stages.STAGE_COMPLETE,
            {
                "stage": stages.COMPRESSOR,
                "message": f"Context within limit ({original} chars) — compression skipped",
                "original_chars": original,
                "compressed_chars": original,
            },
        )
        return {"context": context}
    run.call.context_chars = limit
    try:
        compressed = run.strategy.compress(
            question_frame(state), context[:COMPRESS_INPUT_CHARS], run.call
        )
        if not compressed.strip():
            raise ValueError("compression returned no text")
    except RunCancelled:
        raise
    except Exception as exc:
        log_failure(logger, "compression failed", exc)
        run.emit(
            stages.STAGE_ERROR,
            {"stage": stages.COMPRESSOR, "error": public_error(exc)},
        )
        return {"context": context[:limit]}
    ratio = round(len(compressed) / original, 2)
    run.emit(
        stages.STAGE_COMPLETE,
        {
            "stage": stages.COMPRESSOR,
            "message": f"Compressed {original} → {len(compressed)} chars",
            "original_chars": original,
            "compressed_chars": len(compressed),
            "ratio": ratio,
        },
    )
    return {"context": compressed}
