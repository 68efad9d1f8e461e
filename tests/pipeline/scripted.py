"""A scripted chat model: the only fake, standing in for OpenAI or Ollama in routing tests."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from providers.llm.chat import ChatModelProvider


class ScriptedChatModel(BaseChatModel):
    """Return the next scripted reply for its stage; an Exception in the script is raised."""

    script: Any = None
    stage: str = ""
    delay: float = 0.0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _next(self):
        queue = self.script.replies[self.stage]
        if not queue:
            raise AssertionError(f"no scripted reply left for stage {self.stage!r}")
        reply = queue.pop(0)
        self.script.calls.append((self.stage, self.temperature_seen))
        if isinstance(reply, BaseException):
            raise reply
        if not isinstance(reply, str):
            reply = json.dumps(reply)
        return AIMessage(
            content=reply,
            usage_metadata={"input_tokens": 100, "output_tokens": 10, "total_tokens": 110},
        )

    temperature_seen: float = 0.0

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        self.script.prompts.append((self.stage, [m.content for m in messages]))
        return ChatResult(generations=[ChatGeneration(message=self._next())])

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        self.script.prompts.append((self.stage, [m.content for m in messages]))
        if self.delay:
            await asyncio.sleep(self.delay)
        return ChatResult(generations=[ChatGeneration(message=self._next())])


class Script:
    """Replies per stage, and a record of calls and prompts."""

    def __init__(self, **replies: list) -> None:
        self.replies: dict[str, list] = defaultdict(list, {k: list(v) for k, v in replies.items()})
        self.calls: list[tuple[str, float]] = []
        self.prompts: list[tuple[str, list[str]]] = []
        self.delays: dict[str, float] = {}


class ScriptedProvider(ChatModelProvider):
    """The chat-model provider with a scripted model in place of a remote one."""

    name = "scripted"
    label = "Scripted"
    timeout = 30.0

    def __init__(self, script: Script) -> None:
        self.script = script

    def chat_model(self, *, model, temperature, json_mode, stage=""):
        return ScriptedChatModel(
            script=self.script,
            stage=stage,
            temperature_seen=temperature,
            delay=self.script.delays.get(stage, 0.0),
        )

    def available(self) -> bool:
        return True

    def models(self) -> list[str]:
        return ["scripted"]

    def default_model(self) -> str:
        return "scripted"


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
