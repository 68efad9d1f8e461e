"""Model backends looked up by provider name; how each answers is queries/answering's choice."""

from __future__ import annotations

from importlib import import_module

from django.conf import settings

from providers.llm.base import public_error
from providers.llm.chat import ChatBackend, OfflineBackend

BUILTIN_PROVIDERS = ("openai", "ollama", "local", "extractive")


class UnknownProvider(ValueError):
    """No provider has that name."""


def plugin_providers() -> dict[str, str]:
    """Return extra backends from ADRAG_PROVIDER_PLUGINS ("name=package.module:Class,...")."""
    plugins = {}
    for item in settings.ADRAG_PROVIDER_PLUGINS:
        name, _, path = item.partition("=")
        if name.strip() and path.strip():
            plugins[name.strip().lower()] = path.strip()
    return plugins


def provider_names() -> tuple[str, ...]:
    """Return every provider name a request may use."""
    return BUILTIN_PROVIDERS + tuple(n for n in plugin_providers() if n not in BUILTIN_PROVIDERS)


def get_backend(name: str) -> ChatBackend:
    """Return the model backend of a provider name (the `extractive` one has no model)."""
    plugins = plugin_providers()
    if name in plugins and name not in BUILTIN_PROVIDERS:
        module, _, attribute = plugins[name].partition(":")
        backend = getattr(import_module(module), attribute)()
        backend.name = name
        return backend
    if name == "openai":
        from providers.llm.openai import OpenAIBackend

        return OpenAIBackend()
    if name == "ollama":
        from providers.llm.ollama import OllamaBackend

        return OllamaBackend()
    if name == "local":
        from providers.llm.local import LlamaCppBackend

        return LlamaCppBackend()
    if name == "extractive":
        return OfflineBackend()
    raise UnknownProvider(name)


def strategy_name(name: str) -> str:
    """Return how a provider answers (ANSWER_STRATEGIES): model, quote_first or extractive."""
    return settings.ANSWER_STRATEGIES.get(name, "model")


def default_provider_name() -> str:
    """DEFAULT_PROVIDER; else openai when a key or server is set; else local when a model
    file is configured; else extractive."""
    configured = (settings.DEFAULT_PROVIDER or "").strip().lower()
    if configured in provider_names():
        return configured
    if settings.OPENAI_API_KEY or settings.OPENAI_BASE_URL:
        return "openai"
    if settings.LOCAL_MODEL_PATH:
        return "local"
    return "extractive"


def providers_report() -> dict:
    """Return each provider's availability, models and strategy, and the default provider."""
    report = {}
    for name in provider_names():
        try:
            backend = get_backend(name)
            report[name] = {
                "name": name,
                "label": backend.label or name,
                "available": bool(backend.available()),
                "models": backend.models(),
                "default_model": backend.default_model(),
                "strategy": strategy_name(name),
            }
        except Exception as exc:  # one misconfigured provider must not hide the others
            report[name] = {
                "name": name,
                "label": name,
                "available": False,
                "models": [],
                "default_model": "",
                "strategy": strategy_name(name),
                "error": public_error(exc),
            }
    return {"providers": report, "default_provider": default_provider_name()}
