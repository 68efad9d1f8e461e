"""An answer provider backed by a chat model: prompts, bounded streaming calls, cancel.

Every call is a streaming request with an output budget for its task and a deadline. The
stream is read on one event loop thread shared by the process, while the calling (worker)
thread watches the run's cancel check: a cancel or a timeout cancels the reading task, whose
`finally` closes the stream, so the HTTP connection closes and the model server stops
generating (llama.cpp's server and Ollama stop on disconnect; OpenAI stops billing).

Subclasses implement `stream_chat`, an async iterator of `ChatChunk`s for one `ChatRequest`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import re
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from providers.llm import prompts, schemas
from providers.llm.base import (
    AnswerProvider,
    CallContext,
    ProviderError,
    RunCancelled,
    SourceBlock,
    Usage,
)

logger = logging.getLogger(__name__)

CANCEL_POLL_SECONDS = 0.1
# How long a cancelled call waits for its stream to close before the run moves on.
CLOSE_WAIT_SECONDS = 2.0
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)

# Tasks, each with its own output budget (settings.LLM_MAX_TOKENS).
PLAN = "plan"
COMPRESS = "compress"
ANSWER = "answer"
ANSWER_PLAIN = "answer_plain"
DIRECT = "direct"
REFLECT = "reflect"
REWRITE = "rewrite"
CONDENSE = "condense"
# The longest standalone question kept from a model's reply.
MAX_STANDALONE_CHARS = 500
_FENCE_MARKER = re.compile(r"<<<?\s*(?:BEGIN|END)\b[^>]*>*|<{2,}|>{2,}")
# What small models put before the question: "Standalone question:", "User:".
_ANSWER_LABEL = re.compile(
    r"^(?:user|(?:(?:standalone|rewritten|reformulated|new)\s+)?(?:question|query))\s*:\s*",
    re.IGNORECASE,
)


def parse_json(text: str) -> dict[str, Any]:
    """Return the JSON object in a model's reply, tolerating code fences and chatter."""
    match = _JSON_OBJECT.search(text or "")
    if not match:
        raise ProviderError("the model returned no JSON object", code="invalid_json")
    try:
        value = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        raise ProviderError(f"the model returned invalid JSON: {exc}", code="invalid_json") from exc
    if not isinstance(value, dict):
        raise ProviderError("the model's JSON is not an object", code="invalid_json")
    return value


def standalone_line(reply: str) -> str:
    """Return the question in a condense reply: its first line, without labels, quotes or the
    prompt's fence markers (which small models echo)."""
    for line in (reply or "").splitlines():
        line = _FENCE_MARKER.sub(" ", line)
        line = _ANSWER_LABEL.sub("", line.strip()).strip().strip("\"'`“”").strip()
        if line:
            return line[:MAX_STANDALONE_CHARS].strip()
    return ""


def partial_answer(text: str) -> str:
    """Return the `answer` field of a JSON reply that is still being written ('' if none yet)."""
    from langchain_core.utils.json import parse_partial_json

    start = text.find("{")
    if start < 0:
        return ""
    try:
        value = parse_partial_json(text[start:])
    except Exception:
        return ""
    answer = value.get("answer") if isinstance(value, dict) else None
    return answer if isinstance(answer, str) else ""


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


