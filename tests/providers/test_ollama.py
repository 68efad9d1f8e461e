"""The Ollama provider against a protocol-level fake of Ollama's streaming /api/chat.

No Ollama server can run here, so these tests check the wire: what the provider sends
(model, schema as `format`, `num_predict`), what it reads (streamed text, token counts), and
that a cancel or a timeout closes the connection so the server stops generating.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

from providers.llm.base import CallContext, ProviderError, RunCancelled
from providers.llm.grammar import bounded
from queries.answering import schemas
from queries.answering.frame import frame_question
from queries.answering.types import Plan, SourceBlock
from tests.providers.fake_ollama import FakeOllama

PLAN = {"retrieve": True, "use_external": False, "query_type": "factual", "reasoning": "docs"}
ANSWER = {
    "answer": "Maurice Koechlin led the design [1].",
    "confidence": 0.9,
    "cited_sources": [1],
    "key_facts": ["Koechlin"],
    "is_sufficient": True,
}


@pytest.fixture
def ollama_provider(settings):
    def make(fake: FakeOllama):
        from queries.answering.registry import get_strategy

        settings.OLLAMA_BASE_URL = fake.url
        return get_strategy("ollama")

    return make


def test_plan_request_carries_model_schema_and_budget_and_usage_is_read(ollama_provider, settings):
    with FakeOllama([json.dumps(PLAN)]) as fake:
        ctx = CallContext(model="qwen2")
        plan = ollama_provider(fake).plan(frame_question("Who designed the tower?"), ctx)
    assert plan == Plan.from_reply(PLAN, planned_by="model")
    body = fake.requests[0]
    assert body["model"] == "qwen2"
    assert body["stream"] is True
    assert body["format"] == bounded(schemas.PLAN)
    assert body["options"]["num_predict"] == settings.LLM_MAX_TOKENS["plan"]
    assert "Who designed the tower?" in body["messages"][1]["content"]
    usage = ctx.usage["planner"].as_dict()
    assert usage["input_tokens"] == 42
    assert usage["output_tokens"] == -(-len(json.dumps(PLAN)) // 3)  # tokens of 3 characters
    assert "estimated" not in usage


def test_plain_stages_send_no_format_and_the_default_model(ollama_provider, settings):
    with FakeOllama(["A shorter context [1]"]) as fake:
        ollama_provider(fake).compress(frame_question("q"), "[1] a.txt\nsome text", CallContext())
    assert fake.requests[0].get("format") in (None, "")
    assert fake.requests[0]["model"] == settings.OLLAMA_MODEL
    assert fake.requests[0]["options"]["num_predict"] == settings.LLM_MAX_TOKENS["compress"]


def test_answer_text_reaches_the_run_while_it_is_written(ollama_provider):
    seen: list[str] = []
    with FakeOllama([json.dumps(ANSWER)], token_delay=0.02) as fake:
        ctx = CallContext(on_answer_text=seen.append)
        result = ollama_provider(fake).answer(
            frame_question("Who?"), "[1] t.txt\ntext", [SourceBlock(1, "t.txt", "text")], ctx
        )
    assert result.text == ANSWER["answer"]
    assert len(seen) >= 3, seen
    assert seen[-1] == ANSWER["answer"]
    for earlier, later in zip(seen, seen[1:]):
        assert later.startswith(earlier)


def test_cancel_closes_the_connection_and_the_server_stops(ollama_provider):
    long_reply = "word " * 400  # 667 tokens of 3 characters: 33 s at this pace
    with FakeOllama([long_reply], token_delay=0.05) as fake:
        cancelled = threading.Event()
        threading.Timer(0.5, cancelled.set).start()
        started = time.monotonic()
        with pytest.raises(RunCancelled):
            ollama_provider(fake).answer_direct(
                frame_question("Write a lot"), CallContext(is_cancelled=cancelled.is_set)
            )
        returned_after = time.monotonic() - started
        assert fake.finished.wait(5), "the fake server is still generating"
    assert fake.disconnected_at is not None
    assert returned_after < 3
    assert fake.tokens_sent < 100


def test_timeout_closes_the_connection(ollama_provider, settings):
    settings.LLM_TIMEOUT_SECONDS = 1.0
    with FakeOllama(["word " * 400], token_delay=0.05) as fake:
        with pytest.raises(ProviderError) as error:
            ollama_provider(fake).answer_direct(frame_question("Write a lot"), CallContext())
        assert fake.finished.wait(5)
    assert error.value.code == "timeout"
    assert fake.disconnected_at is not None
    assert fake.tokens_sent < 100
