"""Providers looked up by name."""

from __future__ import annotations

from django.conf import settings

from providers.llm.base import AnswerProvider, public_error

BUILTIN_PROVIDERS = ("openai", "ollama", "local", "extractive")


class UnknownProvider(ValueError):
    """No provider has that name."""


def plugin_providers() -> dict[str, str]:
    """Return extra providers from ADRAG_PROVIDER_PLUGINS ("name=package.module:Class,...")."""
    plugins = {}
    for item in settings.ADRAG_PROVIDER_PLUGINS:
        name, _, path = item.partition("=")
        if name.strip() and path.strip():
            plugins[name.strip().lower()] = path.strip()
    return plugins


def provider_names() -> tuple[str, ...]:
    """Return every provider name a request may use."""
    return BUILTIN_PROVIDERS + tuple(n for n in plugin_providers() if n not in BUILTIN_PROVIDERS)


def get_provider(name: str) -> AnswerProvider:
    """Return a provider instance by name."""
    plugins = plugin_providers()
    if name in plugins and name not in BUILTIN_PROVIDERS:
        from importlib import import_module

        module, _, attribute = plugins[name].partition(":")
        return getattr(import_module(module), attribute)()
    if name == "openai":
        from providers.llm.openai import OpenAIProvider

        return OpenAIProvider()
    if name == "ollama":
        from providers.llm.ollama import OllamaProvider

        return OllamaProvider()
    if name == "local":
        from providers.llm.local import LocalProvider

        return LocalProvider()
    if name == "extractive":
        from providers.llm.extractive import ExtractiveProvider

        return ExtractiveProvider()
    raise UnknownProvider(name)


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
    """Return each provider's availability and models, and the default provider."""
    report = {}
    for name in provider_names():
        try:
            provider = get_provider(name)
            report[name] = {
                "name": name,
                "label": provider.label,
                "available": bool(provider.available()),
                "models": provider.models(),
                "default_model": provider.default_model(),
            }
        except Exception as exc:  # one misconfigured provider must not hide the others
            report[name] = {
                "name": name,
                "label": name,
                "available": False,
                "models": [],
                "default_model": "",
                "error": public_error(exc),
            }
    return {"providers": report, "default_provider": default_provider_name()}
