"""The official MCP SDK's client against a live portal, for tests/queries/test_mcp.py and
bench/mcp.py: one session per call of `session`, over Streamable HTTP with a bearer token."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

MODES = ("auto", "legacy")  # the 2026-07-28 era (probed) and the initialize handshake


@contextlib.asynccontextmanager
async def session(url: str, key: str, mode: str = "auto") -> AsyncIterator[Client]:
    """Yield an initialised SDK client on the portal's /mcp as the token `key`."""
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {key}"}, timeout=httpx2.Timeout(30, read=300)
    )
    async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode) as c:
        yield c


def error_of(result) -> dict | None:
    """Return a tool result's {"code", "message", ...} when it is an error, else None."""
    if not result.is_error:
        return None
    return (result.structured_content or {}).get("error") or {"code": None, "text": result.content}
