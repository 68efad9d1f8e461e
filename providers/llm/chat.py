"""An answer provider backed by a LangChain chat model (OpenAI, Ollama, or a scripted one)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from providers.llm import prompts
from providers.llm.base import (
    AnswerProvider,
    CallContext,
    ProviderError,
    RunCancelled,
    SourceBlock,
    Usage,
)

CANCEL_POLL_SECONDS = 0.1
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


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


def _usage_of(message) -> Usage:
    meta = getattr(message, "usage_metadata", None) or {}
    return Usage(
        input_tokens=int(meta.get("input_tokens", 0) or 0),
        output_tokens=int(meta.get("output_tokens", 0) or 0),
        total_tokens=int(meta.get("total_tokens", 0) or 0),
        calls=1,
    )


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


def invoke_cancellable(model, messages, is_cancelled: Callable[[], bool], timeout: float | None):
    """Call the model asynchronously, cancelling the request itself when the run is cancelled.

    The call runs on a shared event loop thread; this (sync) thread polls the cancel check,
    which may read the database, and cancels the call's task, which aborts the HTTP request.
    """
    future = asyncio.run_coroutine_threadsafe(model.ainvoke(messages), _loop_thread.get())
    deadline = time.monotonic() + timeout if timeout else None
    while True:
        try:
            return future.result(timeout=CANCEL_POLL_SECONDS)
        except concurrent.futures.TimeoutError:
            pass
        if is_cancelled():
            future.cancel()
            raise RunCancelled()
        if deadline and time.monotonic() > deadline:
            future.cancel()
            raise ProviderError(f"the model did not answer within {timeout:.0f}s", code="timeout")


class ChatModelProvider(AnswerProvider):
    """Implements the pipeline's tasks with prompts to a chat model."""

    timeout: float | None = 120.0

    def chat_model(
        self, *, model: str | None, temperature: float, json_mode: bool, stage: str = ""
    ):
        """Return a LangChain chat model configured for one call."""
        raise NotImplementedError

    def _call(
        self, stage: str, system: str, user: str, ctx: CallContext, *, json_mode: bool
    ) -> str:
        if ctx.is_cancelled():
            raise RunCancelled()
        model = self.chat_model(
            model=ctx.model, temperature=ctx.temperature, json_mode=json_mode, stage=stage
        )
        try:
            message = invoke_cancellable(
                model, [SystemMessage(system), HumanMessage(user)], ctx.is_cancelled, self.timeout
            )
        except (RunCancelled, ProviderError):
            raise
        except Exception as exc:
            raise ProviderError(f"{type(exc).__name__}: {exc}") from exc
        ctx.record(stage, _usage_of(message))
        content = message.content
        if isinstance(content, list):
            content = "".join(
                part.get("text", "") if isinstance(part, dict) else str(part) for part in content
            )
        return str(content)

    def plan(self, query: str, ctx: CallContext) -> dict[str, Any]:
        reply = self._call(
            "planner", prompts.PLANNER_SYSTEM, prompts.fence("QUESTION", query), ctx, json_mode=True
        )
        plan = parse_json(reply)
        if "retrieve" not in plan:
            raise ProviderError("the plan has no 'retrieve' decision", code="invalid_json")
        return plan

    def compress(self, query: str, context: str, ctx: CallContext) -> str:
        user = prompts.fence("QUESTION", query) + "\n\n" + prompts.fence("CONTEXT", context)
        return self._call("compressor", prompts.COMPRESS_SYSTEM, user, ctx, json_mode=False).strip()

    def answer(self, query, context, sources, ctx, feedback=""):
        user = prompts.fence("CONTEXT", context) + "\n\n" + prompts.fence("QUESTION", query)
        reply = self._call(
            "reasoning",
            prompts.ANSWER_SYSTEM + prompts.with_feedback(feedback),
            user,
            ctx,
            json_mode=True,
        )
        result = parse_json(reply)
        if "answer" not in result:
            raise ProviderError("the answer JSON has no 'answer'", code="invalid_json")
        return result

    def answer_plain(self, query, context, sources, ctx, feedback=""):
        user = prompts.fence("CONTEXT", context) + "\n\n" + prompts.fence("QUESTION", query)
        return self._call(
            "reasoning",
            prompts.ANSWER_PLAIN_SYSTEM + prompts.with_feedback(feedback),
            user,
            ctx,
            json_mode=False,
        )

    def direct_answer(self, query: str, ctx: CallContext) -> str:
        return self._call(
            "reasoning",
            prompts.DIRECT_SYSTEM,
            prompts.fence("QUESTION", query),
            ctx,
            json_mode=False,
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
            self._call("reflection", prompts.REFLECT_SYSTEM, user, ctx, json_mode=True)
        )
        if "grounded" not in verdict:
            raise ProviderError("the verdict has no 'grounded'", code="invalid_json")
        return verdict

    def rewrite_query(self, query: str, feedback: str, ctx: CallContext) -> str:
        if not feedback:
            return query
        user = prompts.fence("QUESTION", query) + "\n\n" + prompts.fence("FEEDBACK", feedback)
        rewritten = self._call(
            "reflection", prompts.REWRITE_SYSTEM, user, ctx, json_mode=False
        ).strip()
        return rewritten.splitlines()[0][:500] if rewritten else query
