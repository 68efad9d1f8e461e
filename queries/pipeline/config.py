"""A run's tunables in one place: `PipelineConfig`.

Each tunable has its default (a setting of adrag_site/settings/), the range a re-run may
choose (none: a re-run cannot change it) and its key in the run's configuration snapshot. The
run context (queries/pipeline/context.py) carries one PipelineConfig; `config_snapshot`
(queries/services.py) records it; the re-run input and its OpenAPI schema (queries/inputs.py)
take their fields and ranges from `RERUN_RANGES`; tests/test_readme.py holds the configuration
docs against `TUNABLES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings

from knowledge.retrieval.graph import graph_top_k
from knowledge.retrieval.stores import fusion_weights


@dataclass(frozen=True)
class Tunable:
    setting: str  # its default's name in adrag_site/settings/
    kind: type  # int or float
    rerun: tuple[int, int] | None = None  # the range a re-run may choose; None: it cannot
    help: str = ""


TUNABLES: dict[str, Tunable] = {
    "retrieval_top_k": Tunable(
        "RETRIEVAL_TOP_K", int, (1, 50), "Candidates each store returns (the graph half)."
    ),
    "rerank_top_k": Tunable("RERANK_TOP_K", int, (1, 20), "Passages kept after reranking."),
    "max_context_chars": Tunable(
        "MAX_CONTEXT_CHARS", int, (200, 50_000), "Context the answer reads; compression above."
    ),
    "max_reflection_retries": Tunable(
        "MAX_REFLECTION_RETRIES", int, (0, 5), "Extra answer passes after a failed check."
    ),
    "retry_temperature": Tunable("RETRY_TEMPERATURE", float, None, "A retry's temperature."),
    "answer_delta_seconds": Tunable(
        "ANSWER_DELTA_SECONDS", float, None, "At most one answer_delta event per this interval."
    ),
    "answer_delta_max_events": Tunable(
        "ANSWER_DELTA_MAX_EVENTS", int, None, "answer_delta events per attempt, at most."
    ),
    "rrf_k": Tunable("FUSION_RRF_K", int, None, "Reciprocal rank fusion's k."),
}
# The integer tunables a re-run may change: (lowest, highest).
RERUN_RANGES: dict[str, tuple[int, int]] = {
    name: tunable.rerun for name, tunable in TUNABLES.items() if tunable.rerun
}

# The spec's web search: five results, each scored 0.7 for the reranker.
WEB_RESULTS = 5
WEB_SCORE = 0.7


@dataclass(frozen=True)
class PipelineConfig:
    """Every tunable of one run, fixed for the run."""

    retrieval_top_k: int
    rerank_top_k: int
    max_context_chars: int
    max_reflection_retries: int
    retry_temperature: float
    answer_delta_seconds: float
    answer_delta_max_events: int
    rrf_k: int
    # The RRF weight of each candidate list (the stores, then web), as (name, weight) pairs.
    fusion: tuple[tuple[str, float], ...]
    reranker_enabled: bool = True  # False: no reranking, the fused order is kept
    web_results: int = WEB_RESULTS
    web_score: float = WEB_SCORE

    @classmethod
    def from_settings(cls, **changes: Any) -> PipelineConfig:
        """Return the settings' configuration, with `changes` (tunables by name) applied."""
        values = {name: t.kind(getattr(settings, t.setting)) for name, t in TUNABLES.items()}
        config = cls(**values, fusion=tuple(fusion_weights().items()))
        return replace(config, **changes) if changes else config

    @property
    def fusion_weights(self) -> dict[str, float]:
        return dict(self.fusion)

    def with_overrides(self, overrides: Mapping[str, Any]) -> PipelineConfig:
        """Return this configuration with what a re-run changes: the RERUN_RANGES tunables,
        fusion weights (merged: a list not named keeps its weight) and the reranker switched
        off. Its other keys (provider, model, knowledge bases) are not the pipeline's."""
        changes: dict[str, Any] = {k: overrides[k] for k in RERUN_RANGES if k in overrides}
        if overrides.get("fusion_weights"):
            merged = {**self.fusion_weights, **overrides["fusion_weights"]}
            changes["fusion"] = tuple(merged.items())
        if overrides.get("reranker") is False:
            changes["reranker_enabled"] = False
        return replace(self, **changes)

    def snapshot(self) -> dict[str, Any]:
        """Return what a run records of its pipeline's configuration (config_snapshot adds the
        provider, the models and the chunking)."""
        return {
            "retrieval_top_k": self.retrieval_top_k,
            "graph_top_k": graph_top_k(self.retrieval_top_k),
            "rerank_top_k": self.rerank_top_k,
            "max_context_chars": self.max_context_chars,
            "max_reflection_retries": self.max_reflection_retries,
            "retry_temperature": self.retry_temperature,
            "fusion": {"rrf_k": self.rrf_k, "weights": self.fusion_weights},
            "web_results": self.web_results,
            "web_score": self.web_score,
        }
