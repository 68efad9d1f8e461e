"""JSON schemas as grammar-constrained servers (llama.cpp, Ollama) get them."""

from __future__ import annotations

from typing import Any

# Grammar-constrained servers (llama.cpp, Ollama) turn a schema into a grammar that a small
# model follows token by token; an unbounded array lets it list [1, 2, 3, ...] until its
# output budget runs out. These bounds stop that. OpenAI's strict format gets the plain schema.
MAX_ITEMS = 6


def bounded(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of a schema whose arrays hold at most MAX_ITEMS items."""
    copy = dict(schema)
    if copy.get("type") == "array":
        copy["maxItems"] = MAX_ITEMS
    if "properties" in copy:
        copy["properties"] = {name: bounded(sub) for name, sub in copy["properties"].items()}
    if "items" in copy and isinstance(copy["items"], dict):
        copy["items"] = bounded(copy["items"])
    return copy
