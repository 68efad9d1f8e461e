"""The web tier's edge: request bodies capped before Django reads them, JSON for every error.

The portal runs under uvicorn (h11). Uvicorn hands the body to the application as it arrives
and parses nothing (daphne, on Twisted, read the whole body and parsed multipart forms into
memory before Django ran, about 12x the body's size). Three pieces here:

- `BodyLimitMiddleware` wraps the Django ASGI application. A request whose Content-Length is
  over its path's cap is answered 413 at once, without reading a byte of the body; a body
  without a (truthful) Content-Length, chunked or not, is counted as Django reads it and
  refused with 413 the moment it passes the cap. Django then spools what it reads to a
  temporary file past 2.5 MB, so memory stays flat whatever the size.
- `PathRouter` serves the ASGI mounts beside Django (the MCP server at /mcp) and runs their
  lifespans: the portal runs with uvicorn's `--lifespan on`.
- `JsonH11Protocol` is uvicorn's h11 protocol with its one plain-text response (400 for a
  request it cannot parse: a header with a NUL, a request line over the limit) made JSON.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from django.conf import settings
from uvicorn.protocols.http.h11_impl import H11Protocol

# Paths whose bodies carry uploaded files; every other body is held to MAX_BODY_BYTES.
UPLOAD_PATHS = (
    re.compile(r"^/api/knowledge-bases/[^/]+/documents/?$"),
    re.compile(r"^/api/upload/?$"),
)


class BodyTooLarge(Exception):
    """The request body passed its cap while it was being read."""


def body_cap(path: str) -> int:
    """Return the most bytes a request body to `path` may have."""
    if any(pattern.match(path) for pattern in UPLOAD_PATHS):
        return settings.MAX_UPLOAD_REQUEST_MB * 1024 * 1024
    return settings.MAX_BODY_BYTES


def _json_response(status: int, message: str, code: str) -> tuple[dict, bytes]:
    body = json.dumps({"error": message, "code": code}).encode()
    return {
        "type": "http.response.start",
        "status": status,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ],
    }, body


def _too_large(cap: int) -> tuple[dict, bytes]:
    return _json_response(
        413, f"Request body too large: the limit here is {cap // (1024 * 1024) or 1} MB.",
        "payload_too_large",
    )  # fmt: skip


class BodyLimitMiddleware:
    """Refuse bodies over their cap before (or while) they are read."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        cap = body_cap(scope.get("path", ""))
        declared = None
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
        if declared is not None and declared < 0:
            start, body = _json_response(400, "Invalid Content-Length.", "bad_request")
            await send(start)
            await send({"type": "http.response.body", "body": body})
            return
        if declared is not None and declared > cap:
            start, body = _too_large(cap)
            await send(start)
            await send({"type": "http.response.body", "body": body})
            return
        received = 0
        started = False

        async def counted_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > cap:
                    raise BodyTooLarge()
            return message

        async def tracked_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except BodyTooLarge:
            # Django reads the whole body before any view runs, so nothing was sent yet.
            if not started:
                start, body = _too_large(cap)
                await send(start)
                await send({"type": "http.response.body", "body": body})


class PathRouter:
    """Serve the mounts (a path prefix and an ASGI app, such as the MCP server at /mcp) beside
    Django, and run their lifespans in the server's (Django has none of its own).

    A mount's own `lifespan()` (an async context manager) is entered at startup and left at
    shutdown; one that fails to start stops the web process, as uvicorn's lifespan "on" does.
    """

    def __init__(self, app, mounts: dict[str, Any]) -> None:
        self.app = app
        self.mounts = mounts

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self._lifespan(receive, send)
        path = scope.get("path", "")
        for prefix, mount in self.mounts.items():
            if path == prefix or path.startswith(prefix + "/"):
                return await mount(scope, receive, send)
        return await self.app(scope, receive, send)

    async def _lifespan(self, receive, send) -> None:
        await receive()  # lifespan.startup
        async with contextlib.AsyncExitStack() as stack:
            try:
                for mount in self.mounts.values():
                    if hasattr(mount, "lifespan"):
                        await stack.enter_async_context(mount.lifespan())
            except Exception as exc:  # noqa: BLE001 - reported to the server, which stops
                await send({"type": "lifespan.startup.failed", "message": repr(exc)})
                return
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
        await send({"type": "lifespan.shutdown.complete"})


class JsonH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, answering requests it cannot parse with JSON."""

    def send_400_response(self, msg: str) -> None:
        import h11

        body = json.dumps({"error": f"Malformed request: {msg}", "code": "bad_request"}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        try:
            self.transport.write(
                self.conn.send(
                    h11.Response(status_code=400, headers=headers, reason=b"Bad Request")
                )
            )
            self.transport.write(self.conn.send(h11.Data(data=body)))
            self.transport.write(self.conn.send(h11.EndOfMessage()))
        except h11.LocalProtocolError:
            pass
        self.transport.close()


def uvicorn_command(
    python: str, host: str, port: int, forwarded_allow_ips: str | None = None
) -> list[str]:
    """Return the command that serves the portal.

    X-Forwarded-* headers are trusted only from the proxies FORWARDED_ALLOW_IPS names. Without
    it (the default: `make run` serves browsers directly) no forwarded header is trusted,
    whoever sends it: uvicorn's own default would trust them from 127.0.0.1, so any process on
    the machine, or a proxy passing the client's header on, could pick the client address
    the login throttle counts by.
    """
    if forwarded_allow_ips is None:
        from django.conf import settings

        forwarded_allow_ips = settings.FORWARDED_ALLOW_IPS
    proxies = (
        ["--proxy-headers", "--forwarded-allow-ips", forwarded_allow_ips]
        if forwarded_allow_ips.strip()
        else ["--no-proxy-headers"]
    )
    return [
        python, "-m", "uvicorn", "adrag_site.asgi:application",
        "--host", host, "--port", str(port),
        "--http", "adrag_site.server:JsonH11Protocol",
        "--lifespan", "on", "--no-server-header",
        "--timeout-graceful-shutdown", "5",
        *proxies,
    ]  # fmt: skip
