"""A re-run's overrides: which settings may change, their checks, and where each one takes effect.

A re-run asks the same question with some settings changed. `overrides_validate` checks what a
request asks for; `pipeline_kwargs` turns a run's overrides into the RunContext fields the
executor passes to the pipeline; `config_apply` writes them into the run's configuration
snapshot, so that the snapshot says what the run really ran with and two runs can be compared.
"""

from __future__ import annotations

import math
from typing import Any

from adrag_site.errors import ServiceError

# Integer settings: (lowest, highest), and the RunContext field each one sets.
INT_RANGES = {
    "retrieval_top_k": (1, 50),
    "rerank_top_k": (1, 20),
    "max_context_chars": (200, 50_000),
    "max_reflection_retries": (0, 5),
}
CONTEXT_FIELDS = {
    "retrieval_top_k": "retrieval_top_k",
    "rerank_top_k": "rerank_top_k",
    "max_context_chars": "max_context_chars",
    "max_reflection_retries": "max_retries",
}
FUSION_LISTS = ("vector", "bm25", "graph", "web")
MAX_FUSION_WEIGHT = 100.0
RUN_FIELDS = ("provider", "model", "knowledge_bases")
OVERRIDE_KEYS = (*RUN_FIELDS, *INT_RANGES, "fusion_weights", "reranker")


def _invalid(key: str, message: str) -> ServiceError:
    return ServiceError(400, "invalid_override", f"{key}: {message}", details={"key": key})


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def overrides_validate(*, raw: Any, user) -> dict[str, Any]:
    """Return the checked overrides of a re-run request; raise ServiceError 400 (404 for a KB)."""
    from knowledge.selectors import kb_ids_for_user
    from providers.llm.registry import provider_names
    from queries.models import QueryRun

    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ServiceError(
            400, "invalid_override", "The body must be a JSON object of settings to change."
        )
    unknown = [key for key in raw if key not in OVERRIDE_KEYS]
    if unknown:
        raise ServiceError(
            400,
            "invalid_override",
            f"Unknown override {unknown[0]!r}; the settings a re-run may change are "
            f"{', '.join(OVERRIDE_KEYS)}.",
            details={"key": unknown[0]},
        )
    checked: dict[str, Any] = {}
    if "provider" in raw:
        provider = raw["provider"]
        names = provider_names()
        if not isinstance(provider, str) or provider.lower().strip() not in names:
            raise _invalid("provider", f"must be one of {', '.join(names)}.")
        checked["provider"] = provider.lower().strip()
    if "model" in raw:
        model = raw["model"]
        limit = QueryRun._meta.get_field("model").max_length
        if model is not None and not isinstance(model, str):
            raise _invalid("model", "must be a string, or null for the provider's default.")
        if model and len(model) > limit:
            raise _invalid("model", f"is too long: the limit is {limit} characters.")
        checked["model"] = (model or "").strip() or None
    if "knowledge_bases" in raw:
        kb_ids = raw["knowledge_bases"]
        if not isinstance(kb_ids, list) or not all(_is_int(k) for k in kb_ids):
            raise _invalid("knowledge_bases", "must be a list of knowledge base ids.")
        readable = set(kb_ids_for_user(user=user))
        missing = [k for k in kb_ids if k not in readable]
        if missing:
            raise ServiceError(404, "not_found", f"No such knowledge base: {missing[0]}.")
        checked["knowledge_bases"] = list(dict.fromkeys(kb_ids))
    for key, (lowest, highest) in INT_RANGES.items():
        if key in raw:
            value = raw[key]
            if not _is_int(value) or not lowest <= value <= highest:
                raise _invalid(key, f"must be an integer from {lowest} to {highest}.")
            checked[key] = value
    if "fusion_weights" in raw:
        weights = raw["fusion_weights"]
        if not isinstance(weights, dict) or not weights:
            raise _invalid(
                "fusion_weights", f"must be an object with weights for {', '.join(FUSION_LISTS)}."
            )
        for name, weight in weights.items():
            key = f"fusion_weights.{name}"
            if name not in FUSION_LISTS:
                raise _invalid(key, f"unknown list; the lists are {', '.join(FUSION_LISTS)}.")
            if not _is_number(weight) or not 0 <= weight <= MAX_FUSION_WEIGHT:
                raise _invalid(key, f"must be a number from 0 to {MAX_FUSION_WEIGHT:g}.")
        checked["fusion_weights"] = {name: float(weights[name]) for name in weights}
    if "reranker" in raw:
        if not isinstance(raw["reranker"], bool):
            raise _invalid("reranker", "must be true (the active reranker) or false (fused order).")
        checked["reranker"] = raw["reranker"]
    return checked


def pipeline_kwargs(overrides: dict[str, Any]) -> dict[str, Any]:
    """Return the RunContext fields a run's overrides set (for `run_pipeline`)."""
    from knowledge.retrieval.fusion import fusion_weights
    from providers.reranker import FusedRankOrder

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
    from django.conf import settings

    from knowledge.retrieval.graph import graph_top_k
    from providers.reranker import FusedRankOrder

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
