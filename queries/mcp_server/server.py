"""The MCP server: the SDK's MCPServer with one choke point for every tool call.

`PortalMCP.call_tool` checks the caller's token scope, turns every failure into a tool result
with the REST API's stable codes (errors.py), and writes one audit event per call with the
token used, whatever the outcome (a client's cancel included), written beside the answer.
"""

from __future__ import annotations

import time
from typing import Any

import anyio
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult

from adrag_site.audit import MCP_TOOL_CALL, audit_record
from adrag_site.tokens import ASK, READ
from queries.mcp_server import reads, tools
from queries.mcp_server.db import db_soon
from queries.mcp_server.errors import error_result, from_exception
from queries.mcp_server.principal import PortalTokenVerifier, Principal, current_principal

TOOL_SCOPES = {
    "list_knowledge_bases": READ,
    "search": READ,
    "ask": ASK,
    "get_passages": READ,
    "get_run": READ,
}
UNUSED_ISSUER = "http://localhost"
INSTRUCTIONS = (
    "adRAG answers questions from your team's documents with checked citations. "
    "list_knowledge_bases, then search or ask; get_passages reads around a cited passage."
)


def outcome_of(result: Any) -> str:
    if isinstance(result, CallToolResult) and result.is_error:
        return ((result.structured_content or {}).get("error") or {}).get("code", "error")
    return "ok"


def audit_tool_call(
    principal: Principal | None, tool: str, outcome: str, duration_ms: float, where: dict
) -> None:
    """Record one tool call with the token that made it."""
    actor = reads.user_of(principal.user_id) if principal else None
    audit_record(
        MCP_TOOL_CALL,
        target_type="mcp_tool",
        target_id=tool,
        actor=actor,
        ip=where.get("ip"),
        request_id=where.get("request_id", ""),
        outcome=outcome,
        duration_ms=round(duration_ms, 1),
        scope=principal.scope if principal else None,
        token_kind=principal.token_kind if principal else None,
        token=principal.token_ref if principal else None,
        transport=principal.transport if principal else None,
        run_id=where.get("run_id"),
    )


def _where(context, result) -> dict:
    request = getattr(getattr(context, "_request_context", None), "request", None)
    where: dict[str, Any] = {}
    if request is not None:
        where["ip"] = request.client.host if request.client else None
        where["request_id"] = request.headers.get("x-request-id", "")
    content = result.structured_content if isinstance(result, CallToolResult) else None
    run_id = (content or {}).get("run_id") or ((content or {}).get("error") or {}).get("run_id")
    if run_id:
        where["run_id"] = run_id
    return where


class PortalMCP(MCPServer):
    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        principal = current_principal()
        started = time.perf_counter()
        result, outcome = None, "error"
        try:
            result = await self._checked_call(principal, name, arguments, context)
            outcome = outcome_of(result)
            return result
        except anyio.get_cancelled_exc_class():
            outcome = "cancelled"
            raise
        finally:
            # Written beside the answer, not before it: the caller does not wait for its record.
            elapsed = (time.perf_counter() - started) * 1000
            db_soon(audit_tool_call, principal, name, outcome, elapsed, _where(context, result))

    async def _checked_call(self, principal, name: str, arguments: dict[str, Any], context):
        if principal is None:
            return error_result(
                "not_authenticated", "Authentication credentials were not provided."
            )
        needed = TOOL_SCOPES.get(name)
        if needed is not None and not principal.allows(needed):
            return error_result(
                "insufficient_scope",
                f"This token's scope ({principal.scope}) does not allow {name}: it needs "
                f"the '{needed}' scope.",
            )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            return from_exception(name, exc)


def build_server() -> PortalMCP:
    """Return the portal's MCP server with its tools, authenticating with API tokens."""
    server = PortalMCP(
        "adrag",
        instructions=INSTRUCTIONS,
        token_verifier=PortalTokenVerifier(),
        # No OAuth server here: the issuer only fills the SDK's required field (read by its
        # OAuth routes, which a token verifier alone does not add); the tokens are the portal's
        # own, and every tool needs at least `read`.
        auth=AuthSettings(
            issuer_url=UNUSED_ISSUER, resource_server_url=None, required_scopes=[str(READ)]
        ),
    )
    for fn, hints in tools.TOOLS:
        server.add_tool(fn, annotations=hints)
    return server
