"""The one place a provider name becomes a backend and a strategy.

    provider     backend (providers/llm/)     strategy (ANSWER_STRATEGIES, default)
    openai       OpenAIBackend                model
    ollama       OllamaBackend                model
    local        LlamaCppBackend              quote_first
    extractive   OfflineBackend (no model)    extractive
    a plugin     its ChatBackend class        model

The strategy is an explicit setting (ANSWER_STRATEGIES: "openai=quote_first" puts a server of
one's own behind quotes), never a guess from the server's address.
"""

from __future__ import annotations

from django.conf import settings

from providers.llm.base import ProviderError
from providers.llm.registry import backends_report, get_backend
from queries.answering.extractive import ExtractiveStrategy
from queries.answering.model import ModelStrategy
from queries.answering.quote_first import QuoteFirstStrategy
from queries.answering.strategy import Strategy

STRATEGIES: dict[str, type[Strategy]] = {
    "model": ModelStrategy,
    "quote_first": QuoteFirstStrategy,
    "extractive": ExtractiveStrategy,
}


def strategy_name(name: str) -> str:
    """Return how a provider answers (ANSWER_STRATEGIES; a plugin without an entry: model)."""
    return settings.ANSWER_STRATEGIES.get(name, "model")


def providers_report() -> dict:
    """Return each provider's availability, models and strategy, and the default provider."""
    report = backends_report()
    for name, entry in report["providers"].items():
        entry["strategy"] = strategy_name(name)
    return report


def get_strategy(name: str) -> Strategy:
    """Return the strategy that answers for a provider name, over that provider's backend."""
    backend = get_backend(name)
    chosen = strategy_name(name)
    if chosen not in STRATEGIES:
        raise ProviderError(
            f"ANSWER_STRATEGIES gives {name!r} the strategy {chosen!r}; "
            f"choose one of {', '.join(STRATEGIES)}",
            permanent=True,
            code="unknown_strategy",
        )
    return STRATEGIES[chosen](name, backend)
