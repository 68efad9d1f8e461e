"""What every page needs to know of the knowledge app: the document stores, in order."""

from __future__ import annotations

from knowledge.retrieval.stores import describe


def stores(request) -> dict:
    """The registered stores (name, label) for the templates and, as JSON, the scripts."""
    return {"adrag_stores": describe()}
