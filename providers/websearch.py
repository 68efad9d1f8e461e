"""Web search through the `ddgs` package (DuckDuckGo and other engines; needs the network).

A search is bounded as a whole (ddgs may try several engines in turn, each with its own
timeout): past WEB_SEARCH_TIMEOUT_SECONDS the stage reports an error and the run goes on
without web results. Failures are ProviderErrors with a message fit for users.
"""

from __future__ import annotations

import concurrent.futures
import logging
from typing import Any

from django.conf import settings

from providers.llm.base import ProviderError

logger = logging.getLogger(__name__)

_pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="web-search")


def _search(query: str, max_results: int, timeout: float) -> list[dict[str, Any]]:
    from ddgs import DDGS

    with DDGS(timeout=max(int(timeout), 1)) as client:
        return list(client.text(query, max_results=max_results) or [])


def search(query: str, max_results: int = 5) -> list[dict[str, Any]]:
    """Return up to `max_results` results as {title, href, body}, or raise ProviderError."""
    timeout = settings.WEB_SEARCH_TIMEOUT_SECONDS
    future = _pool.submit(_search, query, max_results, timeout)
    try:
        return future.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise ProviderError(f"web search did not answer within {timeout:g}s") from None
    except ImportError as exc:
        raise ProviderError(
            "web search is not installed (the ddgs package)", permanent=True
        ) from exc
    except Exception as exc:
        logger.warning("web search failed: %r", exc)
        raise ProviderError(
            f"web search failed ({type(exc).__name__}): is the network reachable?"
        ) from exc


def available() -> bool:
    """Tell whether the web search package is installed (the network is not probed)."""
    try:
        import ddgs  # noqa: F401
    except ImportError:
        return False
    return True
