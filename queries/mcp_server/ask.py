"""The `ask` tool: a normal run, its stages sent as MCP progress notifications.

The run is started as POST /api/query starts one (same input checks, same limits, persisted,
in history, replayable), then followed by reading its log as the events endpoint does, woken
by LISTEN/NOTIFY. Each stage event becomes a progress notification whose progress is the
event's seq (strictly increasing, as MCP requires). A client that cancels the call (a
`notifications/cancelled`, or at 2026-07-28 a closed response) cancels the run: unlike a
dropped SSE stream, an MCP cancel is an explicit request to stop the work.
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

import anyio
from django.conf import settings

from adrag_site.errors import ServiceError
from queries import services
from queries.inputs import QueryInput
from queries.mcp_server import reads
from queries.mcp_server.db import db
from queries.mcp_server.errors import PortalToolError
from queries.models import QueryRun
from queries.pipeline import stages
from queries.streams import STYLE_EVENTSOURCE, run_stream

logger = logging.getLogger(__name__)

# The events sent as progress: every stage's start and end (retrieval ends with its result),
# retries and the end; not the answer as it is written, nor `finalize`.
PROGRESS_TYPES = (
    stages.STAGE_START, stages.STAGE_COMPLETE, stages.STAGE_SKIP, stages.STAGE_ERROR,
    stages.RETRIEVAL_RESULT, stages.RETRY, stages.DONE, stages.ERROR,
)  # fmt: skip


def run_begin(*, user_id: int, body: dict[str, Any], request_id: str) -> QueryRun:
    """Check an ask's arguments as POST /api/query's body and start its run."""
    data = QueryInput(data=body).validated()
    return services.run_start(user=reads.user_of(user_id), data=data, request_id=request_id)


def run_cancel_quietly(run_id: str) -> None:
    """Cancel a run whose caller went away (a run that already ended is left as it is)."""
    try:
        services.run_cancel(run=QueryRun.objects.get(id=run_id))
    except ServiceError:
        pass


def parse_frame(frame: str) -> tuple[int | None, str, dict] | None:
    """Return (seq, type, data) of an EventSource frame; None for a comment (keep-alive).
    A frame without an id is the stream's own notice (waiting, idle timeout), not the log's."""
    seq, kind, payload = None, "", None
    for line in frame.splitlines():
        if line.startswith("id: "):
            seq = int(line[4:])
        elif line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            payload = json.loads(line[6:])
    if payload is None and kind != stages.STREAM_END:
        return None
    return seq, kind, (payload or {}).get("data") or {}


def progress_message(kind: str, data: dict) -> str:
    stage = data.get("stage") or ""
    detail = data.get("message") or data.get("error") or ""
    text = f"{stage} {kind}".strip()
    return f"{text}: {detail}" if detail else text


async def follow(ctx, run_id: str) -> None:
    """Send the run's stage events as progress until its log ends."""
    after, waiting_told = 0, False
    while True:
        stream = run_stream(run_id=run_id, after=after, style=STYLE_EVENTSOURCE)
        async with contextlib.aclosing(stream):
            async for frame in stream:
                event = parse_frame(frame)
                if event is None:
                    continue
                seq, kind, data = event
                if seq is None:
                    if kind == stages.WAITING and not waiting_told:
                        waiting_told = True
                        await ctx.report_progress(after + 0.5, None, f"waiting: {data['message']}")
                    continue
                after = seq
                if kind == stages.STREAM_END:
                    return
                if kind in PROGRESS_TYPES:
                    await ctx.report_progress(seq, None, progress_message(kind, data))
        # The stream's idle timeout ended it; the run goes on: follow it again.


async def ask(ctx, *, user_id: int, body: dict[str, Any], request_id: str, base: str) -> dict:
    """Run a question as a run, reporting its stages, and return its answer and sources."""
    run = await db(run_begin, user_id=user_id, body=body, request_id=request_id)
    run_id = str(run.id)
    try:
        await ctx.report_progress(0, None, f"queued: run {run_id}")
        with anyio.fail_after(settings.MCP_ASK_TIMEOUT_SECONDS):
            await follow(ctx, run_id)
    except TimeoutError:
        raise PortalToolError(
            "timeout",
            f"The run did not end within {settings.MCP_ASK_TIMEOUT_SECONDS:g} s; it goes on: "
            "read it later with get_run.",
            run_id=run_id,
        ) from None
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):
            await db(run_cancel_quietly, run_id)
            logger.info("MCP ask cancelled by its client: run %s cancelled", run_id)
        raise
    summary = await db(reads.run_get, user_id=user_id, run_id=run_id, base=base)
    if summary["status"] != QueryRun.Status.SUCCEEDED:
        raise PortalToolError(
            summary["error_code"] or summary["status"],
            summary["error_message"] or f"The run ended {summary['status']}.",
            run_id=run_id,
            status=summary["status"],
        )
    return summary
