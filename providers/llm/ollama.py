"""A local Ollama server."""

from __future__ import annotations

import time

import requests
from django.conf import settings

from providers.llm.chat import ChatModelProvider

PROBE_TIMEOUT_SECONDS = 1.5
PROBE_CACHE_SECONDS = 30.0
_probe: dict = {"at": 0.0, "models": None}


class OllamaProvider(ChatModelProvider):
    name = "ollama"
    label = "Ollama"

    def __init__(self) -> None:
        self.timeout = settings.LLM_TIMEOUT_SECONDS

    def chat_model(self, *, model, temperature, json_mode, stage=""):
        from langchain_ollama import ChatOllama

        return ChatOllama(
            model=model or settings.OLLAMA_MODEL,
            base_url=settings.OLLAMA_BASE_URL,
            temperature=temperature,
            format="json" if json_mode else None,
            client_kwargs={"timeout": settings.LLM_TIMEOUT_SECONDS},
        )

    def _installed_models(self) -> list[str] | None:
        """Ask the server for its models: a short probe, cached so no page waits on it."""
        now = time.monotonic()
        if now - _probe["at"] < PROBE_CACHE_SECONDS:
            return _probe["models"]
        try:
            response = requests.get(
                settings.OLLAMA_BASE_URL.rstrip("/") + "/api/tags", timeout=PROBE_TIMEOUT_SECONDS
            )
            response.raise_for_status()
            models = [item["name"] for item in response.json().get("models", [])]
        except Exception:
            models = None
        _probe.update(at=now, models=models)
        return models

    def available(self) -> bool:
        return self._installed_models() is not None

    def models(self) -> list[str]:
        installed = self._installed_models() or []
        default = settings.OLLAMA_MODEL
        return [default] + [m for m in installed if m != default]

    def default_model(self) -> str:
        return settings.OLLAMA_MODEL
