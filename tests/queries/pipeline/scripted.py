"""A scripted chat model: the only fake, standing in for a model server in routing tests."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import AsyncIterator

from providers.llm.base import Usage
from providers.llm.chat import ChatBackend, ChatChunk, ChatRequest
from queries.answering.model import ModelStrategy
from queries.answering.quote_first import QuoteFirstStrategy

# A scripted reply is streamed in pieces of this many characters, like a server's tokens.
PIECE_CHARS = 12


class Script:
    """Replies per stage, and a record of calls, prompts and requests."""

    def __init__(self, **replies: list) -> None:
        self.replies: dict[str, list] = defaultdict(list, {k: list(v) for k, v in replies.items()})
        self.calls: list[tuple[str, float]] = []
        self.prompts: list[tuple[str, list[str]]] = []
        self.requests: list[ChatRequest] = []
        # Seconds before a stage's reply starts (a server reading the prompt), and between
        # its pieces (a server writing tokens).
        self.delays: dict[str, float] = {}
        self.token_delays: dict[str, float] = {}

    def next_reply(self, request: ChatRequest) -> str:
        self.prompts.append((request.stage, [request.system, request.user]))
        self.requests.append(request)
        queue = self.replies[request.stage]
        if not queue:
            raise AssertionError(f"no scripted reply left for stage {request.stage!r}")
        reply = queue.pop(0)
        self.calls.append((request.stage, request.temperature))
        if isinstance(reply, BaseException):
            raise reply
        return reply if isinstance(reply, str) else json.dumps(reply)


class ScriptedBackend(ChatBackend):
    """A chat backend with a scripted model in place of a remote one.

    Replies stream through the same cancellable reader as real servers' replies, in pieces,
    after the script's delay and paced by its token delay.
    """

    name = "scripted"
    label = "Scripted"
    timeout = 30.0

    def __init__(self, script: Script) -> None:
        self.script = script

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[ChatChunk]:
        reply = self.script.next_reply(request)
        pieces = [reply[i : i + PIECE_CHARS] for i in range(0, len(reply), PIECE_CHARS)] or [""]
        if self.script.delays.get(request.stage):
            await asyncio.sleep(self.script.delays[request.stage])
        pace = self.script.token_delays.get(request.stage, 0.0)
        for piece in pieces:
            if pace:
                await asyncio.sleep(pace)
            yield ChatChunk(text=piece)
        yield ChatChunk(
            usage=Usage(input_tokens=100, output_tokens=10, total_tokens=110, calls=1),
            finish_reason="stop",
        )

    def available(self) -> bool:
        return True

    def models(self) -> list[str]:
        return ["scripted"]

    def default_model(self) -> str:
        return "scripted"


def scripted_model(script: Script) -> ModelStrategy:
    """The model strategy over the scripted model (a hosted model's way)."""
    return ModelStrategy("scripted", ScriptedBackend(script))


def scripted_quote_first(script: Script) -> QuoteFirstStrategy:
    """The quote-first strategy over the scripted model (the local provider's way)."""
    return QuoteFirstStrategy("scripted-small", ScriptedBackend(script))


PLAN_RETRIEVE = {
    "retrieve": True,
    "use_external": False,
    "query_type": "factual",
    "reasoning": "about the docs",
}
PLAN_DIRECT = {
    "retrieve": False,
    "use_external": False,
    "query_type": "conversational",
    "reasoning": "greeting",
}
PLAN_WEB = {
    "retrieve": True,
    "use_external": True,
    "query_type": "current_events",
    "reasoning": "recent",
}


def answer(text: str = "Marie Curie discovered radium [1].", cited=(1,), confidence=0.9):
    return {
        "answer": text,
        "confidence": confidence,
        "cited_sources": list(cited),
        "key_facts": ["radium"],
        "is_sufficient": True,
    }


def verdict(grounded=True, should_retry=False, issues=(), feedback=""):
    return {
        "grounded": grounded,
        "confidence": 0.9 if grounded else 0.3,
        "issues": list(issues),
        "feedback": feedback,
        "should_retry": should_retry,
    }


def run_scripted(kb, script: Script, query: str, *, small: bool = False, **overrides):
    """Run the pipeline on one KB with the scripted model (quote-first when `small`); check
    every frame's keys. `kb` is a knowledge base in the database, or MemoryStores (the run
    then searches them and reads no database)."""
    from providers.reranker import FallbackReranker
    from queries.pipeline.events import ListSink
    from queries.pipeline.runner import run_pipeline
    from tests.queries.pipeline.contract import check_frames
    from tests.queries.pipeline.memory import searched

    sink = ListSink()
    overrides.setdefault("reranker", FallbackReranker())
    outcome = run_pipeline(
        query=query,
        strategy=(scripted_quote_first if small else scripted_model)(script),
        sink=sink,
        **searched(kb),
        **overrides,
    )
    check_frames(sink.frames())
    return sink, outcome
