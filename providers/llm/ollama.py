"""A local Ollama server, through the `ollama` SDK's streaming `/api/chat`.

JSON tasks pass their schema as `format` (Ollama constrains the output to it); `num_predict`
is the output budget. Closing the stream closes the connection, and Ollama stops generating.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import requests
from django.conf import settings

from providers.llm.base import ProviderError, Usage
from providers.llm.chat import ChatBackend, ChatChunk, ChatRequest, model_loop
from providers.llm.grammar import bounded

PROBE_TIMEOUT_SECONDS = 1.5
PROBE_CACHE_SECONDS = 30.0
_probe: dict = {"at": 0.0, "models": None, "url": ""}
_lock = threading.Lock()
_clients: dict[tuple, Any] = {}


def _client(host: str, timeout: float):
    """Return this process's async client for a server (bound to the model-call loop)."""
    from ollama import AsyncClient

    key = (host, timeout, id(model_loop()))
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = AsyncClient(host=host, timeout=timeout)
            _clients[key] = client
        return client


class OllamaBackend(ChatBackend):
    """A local Ollama server's streaming chat."""

    name = "ollama"
    label = "Ollama"

    def __init__(self) -> None:
        self.timeout = settings.LLM_TIMEOUT_SECONDS
        self.json_format = settings.OLLAMA_STRUCTURED_OUTPUT

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[ChatChunk]:
        from ollama import ResponseError

        fmt: Any = None
        if request.json_mode and request.constrain:
            fmt = bounded(request.schema[1]) if request.schema is not None else "json"
        client = _client(settings.OLLAMA_BASE_URL, float(self.timeout or 120))
        try:
            stream = await client.chat(
                model=request.model or settings.OLLAMA_MODEL,
                messages=request.messages,
                stream=True,
                format=fmt,
                options={"temperature": request.temperature, "num_predict": request.max_tokens},
            )
        except ResponseError as exc:
            raise ProviderError(
                f"Ollama refused the request: {exc.error}", permanent=exc.status_code == 404
            ) from exc
        try:
            async for part in stream:
                text = (part.message.content if part.message else "") or ""
                usage = None
                if part.done:
                    prompt = int(part.prompt_eval_count or 0)
                    output = int(part.eval_count or 0)
                    usage = Usage(
                        input_tokens=prompt,
                        output_tokens=output,
                        total_tokens=prompt + output,
                        calls=1,
                    )
                yield ChatChunk(text=text, usage=usage, finish_reason=part.done_reason)
        except ResponseError as exc:
            raise ProviderError(f"Ollama failed: {exc.error}") from exc
        finally:
            await stream.aclose()

    def _installed_models(self) -> list[str] | None:
        """Ask the server for its models: a short probe, cached so no page waits on it."""
        now = time.monotonic()
        url = settings.OLLAMA_BASE_URL
        if now - _probe["at"] < PROBE_CACHE_SECONDS and _probe["url"] == url:
            return _probe["models"]
        try:
            response = requests.get(url.rstrip("/") + "/api/tags", timeout=PROBE_TIMEOUT_SECONDS)
            response.raise_for_status()
            models = [item["name"] for item in response.json().get("models", [])]
        except Exception:
            models = None
        _probe.update(at=now, models=models, url=url)
        return models

    def available(self) -> bool:
        return self._installed_models() is not None

    def models(self) -> list[str]:
        installed = self._installed_models() or []
        default = settings.OLLAMA_MODEL
        return [default] + [m for m in installed if m != default]

    def default_model(self) -> str:
        return settings.OLLAMA_MODEL
