"""OpenAI (or any OpenAI-compatible server through OPENAI_BASE_URL)."""

from __future__ import annotations

from django.conf import settings

from providers.llm.chat import ChatModelProvider

MODELS = ["gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-4.1"]


class OpenAIProvider(ChatModelProvider):
    name = "openai"
    label = "OpenAI"

    def __init__(self) -> None:
        self.timeout = settings.LLM_TIMEOUT_SECONDS

    def chat_model(self, *, model, temperature, json_mode, stage=""):
        from langchain_openai import ChatOpenAI

        kwargs = {}
        if settings.OPENAI_BASE_URL:
            kwargs["base_url"] = settings.OPENAI_BASE_URL
        if json_mode:
            kwargs["model_kwargs"] = {"response_format": {"type": "json_object"}}
        return ChatOpenAI(
            model=model or settings.LLM_MODEL,
            temperature=temperature,
            api_key=settings.OPENAI_API_KEY or "missing",
            timeout=settings.LLM_TIMEOUT_SECONDS,
            max_retries=1,
            **kwargs,
        )

    def available(self) -> bool:
        # The key never leaves the server; only whether one is configured.
        return bool(settings.OPENAI_API_KEY)

    def models(self) -> list[str]:
        default = settings.LLM_MODEL
        return [default] + [m for m in MODELS if m != default]

    def default_model(self) -> str:
        return settings.LLM_MODEL
