"""A re-run's overrides: which settings may change, their checks, and where each one takes effect.

A re-run asks the same question with some settings changed. `overrides_validate` checks what a
request asks for; `pipeline_kwargs` turns a run's overrides into the RunContext fields the
executor passes to the pipeline; `config_apply` writes them into the run's configuration
snapshot, so that the snapshot says what the run really ran with and two runs can be compared.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from adrag_site.errors import ServiceError
from knowledge.retrieval.fusion import fusion_weights
from knowledge.retrieval.graph import graph_top_k
from knowledge.selectors import kb_ids_for_user
from providers.reranker import FusedRankOrder
from queries.inputs import INT_RANGES, RerunInput

# The RunContext field each integer setting sets.
CONTEXT_FIELDS = {
    "retrieval_top_k": "retrieval_top_k",
    "rerank_top_k": "rerank_top_k",
    "max_context_chars": "max_context_chars",
    "max_reflection_retries": "max_retries",
}


def overrides_validate(*, raw: Any, user) -> dict[str, Any]:
    """Return the checked overrides of a re-run request; raise ServiceError 400 (404 for a KB)."""
    if raw is None:
        return {}
    checked = RerunInput(data=raw).validated()
    if "knowledge_bases" in checked:
        readable = set(kb_ids_for_user(user=user))
        missing = [k for k in checked["knowledge_bases"] if k not in readable]
        if missing:
            raise ServiceError(404, "not_found", f"No such knowledge base: {missing[0]}.")
    return checked


def pipeline_kwargs(overrides: dict[str, Any]) -> dict[str, Any]:
    """Return the RunContext fields a run's overrides set (for `run_pipeline`)."""
    kwargs: dict[str, Any] = {
        field: overrides[key] for key, field in CONTEXT_FIELDS.items() if key in overrides
    }
    if overrides.get("fusion_weights"):
        kwargs["fusion_weights"] = {**fusion_weights(), **overrides["fusion_weights"]}
    if overrides.get("reranker") is False:
        kwargs["reranker"] = FusedRankOrder()
    return kwargs


def config_apply(config: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Write the overridden settings into a configuration snapshot (in place); return it."""
    for key in INT_RANGES:
        if key in overrides:
            config[key] = overrides[key]
    if "retrieval_top_k" in overrides:
        config["graph_top_k"] = graph_top_k(overrides["retrieval_top_k"])
    if overrides.get("fusion_weights"):
        fusion = config.setdefault("fusion", {})
        fusion["weights"] = {**fusion.get("weights", {}), **overrides["fusion_weights"]}
    if overrides.get("reranker") is False:
        config["reranker"] = {
            "ready": True,
            **FusedRankOrder().describe(),
            "configured": settings.RERANKER_MODEL,
            "enabled": False,
        }
    return config
