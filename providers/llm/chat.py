"""A chat backend: one kind of model server, one thing done, a chat reply streamed.

Every call is a streaming request with an output budget for its task and a deadline. The
stream is read on one event loop thread shared by the process, while the calling (worker)
thread watches the run's cancel check: a cancel or a timeout cancels the reading task, whose
`finally` closes the stream, so the HTTP connection closes and the model server stops
generating (llama.cpp's server and Ollama stop on disconnect; OpenAI stops billing).

A backend implements `stream_chat`, an async iterator of `ChatChunk`s for one `ChatRequest`
(llama.cpp in-process overrides `generate` instead: its tokens come in the calling thread).
What to ask and how to read the reply is an answering strategy's business.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from providers.llm.base import CallContext, ProviderError, RunCancelled, Usage

logger = logging.getLogger(__name__)

CANCEL_POLL_SECONDS = 0.1
# How long a cancelled call waits for its stream to close before the run moves on.
CLOSE_WAIT_SECONDS = 2.0

# Tasks, each with its own output budget (settings.LLM_MAX_TOKENS).
PLAN = "plan"
COMPRESS = "compress"
ANSWER = "answer"
ANSWER_PLAIN = "answer_plain"
DIRECT = "direct"
REFLECT = "reflect"
REWRITE = "rewrite"
CONDENSE = "condense"
TABLE_QUERY = "table_query"
# A small model's context budget in characters per token when its tokenizer is out of reach:
# English runs about four characters to a token.
CHARS_PER_TOKEN = 4


@dataclass
class ChatRequest:
    """One call to a chat model."""

    task: str
    stage: str
    system: str
    user: str
    model: str | None
    temperature: float
    max_tokens: int
    # (name, JSON schema) for JSON tasks when structured output is on; None otherwise.
    schema: tuple[str, dict[str, Any]] | None = None
    # The reply must be JSON, and the server is asked to constrain it (when `constrain`).
    json_mode: bool = False
    constrain: bool = True

    @property
    def messages(self) -> list[dict[str, str]]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]


@dataclass
class ChatChunk:
    """A piece of a streamed reply: text, and the usage when the server reports it."""

    text: str = ""
    usage: Usage | None = None
    finish_reason: str | None = None


@dataclass
class Generation:
    """A reply as it is generated: its text pieces, their count and the reported usage."""

    parts: list[str] = field(default_factory=list)
    chunks: int = 0
    usage: Usage | None = None
    finish_reason: str | None = None
    version: int = 0
    closed: threading.Event = field(default_factory=threading.Event)

    def append(self, text: str) -> None:
        self.parts.append(text)
        self.chunks += 1
        self.version += 1

    def text(self) -> str:
        return "".join(self.parts)


class _LoopThread:
    """One event loop in a daemon thread, shared by every model call of this process."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.lock = threading.Lock()

    def get(self) -> asyncio.AbstractEventLoop:
        with self.lock:
            if self.loop is None or self.loop.is_closed():
                self.loop = asyncio.new_event_loop()
                threading.Thread(
                    target=self.loop.run_forever, name="model-calls", daemon=True
                ).start()
            return self.loop


_loop_thread = _LoopThread()


def model_loop() -> asyncio.AbstractEventLoop:
    """Return the event loop every model call of this process runs on."""
    return _loop_thread.get()


async def _consume(stream: AsyncIterator[ChatChunk], state: Generation) -> None:
    try:
        async for chunk in stream:
            if chunk.text:
                state.append(chunk.text)
            if chunk.usage is not None:
                state.usage = chunk.usage
            if chunk.finish_reason:
                state.finish_reason = chunk.finish_reason
    finally:
        # Closing the generator closes its HTTP response: the server sees the disconnect.
        try:
            await stream.aclose()
        finally:
            state.closed.set()


def stream_cancellable(
    stream: AsyncIterator[ChatChunk],
    *,
    is_cancelled: Callable[[], bool],
    timeout: float | None,
    on_text: Callable[[str], None] | None = None,
) -> Generation:
    """Read a reply stream to its end, closing it at once on cancel or timeout.

    The stream is read on the shared loop thread; this thread polls the cancel check (which
    may read the database) and hands the text so far to `on_text` as it grows.
    """
    state = Generation()
    future = asyncio.run_coroutine_threadsafe(_consume(stream, state), model_loop())
    deadline = time.monotonic() + timeout if timeout else None
    seen = 0
    while True:
        try:
            future.result(timeout=CANCEL_POLL_SECONDS)
            break
        except concurrent.futures.TimeoutError:
            pass
        if on_text is not None and state.version != seen:
            seen = state.version
            on_text(state.text())
        if is_cancelled():
            future.cancel()
            state.closed.wait(CLOSE_WAIT_SECONDS)
            raise RunCancelled()
        if deadline and time.monotonic() > deadline:
            future.cancel()
            state.closed.wait(CLOSE_WAIT_SECONDS)
            raise ProviderError(f"the model did not finish within {timeout:.0f}s", code="timeout")
    if on_text is not None and state.version != seen:
        on_text(state.text())
    return state


