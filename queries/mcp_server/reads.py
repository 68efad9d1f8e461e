"""What the read tools return: the same selectors as the REST API, run on an MCP thread.

Each function takes the caller's user id and returns plain JSON-able data; an id the user may
not read raises Http404 or ServiceError 404 exactly as for a missing one (the 404 rule).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from adrag_site.errors import ServiceError
from knowledge.selectors import document_get_for_user, kb_list_with_counts
from queries.compare import RunLog
from queries.models import QueryRun
from queries.selectors import passage_link, passages_search, run_get_for_user


def user_of(user_id: int):
    return get_user_model().objects.get(pk=user_id)


def knowledge_bases(*, user_id: int) -> list[dict[str, Any]]:
    """Return the knowledge bases the user may read, with their counts."""
    return [
        {
            "id": kb.id,
            "name": kb.name,
            "description": kb.description,
            "team": kb.team.name if kb.team else None,
            "owner": kb.owner.get_username() if kb.owner else None,
            "documents": kb.document_total,
            "chunks": kb.chunk_count,
            "created_at": kb.created_at.isoformat(),
        }
        for kb in kb_list_with_counts(user=user_of(user_id))
    ]


def search(
    *, user_id: int, query: str, kb_ids: list[int] | None, filters: Any, k: int, base: str
) -> dict[str, Any]:
    """Return the k best passages for the query: POST /api/search's selector."""
    return passages_search(
        user=user_of(user_id), query=query, kb_ids=kb_ids, filters=filters, k=k, base=base
    )


def passages(
    *, user_id: int, document_id: int, around: int | None, before: int, after: int, base: str
) -> dict[str, Any]:
    """Return a document's passages around a cited one (or its first ones)."""
    document = document_get_for_user(document_id=document_id, user=user_of(user_id))
    chunks = document.chunks.order_by("ordinal")
    if around is not None:
        cited = chunks.filter(id=around).first()
        if cited is None:
            raise ServiceError(404, "not_found", f"No such passage in this document: {around}.")
        window = chunks.filter(
            ordinal__gte=cited.ordinal - before, ordinal__lte=cited.ordinal + after
        )
    else:
        window = chunks[: before + after + 1]
    rows = list(window.values("id", "ordinal", "page", "section", "kind", "text"))
    for row in rows:
        row["cited"] = row["id"] == around
        row["link"] = passage_link(base, document.id, row["id"], row["page"])
    return {
        "document": {
            "id": document.id,
            "file_name": document.file_name,
            "knowledge_base_id": document.knowledge_base_id,
            "chunks": document.chunks.count(),
        },
        "passages": rows,
    }


def run_summary(run: QueryRun, base: str) -> dict[str, Any]:
    """Return what a finished (or running) run says: answer, sources, verdict, stages."""
    log = RunLog(run)
    return {
        "run_id": str(run.id),
        "status": run.status,
        "query": run.query,
        "answer": run.answer,
        "verdict": (run.metadata or {}).get("verdict"),
        "sources": [
            {
                **source,
                "link": passage_link(
                    base, source.get("document_id"), source.get("chunk_id"), source.get("page")
                ),
            }
            for source in run.sources or []
        ],
        "stages": {
            name: {"status": status, "duration_ms": log.durations_ms.get(name)}
            for name, status in log.status.items()
        },
        "attempts": log.attempts,
        "error_code": run.error_code or None,
        "error_message": run.error_message or None,
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "run_url": f"{base}/api/runs/{run.id}",
        "replay_url": f"{base}/api/runs/{run.id}/events",
    }


def run_get(*, user_id: int, run_id: str, base: str) -> dict[str, Any]:
    return run_summary(run_get_for_user(run_id=run_id, user=user_of(user_id)), base)
