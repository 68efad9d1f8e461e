"""The threads MCP tools reach the database on.

The SDK runs tools on the event loop, outside Django's ASGI handler, so there is no
thread-sensitive context: `thread_sensitive=True` would queue every call of every client on one
global thread. Tools run their ORM work here instead, on a pool of MCP_THREADS (each thread's
connection goes back to the pool after every call, as streams.py's readers do).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections

logger = logging.getLogger(__name__)
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=settings.MCP_THREADS, thread_name_prefix="mcp")
    return _pool


def _closing(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    finally:
        connections.close_all()


async def db(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run `fn(*args, **kwargs)` (ORM work) on an MCP thread and return its result."""
    call = sync_to_async(partial(_closing, fn), thread_sensitive=False, executor=_executor())
    return await call(*args, **kwargs)


def _logged(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    try:
        _closing(fn, *args, **kwargs)
    except Exception:  # noqa: BLE001 - nobody waits for it: log it here
        logger.exception("MCP background work %s failed", getattr(fn, "__name__", fn))


def db_soon(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """Run `fn(*args, **kwargs)` on an MCP thread without waiting for it (a record nobody
    waits on, such as the audit of a call, kept off the answer's path)."""
    _executor().submit(_logged, fn, *args, **kwargs)
