"""Model backends looked up by provider name; how each answers is queries/answering's choice."""

from __future__ import annotations

from importlib import import_module

from django.conf import settings

from providers.llm.base import ProviderError, public_error
from providers.llm.chat import ChatBackend

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


# Each built-in provider's backend class, imported when asked for (the local one needs the
# optional llama-cpp-python only when used).
BACKENDS = {
    "openai": "providers.llm.openai:OpenAIBackend",
    "ollama": "providers.llm.ollama:OllamaBackend",
    "local": "providers.llm.local:LlamaCppBackend",
    "extractive": "providers.llm.chat:OfflineBackend",
}


def get_backend(name: str) -> ChatBackend:
    """Return the model backend of a provider name (the `extractive` one has no model)."""
    plugins = plugin_providers()
    path = BACKENDS.get(name) or plugins.get(name)
    if path is None:
        raise UnknownProvider(name)
    module, _, attribute = path.partition(":")
    backend_class = getattr(import_module(module), attribute)
    if not (isinstance(backend_class, type) and issubclass(backend_class, ChatBackend)):
        # A plugin written for the providers of before (a whole answer provider).
        raise ProviderError(
            f"the provider plugin {path} is not a chat backend (providers.llm.chat.ChatBackend)",
            permanent=True,
        )
    backend = backend_class()
    backend.name = name
    return backend


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


def backends_report() -> dict:
    """Return each provider's availability and models, and the default provider."""
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
