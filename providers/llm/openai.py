"""OpenAI, or any OpenAI-compatible server through OPENAI_BASE_URL (llama.cpp's, vLLM, ...).

Calls go through the `openai` SDK as streaming chat completions with `max_tokens`, and with
`stream_options.include_usage` so servers that can report usage do. JSON tasks ask for their
schema: OpenAI's `json_schema` format first; a server that rejects it (llama-cpp-python's
server accepts a schema only inside `json_object`) is asked again in the next format down,
and the format that worked is remembered for that server.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import requests
from django.conf import settings

from providers.llm.base import ProviderError, Usage
from providers.llm.chat import CHARS_PER_TOKEN, ChatBackend, ChatChunk, ChatRequest, model_loop
from providers.llm.grammar import bounded

logger = logging.getLogger(__name__)

MODELS = ["gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-4.1"]
PROBE_TIMEOUT_SECONDS = 1.5
PROBE_CACHE_SECONDS = 30.0

# Structured-output formats, best first.
JSON_SCHEMA = "json_schema"
JSON_OBJECT_SCHEMA = "json_object_schema"
JSON_OBJECT = "json_object"
NO_FORMAT = "none"
FORMATS = (JSON_SCHEMA, JSON_OBJECT_SCHEMA, JSON_OBJECT, NO_FORMAT)

_lock = threading.Lock()
_clients: dict[tuple, Any] = {}
# base URL -> the best format that server accepted.
_accepted_format: dict[str, str] = {}
_probe: dict[str, tuple[float, list[str] | None]] = {}


def response_format(fmt: str, request: ChatRequest) -> dict[str, Any] | None:
    """Return the `response_format` of a request in one of the FORMATS."""
    if not request.json_mode or fmt == NO_FORMAT:
        return None
    if request.schema is None or fmt == JSON_OBJECT:
        return {"type": "json_object"}
    name, schema = request.schema
    if fmt == JSON_SCHEMA:
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }
    return {"type": "json_object", "schema": bounded(schema)}


def request_payload(request: ChatRequest, fmt: str) -> dict[str, Any]:
    """Return the body of a streaming chat completion for a request in format `fmt`."""
    payload: dict[str, Any] = {
        "model": request.model or settings.LLM_MODEL,
        "messages": request.messages,
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    rf = response_format(fmt, request)
    if rf is not None:
        payload["response_format"] = rf
    if cache_prompt():
        # llama.cpp's server keeps the prompt's KV cache for the next request that shares its
        # start (the system prompt; the context on a retry); OpenAI itself rejects the field.
        payload["extra_body"] = {"cache_prompt": True}
    return payload


def self_hosted() -> bool:
    """Return whether OPENAI_BASE_URL names a server of one's own, not OpenAI's API."""
    base = (settings.OPENAI_BASE_URL or "").lower()
    return bool(base) and "api.openai.com" not in base


def cache_prompt() -> bool:
    """Return whether requests ask the server to cache the prompt: OPENAI_CACHE_PROMPT, by
    default on for a self-hosted server."""
    configured = settings.OPENAI_CACHE_PROMPT
    if configured in ("true", "false"):
        return configured == "true"
    return self_hosted()


def _client(base_url: str, api_key: str, timeout: float):
    """Return this process's async client for a server (bound to the model-call loop)."""
    from openai import AsyncOpenAI

    key = (base_url, api_key, timeout, id(model_loop()))
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = AsyncOpenAI(
                base_url=base_url or None, api_key=api_key, timeout=timeout, max_retries=1
            )
            _clients[key] = client
        return client


def _rejects_format(exc) -> bool:
    """Whether a refused request was refused for its response_format (or as a bad request).

    llama-cpp-python's server answers a `json_schema` format with a 500 naming the field.
    """
    status = getattr(exc, "status_code", 0)
    return status in (400, 422) or "response_format" in str(exc)


def _usage(raw) -> Usage | None:
    if raw is None:
        return None
    return Usage(
        input_tokens=int(getattr(raw, "prompt_tokens", 0) or 0),
        output_tokens=int(getattr(raw, "completion_tokens", 0) or 0),
        total_tokens=int(getattr(raw, "total_tokens", 0) or 0),
        calls=1,
    )


