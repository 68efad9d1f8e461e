"""Provider plugins loaded by the worker subprocess in stream tests (ADRAG_PROVIDER_PLUGINS).

`scripted` replays per-query scripts from the JSON file named by SCRIPTED_PROVIDER_FILE: the
scripted chat model stands in for a remote LLM, the only thing these tests fake. `broken`
cannot be constructed, which fails the run like a misconfigured provider would.
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict

from providers.llm.base import ProviderError
from providers.llm.chat import ChatBackend
from tests.queries.pipeline.scripted import Script, ScriptedBackend

# Replies consumed per script: keyed by the query and the script's "_written" stamp, so that a
# script written again (a later test or module asking the same question of a shared worker)
# starts from its first reply.
_consumed: dict[tuple, dict[str, int]] = defaultdict(lambda: defaultdict(int))


class FileScript(Script):
    """Replies for one query, read from the script file at call time."""

    def __init__(self) -> None:
        super().__init__()
        self.query = ""
        self.key: tuple = ("", None)

    def load(self, query: str) -> None:
        self.query = query
        with open(os.environ["SCRIPTED_PROVIDER_FILE"], encoding="utf-8") as handle:
            scripts = json.load(handle)
        script = scripts.get(query, {})
        self.key = (query, script.get("_written"))
        self.replies.clear()
        for stage, replies in script.items():
            if stage.startswith("_"):
                continue
            start = _consumed[self.key][stage]
            self.replies[stage] = [_decode(reply) for reply in replies[start:]]
        self.delays = script.get("_delays", {})
        self.token_delays = script.get("_token_delays", {})


def _decode(reply):
    if isinstance(reply, dict) and "__error__" in reply:
        return ProviderError(reply["__error__"])
    return reply


class ScriptedFromFile(ScriptedBackend):
    name = "scripted"
    label = "Scripted (tests)"

    def __init__(self) -> None:
        super().__init__(FileScript())

    def complete(self, request, ctx, on_text=None):
        user = request.user
        query = user.split("<<<BEGIN QUESTION>>>\n", 1)[-1].split("\n<<<END QUESTION>>>", 1)[0]
        self.script.load(query)
        _consumed[self.script.key][request.stage] += 1
        return super().complete(request, ctx, on_text)


class Broken(ChatBackend):
    name = "broken"

    def __init__(self) -> None:
        raise ProviderError("the 'broken' provider is misconfigured", permanent=True)


def pause(seconds: float) -> None:
    time.sleep(seconds)