class ChatModelProvider(AnswerProvider):
    """Implements the pipeline's tasks with prompts to a chat model."""

    timeout: float | None = 120.0
    # How JSON tasks constrain the reply: "schema" (their JSON schema), "json_object" (any
    # JSON), or "none" (the prompt only). A provider may still downgrade per server.
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

    def _call(
        self,
        task: str,
        stage: str,
        system: str,
        user: str,
        ctx: CallContext,
        *,
        json_mode: bool,
        on_text: Callable[[str], None] | None = None,
    ) -> str:
        if ctx.is_cancelled():
            raise RunCancelled()
        schema = schemas.BY_STAGE.get(stage) if json_mode and self.json_format == "schema" else None
        request = ChatRequest(
            task=task,
            stage=stage,
            system=system,
            user=user,
            model=ctx.model,
            temperature=ctx.temperature,
            max_tokens=max_tokens_for(task),
            schema=schema,
            json_mode=json_mode,
            constrain=self.json_format != "none",
        )
        try:
            state = self.generate(request, is_cancelled=ctx.is_cancelled, on_text=on_text)
        except (RunCancelled, ProviderError):
            raise
        except Exception as exc:
            logger.warning("model call for %s failed: %r", stage, exc)
            raise ProviderError(f"the model call failed ({type(exc).__name__})") from exc
        ctx.record(stage, state.usage or estimated_usage(request, state))
        return state.text()

    def _answer_stream(self, ctx: CallContext, *, json_reply: bool):
        """Return the callback that hands the answer written so far to the run, if it wants it."""
        if ctx.on_answer_text is None:
            return None
        if not json_reply:
            return ctx.on_answer_text

        def relay(text: str) -> None:
            answer = partial_answer(text)
            if answer:
                ctx.on_answer_text(answer)

        return relay

    def plan(self, query: str, ctx: CallContext) -> dict[str, Any]:
        reply = self._call(
            PLAN,
            "planner",
            prompts.PLANNER_SYSTEM,
            prompts.fence("QUESTION", query),
            ctx,
            json_mode=True,
        )
        plan = parse_json(reply)
        if "retrieve" not in plan:
            raise ProviderError("the plan has no 'retrieve' decision", code="invalid_json")
        return plan

    def compress(self, query: str, context: str, ctx: CallContext) -> str:
        user = prompts.fence("QUESTION", query) + "\n\n" + prompts.fence("CONTEXT", context)
        return self._call(
            COMPRESS, "compressor", prompts.COMPRESS_SYSTEM, user, ctx, json_mode=False
        ).strip()

    def answer(self, query, context, sources, ctx, feedback=""):
        reply = self._call(
            ANSWER,
            "reasoning",
            prompts.ANSWER_SYSTEM,
            prompts.answer_user(context, query, feedback),
            ctx,
            json_mode=True,
            on_text=self._answer_stream(ctx, json_reply=True),
        )
        result = parse_json(reply)
        if "answer" not in result:
            raise ProviderError("the answer JSON has no 'answer'", code="invalid_json")
        return result

    def answer_plain(self, query, context, sources, ctx, feedback=""):
        return self._call(
            ANSWER_PLAIN,
            "reasoning",
            prompts.ANSWER_PLAIN_SYSTEM,
            prompts.answer_user(context, query, feedback),
            ctx,
            json_mode=False,
            on_text=self._answer_stream(ctx, json_reply=False),
        )

    def direct_answer(self, query: str, ctx: CallContext) -> str:
        return self._call(
            DIRECT,
            "reasoning",
            prompts.DIRECT_SYSTEM,
            prompts.fence("QUESTION", query),
            ctx,
            json_mode=False,
            on_text=self._answer_stream(ctx, json_reply=False),
        ).strip()

    def reflect(
        self, query: str, context: str, answer: str, sources: list[SourceBlock], ctx: CallContext
    ):
        user = (
            prompts.fence("CONTEXT", context)
            + "\n\n"
            + prompts.fence("QUESTION", query)
            + "\n\n"
            + prompts.fence("ANSWER", answer)
        )
        verdict = parse_json(
            self._call(REFLECT, "reflection", prompts.REFLECT_SYSTEM, user, ctx, json_mode=True)
        )
        if "grounded" not in verdict:
            raise ProviderError("the verdict has no 'grounded'", code="invalid_json")
        return verdict

    def rewrite_query(self, query: str, feedback: str, ctx: CallContext) -> str:
        if not feedback:
            return query
        user = prompts.fence("QUESTION", query) + "\n\n" + prompts.fence("FEEDBACK", feedback)
        rewritten = self._call(
            REWRITE, "reflection", prompts.REWRITE_SYSTEM, user, ctx, json_mode=False
        ).strip()
        return rewritten.splitlines()[0][:500] if rewritten else query

    def condense_query(self, query: str, history: list[dict[str, str]], ctx: CallContext) -> str:
        if not history:
            return query
        user = (
            prompts.fence("CONVERSATION", prompts.conversation_transcript(history))
            + "\n\n"
            + prompts.fence("QUESTION", query)
            + "\n\n"
            + prompts.CONDENSE_REMINDER
        )
        reply = self._call(
            CONDENSE, "condense", prompts.CONDENSE_SYSTEM, user, ctx, json_mode=False
        )
        return standalone_line(reply) or query
