"""The five tools: their arguments (checked by the SDK from these signatures), and the calls
into reads.py and ask.py on behalf of the current principal."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations
from pydantic import Field

from queries.inputs import MAX_SEARCH_PASSAGES, SEARCH_PASSAGES_DEFAULT
from queries.mcp_server import ask as asking
from queries.mcp_server import reads
from queries.mcp_server.db import db
from queries.mcp_server.principal import current_principal

Query = Annotated[str, Field(min_length=1, description="The question or search text.")]
KnowledgeBases = Annotated[
    list[int] | None,
    Field(description="Knowledge base ids to search; omitted: every one you may read."),
]
Filters = Annotated[
    dict[str, Any] | None,
    Field(
        description="Metadata filters, as POST /api/query's: documents (ids), file_types, "
        "uploaded_after, uploaded_before (ISO dates)."
    ),
]
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def _request_info(ctx: Context) -> tuple[str, str]:
    """Return the portal's base URL and the request id of the HTTP request (stdio: none)."""
    request = getattr(ctx.request_context, "request", None) if ctx else None
    if request is None:
        return "", uuid.uuid4().hex
    base = str(request.base_url).rstrip("/")
    return base, request.headers.get("x-request-id") or uuid.uuid4().hex


def _user_id() -> int:
    return current_principal().user_id


async def list_knowledge_bases() -> dict[str, Any]:
    """List the knowledge bases you may read, with their document and passage counts."""
    return {"knowledge_bases": await db(reads.knowledge_bases, user_id=_user_id())}


async def search(
    query: Query,
    ctx: Context,
    knowledge_bases: KnowledgeBases = None,
    filters: Filters = None,
    k: Annotated[
        int, Field(ge=1, le=MAX_SEARCH_PASSAGES, description="How many passages.")
    ] = SEARCH_PASSAGES_DEFAULT,
) -> dict[str, Any]:
    """Search knowledge bases (dense, BM25 and entity-graph retrieval fused by rank) and return
    the best passages with file, page, section, score and a link opening each in the viewer."""
    base, _ = _request_info(ctx)
    return await db(
        reads.search,
        user_id=_user_id(),
        query=query,
        kb_ids=knowledge_bases,
        filters=filters,
        k=k,
        base=base,
    )


async def ask(
    query: Query,
    ctx: Context,
    knowledge_bases: KnowledgeBases = None,
    filters: Filters = None,
    provider: Annotated[
        str | None, Field(description="A provider name; default the portal's.")
    ] = None,
    model: Annotated[
        str | None, Field(description="The provider's model; default its default.")
    ] = None,
    conversation: Annotated[
        uuid.UUID | None, Field(description="Ask a follow-up in this conversation of yours.")
    ] = None,
) -> dict[str, Any]:
    """Ask a question: the full pipeline runs as a run (kept in history, replayable), each stage
    is sent as a progress notification, and the answer comes back with its checked sources,
    verdict, run id and replay URL. Cancelling the call cancels the run."""
    base, request_id = _request_info(ctx)
    body: dict[str, Any] = {"query": query, "knowledge_bases": knowledge_bases, "filters": filters}
    for key, value in (("provider", provider), ("model", model), ("conversation", conversation)):
        if value is not None:
            body[key] = str(value)
    return await asking.ask(ctx, user_id=_user_id(), body=body, request_id=request_id, base=base)


async def get_passages(
    document_id: int,
    ctx: Context,
    around: Annotated[int | None, Field(description="A passage (chunk) id to centre on.")] = None,
    before: Annotated[int, Field(ge=0, le=20)] = 3,
    after: Annotated[int, Field(ge=0, le=20)] = 3,
) -> dict[str, Any]:
    """Return a document's passages around a cited one (or its first passages)."""
    base, _ = _request_info(ctx)
    return await db(
        reads.passages,
        user_id=_user_id(),
        document_id=document_id,
        around=around,
        before=before,
        after=after,
        base=base,
    )


async def get_run(run_id: uuid.UUID, ctx: Context) -> dict[str, Any]:
    """Return a past run's answer, sources, verdict and a summary of its stages."""
    base, _ = _request_info(ctx)
    return await db(reads.run_get, user_id=_user_id(), run_id=str(run_id), base=base)


TOOLS = (
    (list_knowledge_bases, READ_ONLY),
    (search, READ_ONLY),
    (ask, ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)),
    (get_passages, READ_ONLY),
    (get_run, READ_ONLY),
)
