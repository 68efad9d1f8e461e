"""External tools: DuckDuckGo web search (5 results at score 0.7) when the plan asks for it."""

from __future__ import annotations

import logging
from typing import Any

from providers import websearch
from providers.llm.base import log_failure, public_error
from queries.pipeline import stages
from queries.pipeline.context import run_context
from queries.pipeline.state import RAGState

logger = logging.getLogger(__name__)


def external_tools(state: RAGState, config) -> dict:
    """Search the web, or report the skip; a missing package or network is a stage_error."""
    run = run_context(config)
    run.check_cancelled()
    if not state.get("use_external", False):
        run.emit(
            stages.STAGE_SKIP,
            {"stage": stages.EXTERNAL_TOOLS, "message": "Web search not needed for this query"},
        )
        return {"web_hits": []}
    run.emit(
        stages.STAGE_START, {"stage": stages.EXTERNAL_TOOLS, "message": "Searching the web..."}
    )
    search = run.web_search or websearch.search
    query = state.get("retrieval_query") or state["query"]
    try:
        results = search(query, run.config.web_results)
    except Exception as exc:
        log_failure(logger, "web search failed", exc)
        run.emit(
            stages.STAGE_ERROR,
            {"stage": stages.EXTERNAL_TOOLS, "error": public_error(exc)},
        )
        return {"web_hits": []}
    hits: list[dict[str, Any]] = []
    for rank, result in enumerate(results[: run.config.web_results], start=1):
        text = (result.get("body") or result.get("snippet") or "").strip()
        if not text:
            continue
        hits.append(
            {
                "text": text,
                "source_type": "web",
                "score": run.config.web_score,
                "url": result.get("href") or result.get("url") or "",
                "title": result.get("title") or "",
                "file_name": result.get("title") or "",
                "rank": rank,
                "found_by": ["web"],
            }
        )
    run.emit(
        stages.STAGE_COMPLETE,
        {
            "stage": stages.EXTERNAL_TOOLS,
            "message": f"Found {len(hits)} web results",
            "web_count": len(hits),
        },
    )
    return {"web_hits": hits}
