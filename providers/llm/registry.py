"""Providers looked up by name."""

from __future__ import annotations

from django.conf import settings

from providers.llm.base import AnswerProvider

PROVIDER_NAMES = ("openai", "ollama", "extractive")


class UnknownProvider(ValueError):
    """No provider has that name."""


def get_provider(name: str) -> AnswerProvider:
    """Return a provider instance by name."""
    if name == "openai":
        from providers.llm.openai import OpenAIProvider

        return OpenAIProvider()
    if name == "ollama":
        from providers.llm.ollama import OllamaProvider

        return OllamaProvider()
    if name == "extractive":
        from providers.llm.extractive import ExtractiveProvider

        return ExtractiveProvider()
    raise UnknownProvider(name)


def default_provider_name() -> str:
    """DEFAULT_PROVIDER; otherwise openai when a key is set; otherwise extractive."""
    configured = (settings.DEFAULT_PROVIDER or "").strip().lower()
    if configured in PROVIDER_NAMES:
        return configured
    return "openai" if settings.OPENAI_API_KEY else "extractive"


def providers_report() -> dict:
    """Return each provider's availability and models, and the default provider."""
    report = {}
    for name in PROVIDER_NAMES:
        provider = get_provider(name)
        report[name] = {
            "name": name,
            "label": provider.label,
            "available": bool(provider.available()),
            "models": provider.models(),
            "default_model": provider.default_model(),
        }
    return {"providers": report, "default_provider": default_provider_name()}
