"""Tool errors with the REST API's stable codes.

Every failure of a tool call comes back as an MCP tool result with `isError` set, its text
`<code>: <message>`, and `structuredContent` `{"error": {"code", "message", ...}}`: the same
codes as the JSON error bodies of /api/ (docs/api.md), never a JSON-RPC error or a 500.
"""

from __future__ import annotations

import logging
from typing import Any

from django.http import Http404
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError

from adrag_site.errors import ServiceError

logger = logging.getLogger(__name__)

INVALID_ARGUMENTS = "invalid_arguments"
UNKNOWN_TOOL = "unknown_tool"
SERVER_ERROR = "server_error"


class PortalToolError(ToolError):
    """A tool's refusal with a stable code (and extra fields such as `run_id`)."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


def error_result(code: str, message: str, **extra: Any) -> CallToolResult:
    """Return the tool result of a refusal."""
    return CallToolResult(
        content=[TextContent(type="text", text=f"{code}: {message}")],
        structured_content={"error": {"code": code, "message": message, **extra}},
        is_error=True,
    )


def _validation_details(error: ValidationError) -> list[dict[str, str]]:
    return [
        {"field": ".".join(str(part) for part in item["loc"]), "message": item["msg"]}
        for item in error.errors(include_url=False, include_input=False)
    ]


def from_exception(tool: str, exc: BaseException) -> CallToolResult:
    """Return the tool result for what a tool call raised (the SDK wraps a tool's own exception
    in a ToolError whose __cause__ it is)."""
    cause = exc.__cause__ if isinstance(exc, ToolError) and exc.__cause__ is not None else exc
    if isinstance(cause, PortalToolError):
        return error_result(cause.code, cause.message, **cause.extra)
    if isinstance(cause, ServiceError):
        return error_result(cause.code, cause.message, **cause.extra)
    if isinstance(cause, Http404):
        return error_result("not_found", str(cause) or "Not found.")
    if isinstance(cause, ValidationError):
        return error_result(
            INVALID_ARGUMENTS,
            f"The arguments of {tool} are not valid.",
            details=_validation_details(cause),
        )
    if isinstance(exc, ToolError) and not isinstance(exc, UnexpectedToolError):
        if str(exc).startswith("Unknown tool:"):
            return error_result(UNKNOWN_TOOL, str(exc))
        return error_result(INVALID_ARGUMENTS, str(exc))
    logger.error("MCP tool %s failed", tool, exc_info=cause)
    return error_result(SERVER_ERROR, "Internal server error.")
