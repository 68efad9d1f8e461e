"""DuckDuckGo web search through the `ddgs` package (optional; needs the network)."""

from __future__ import annotations

from typing import Any


def search(query: str, max_results: int = 5) -> list[dict[str, Any]]:
    """Return up to `max_results` results as {title, href, body}; ImportError if ddgs is absent."""
    from ddgs import DDGS  # an ImportError here is reported by the caller as "not installed"

    with DDGS(timeout=10) as client:
        return list(client.text(query, max_results=max_results) or [])


def available() -> bool:
    """Tell whether the web search package is installed (the network is not probed)."""
    try:
        import ddgs  # noqa: F401
    except ImportError:
        return False
    return True