def estimated_usage(request: ChatRequest, state: Generation) -> Usage:
    """Usage for a server that reports none: streamed chunks (one token each on llama.cpp's
    server) and about four characters per prompt token."""
    prompt_chars = len(request.system) + len(request.user)
    input_tokens = max(1, prompt_chars // 4)
    return Usage(
        input_tokens=input_tokens,
        output_tokens=state.chunks,
        total_tokens=input_tokens + state.chunks,
        calls=1,
        estimated=True,
    )


def max_tokens_for(task: str) -> int:
    """Return the output budget of a task (settings.LLM_MAX_TOKENS)."""
    return int(settings.LLM_MAX_TOKENS.get(task, settings.LLM_MAX_TOKENS["default"]))


class ChatBackend:
    """Talks to one kind of chat model and streams its replies; knows nothing of questions."""

    name: str = ""
    label: str = ""
    timeout: float | None = 120.0
    # How JSON requests constrain the reply: "schema" (their JSON schema), "json_object" (any
    # JSON), or "none" (the prompt only). A backend may still downgrade per server.
    json_format: str = "schema"

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[ChatChunk]:
        """Yield the reply to one request as it is generated."""
        raise NotImplementedError
        yield  # pragma: no cover

    def generate(
        self,
        request: ChatRequest,
        *,
        is_cancelled: Callable[[], bool],
        on_text: Callable[[str], None] | None,
    ) -> Generation:
        """Return the whole reply to one request, stopping it on cancel or timeout."""
        return stream_cancellable(
            self.stream_chat(request),
            is_cancelled=is_cancelled,
            timeout=self.timeout,
            on_text=on_text,
        )

    def request(
        self,
        task: str,
        stage: str,
        *,
        system: str,
        user: str,
        ctx: CallContext,
        schema: tuple[str, dict[str, Any]] | None = None,
    ) -> ChatRequest:
        """Return the request for one task; `schema` (name, JSON schema) asks for JSON."""
        return ChatRequest(
            task=task,
            stage=stage,
            system=system,
            user=user,
            model=ctx.model,
            temperature=ctx.temperature,
            max_tokens=max_tokens_for(task),
            schema=schema if schema is not None and self.json_format == "schema" else None,
            json_mode=schema is not None,
            constrain=self.json_format != "none",
        )

    def complete(
        self, request: ChatRequest, ctx: CallContext, on_text: Callable[[str], None] | None = None
    ) -> str:
        """Return the reply's text, recording its usage under the request's stage."""
        if ctx.is_cancelled():
            raise RunCancelled()
        try:
            state = self.generate(request, is_cancelled=ctx.is_cancelled, on_text=on_text)
        except (RunCancelled, ProviderError):
            raise
        except Exception as exc:
            logger.warning("model call for %s failed: %r", request.stage, exc)
            raise ProviderError(f"the model call failed ({type(exc).__name__})") from exc
        ctx.record(request.stage, state.usage or estimated_usage(request, state))
        return state.text()

    def context_chars(self, context: str, model: str | None) -> int | None:
        """Return how many characters of this context the model reads well, or None when the
        run's own limit (MAX_CONTEXT_CHARS) is the only one."""
        return None

    def warm_up(self, *, system: str, model: str | None = None) -> None:
        """Load the model and read a prompt's fixed start, where the backend can keep it."""

    def available(self) -> bool:
        raise NotImplementedError

    def models(self) -> list[str]:
        raise NotImplementedError

    def default_model(self) -> str:
        raise NotImplementedError


class OfflineBackend(ChatBackend):
    """No model at all: the `extractive` provider answers by rules and quotes alone."""

    name = "extractive"
    label = "Extractive (offline)"

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[ChatChunk]:
        raise ProviderError("the extractive provider has no model to ask", permanent=True)
        yield  # pragma: no cover

    def available(self) -> bool:
        return True

    def models(self) -> list[str]:
        return ["extractive"]

    def default_model(self) -> str:
        return "extractive"
