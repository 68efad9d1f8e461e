"""/mcp on the portal's web process: the SDK's Streamable HTTP app behind the portal's edge.

adrag_site/asgi.py routes /mcp here by dotted path (`ASGI_MOUNTS`) and runs `lifespan()` in
uvicorn's lifespan: the SDK's session manager needs its task group running before any request.
In front of the SDK's app:
- the Host header is held to ALLOWED_HOSTS (the SDK's own DNS-rebinding check, on by default
  for 127.0.0.1 only, would refuse every other host with 421), answered 400 JSON otherwise;
- the body is read first, up to MAX_BODY_BYTES, and refused 413 `payload_too_large` as every
  other body is, declared or chunked (the web edge's streaming cap raises from `receive()`,
  which inside Starlette would end as a plain 500);
- the request id is set for the log lines of the call, as the Django middleware does.
"""

from __future__ import annotations

import contextlib
import json
import re
import uuid

from django.conf import settings
from django.http.request import split_domain_port, validate_host
from mcp.server.transport_security import TransportSecuritySettings

from adrag_site.logging import request_id_var
from queries.mcp_server.server import build_server

REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


async def _json(send, status: int, message: str, code: str, request_id: str) -> None:
    body = json.dumps({"error": message, "code": code}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"x-request-id", request_id.encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _header(scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return ""


async def _read_body(receive, cap: int) -> bytes | None:
    """Return the whole request body, or None once it passes `cap` bytes."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks)
        size += len(message.get("body", b""))
        if size > cap:
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


class McpMount:
    """The ASGI app serving /mcp, and the lifespan its session manager needs."""

    def __init__(self) -> None:
        self.server = build_server()
        self.app = self.server.streamable_http_app(
            streamable_http_path="/mcp",
            max_request_body_size=settings.MAX_BODY_BYTES,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )

    @contextlib.asynccontextmanager
    async def lifespan(self):
        async with self.server.session_manager.run():
            yield

    async def __call__(self, scope, receive, send):
        incoming = _header(scope, b"x-request-id")
        request_id = incoming if REQUEST_ID.match(incoming) else uuid.uuid4().hex
        token = request_id_var.set(request_id)
        try:
            await self._serve(scope, receive, send, request_id)
        finally:
            request_id_var.reset(token)

    async def _serve(self, scope, receive, send, request_id: str) -> None:
        host, _ = split_domain_port(_header(scope, b"host"))
        if not host or not validate_host(host, settings.ALLOWED_HOSTS):
            return await _json(send, 400, "Invalid Host header.", "bad_request", request_id)
        if scope["method"] != "POST":
            return await self.app(scope, receive, send)
        declared = _header(scope, b"content-length")
        cap = settings.MAX_BODY_BYTES
        too_large = f"Request body too large: the limit here is {cap // (1024 * 1024) or 1} MB."
        if declared.isdigit() and int(declared) > cap:
            return await _json(send, 413, too_large, "payload_too_large", request_id)
        body = await _read_body(receive, cap)
        if body is None:
            return await _json(send, 413, too_large, "payload_too_large", request_id)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


mount = McpMount()
