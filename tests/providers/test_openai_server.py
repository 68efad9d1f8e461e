"""The `openai` provider against a real OpenAI-compatible server: llama.cpp's, serving a small
GGUF model from the package registry. Nothing here is scripted."""

from __future__ import annotations

import threading
import time

import pytest

from providers.llm.base import CallContext, ProviderError, RunCancelled, SourceBlock
from tests.model_server import seconds_until_idle

CONTEXT = (
    "[1] eiffel.txt\nThe Eiffel Tower is a wrought-iron lattice tower in Paris. It was designed "
    "by the engineering firm of Gustave Eiffel. Its lead designer was Maurice Koechlin."
)
LONG_TASK = "Write a very long essay about the history of Paris, in many paragraphs."


@pytest.fixture
def provider(llama_server, settings):
    from providers.llm import openai

    settings.OPENAI_BASE_URL = llama_server.url
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_STRUCTURED_OUTPUT = "auto"
    # Every task asked of the model, as for a large one.
    settings.OPENAI_SMALL_MODEL = "false"
    openai._accepted_format.pop(llama_server.url, None)
    return openai.OpenAIProvider()


def test_a_self_hosted_server_s_model_does_the_tasks_as_a_small_one(llama_server, settings):
    from providers.llm import openai

    settings.OPENAI_BASE_URL = llama_server.url
    settings.OPENAI_SMALL_MODEL = "auto"
    settings.LLM_MAX_TOKENS = {**settings.LLM_MAX_TOKENS, "answer_plain": 24}
    provider = openai.OpenAIProvider()
    assert provider.small_model() and provider.retries_other_way()
    ctx = CallContext()
    question = "Who was the lead designer of the Eiffel Tower?"
    blocks = [SourceBlock(1, "eiffel.txt", CONTEXT.split("\n", 1)[1])]

    assert provider.plan(question, ctx)["planned_by"] == "rules"
    # A plain lookup is quoted first, without the model.
    first = provider.answer(question, CONTEXT, blocks, ctx)
    assert first["answered_by"] == "extractive" and "Maurice Koechlin" in first["answer"]
    assert not ctx.usage["reasoning"].output_tokens
    provider.reflect(question, CONTEXT, first["answer"], blocks, ctx)  # the check judges
    # The retry (the check did not verify the quote) is the model's.
    retry = provider.answer(question, CONTEXT, blocks, ctx, feedback="Not supported by [1].")
    assert retry["answered_by"] == "model" and retry["key_facts"] == []
    # One model call in all: the retry. No planner, no critic.
    assert set(ctx.usage) == {"reasoning"} and ctx.usage["reasoning"].output_tokens > 0
    assert ctx.usage["reasoning"].input_tokens > 50
    from providers.model_files import CATALOGUE

    tokens = CATALOGUE[settings.LOCAL_MODEL].context_tokens
    assert tokens and provider.context_budget("x" * 10_000, ctx) == tokens * openai.CHARS_PER_TOKEN

    # "auto": a server on this machine or a private address, never a hosted API.
    for url, small in (
        ("http://10.0.4.7:8080/v1", True),
        ("http://localhost:8091/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://openrouter.ai/api/v1", False),
        ("https://example.openai.azure.com/openai", False),
    ):
        settings.OPENAI_BASE_URL = url
        assert openai.OpenAIProvider().small_model() is small, url
    settings.OPENAI_SMALL_MODEL = "true"
    assert openai.OpenAIProvider().small_model()


def test_every_json_stage_parses_with_the_schema_the_server_accepts(provider, llama_server):
    from providers.llm import openai

    ctx = CallContext()
    plan = provider.plan("Who led the design of the Eiffel Tower?", ctx)
    # llama-cpp-python's server refuses OpenAI's json_schema format; the schema goes in
    # json_object instead, and that is remembered for the server.
    assert openai._accepted_format[llama_server.url] == openai.JSON_OBJECT_SCHEMA
    assert set(plan) == {"retrieve", "use_external", "query_type", "reasoning"}
    assert isinstance(plan["retrieve"], bool)
    answer = provider.answer(
        "Who led the design of the Eiffel Tower?",
        CONTEXT,
        [SourceBlock(1, "eiffel.txt", CONTEXT)],
        ctx,
    )
    assert set(answer) == {"answer", "confidence", "cited_sources", "key_facts", "is_sufficient"}
    assert isinstance(answer["answer"], str) and answer["answer"].strip()
    verdict = provider.reflect("Who?", CONTEXT, answer["answer"], [], ctx)
    assert set(verdict) == {"grounded", "confidence", "issues", "feedback", "should_retry"}
    for stage in ("planner", "reasoning", "reflection"):
        usage = ctx.usage[stage].as_dict()
        assert usage["calls"] == 1
        assert usage["output_tokens"] > 0 and usage["input_tokens"] > 50
        # llama-cpp-python's server reports no usage when streaming: counted from the stream.
        assert usage["estimated"] is True


def test_cancel_during_generation_stops_the_model_server(provider, llama_server):
    cancelled = threading.Event()
    written: list[str] = []
    ctx = CallContext(is_cancelled=cancelled.is_set, on_answer_text=written.append)
    ctx_started = time.monotonic()
    threading.Thread(
        target=lambda: (_wait_for(lambda: len(written) > 5, 60), cancelled.set()), daemon=True
    ).start()
    with pytest.raises(RunCancelled):
        provider.direct_answer(LONG_TASK, ctx)
    assert time.monotonic() - ctx_started < 60
    idle_after = seconds_until_idle(llama_server.pid)
    print(f"\nmodel server idle {idle_after:.1f}s after the cancel")
    assert idle_after <= 5.0


def test_timeout_stops_the_model_server(provider, llama_server):
    # Half a second: on an idle machine SmolLM2 can finish a whole answer inside 3 s.
    provider.timeout = 0.5
    with pytest.raises(ProviderError) as error:
        provider.direct_answer(LONG_TASK, CallContext())
    assert error.value.code == "timeout"
    assert seconds_until_idle(llama_server.pid) <= 5.0


def _wait_for(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