class OpenAIBackend(ChatBackend):
    """OpenAI's API, or any server that speaks its chat completions (OPENAI_BASE_URL)."""

    name = "openai"
    label = "OpenAI"

    def __init__(self) -> None:
        self.timeout = settings.LLM_TIMEOUT_SECONDS
        self.base_url = settings.OPENAI_BASE_URL
        configured = settings.OPENAI_STRUCTURED_OUTPUT
        self.json_format = {NO_FORMAT: "none", JSON_OBJECT: "json_object"}.get(configured, "schema")

    def context_chars(self, context: str, model: str | None) -> int | None:
        """OPENAI_CONTEXT_TOKENS (0: none) at four characters a token: the server's tokenizer
        is out of reach. A small model behind a server of one's own reads a long prompt
        slowly; a hosted model needs no budget of its own."""
        tokens = settings.OPENAI_CONTEXT_TOKENS
        return tokens * CHARS_PER_TOKEN if tokens else None

    def _formats(self, request: ChatRequest) -> list[str]:
        if not request.json_mode:
            return [NO_FORMAT]
        configured = settings.OPENAI_STRUCTURED_OUTPUT
        if configured in FORMATS and configured != "auto":
            return [configured]
        start = _accepted_format.get(self.base_url, JSON_SCHEMA)
        return list(FORMATS[FORMATS.index(start) :])

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[ChatChunk]:
        import openai

        client = _client(
            self.base_url, settings.OPENAI_API_KEY or "not-needed", float(self.timeout or 120)
        )
        formats = self._formats(request)
        for position, fmt in enumerate(formats):
            payload = request_payload(request, fmt)
            try:
                stream = await client.chat.completions.create(**payload)
            except openai.APIStatusError as exc:
                if not _rejects_format(exc):
                    if isinstance(exc, openai.AuthenticationError):
                        raise ProviderError(
                            "the server rejected the API key", permanent=True
                        ) from exc
                    raise ProviderError(f"{type(exc).__name__}: {exc}") from exc
                if position + 1 < len(formats):
                    logger.info(
                        "server rejected response_format %s; trying %s", fmt, formats[position + 1]
                    )
                    continue
                logger.warning("model server refused every response_format: %r", exc)
                raise ProviderError(
                    f"the model server refused the request ({exc.status_code})", permanent=True
                ) from exc
            except openai.APIError as exc:
                logger.warning("model server unreachable: %r", exc)
                raise ProviderError(
                    f"the model server could not be reached ({type(exc).__name__})"
                ) from exc
            if request.json_mode:
                _accepted_format[self.base_url] = fmt
            async with stream:
                async for chunk in stream:
                    usage = _usage(getattr(chunk, "usage", None))
                    text, finish = "", None
                    if chunk.choices:
                        choice = chunk.choices[0]
                        text = (choice.delta.content if choice.delta else None) or ""
                        finish = choice.finish_reason
                    if text or usage or finish:
                        yield ChatChunk(text=text, usage=usage, finish_reason=finish)
            return

    def _server_models(self) -> list[str] | None:
        """Ask an OpenAI-compatible server for its models: short, cached probe."""
        if not self.base_url:
            return None
        now = time.monotonic()
        cached = _probe.get(self.base_url)
        if cached and now - cached[0] < PROBE_CACHE_SECONDS:
            return cached[1]
        try:
            response = requests.get(
                self.base_url.rstrip("/") + "/models",
                headers={"Authorization": f"Bearer {settings.OPENAI_API_KEY or 'not-needed'}"},
                timeout=PROBE_TIMEOUT_SECONDS,
            )
            response.raise_for_status()
            models = [str(item["id"]) for item in response.json().get("data", [])]
        except Exception:
            models = None
        _probe[self.base_url] = (now, models)
        return models

    def available(self) -> bool:
        # The key never leaves the server; only whether one is configured (or a server answers).
        if self.base_url:
            return self._server_models() is not None
        return bool(settings.OPENAI_API_KEY)

    def models(self) -> list[str]:
        default = settings.LLM_MODEL
        listed = self._server_models() if self.base_url else MODELS
        return [default] + [m for m in (listed or []) if m != default]

    def default_model(self) -> str:
        return settings.LLM_MODEL
