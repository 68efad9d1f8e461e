"""The `openai` provider against a real OpenAI-compatible server: llama.cpp's, serving a small
GGUF model from the package registry. Nothing here is scripted."""

from __future__ import annotations

import threading
import time

import pytest

from providers.llm.base import CallContext, ProviderError, RunCancelled
from queries.answering.frame import frame_question
from queries.answering.types import DEFER_TO_CHECK, SourceBlock
from tests.model_server import seconds_until_idle

CONTEXT = (
    "[1] eiffel.txt\nThe Eiffel Tower is a wrought-iron lattice tower in Paris. It was designed "
    "by the engineering firm of Gustave Eiffel. Its lead designer was Maurice Koechlin."
)
LONG_TASK = "Write a very long essay about the history of Paris, in many paragraphs."


@pytest.fixture
def provider(llama_server, settings):
    from providers.llm import openai
    from queries.answering.registry import get_strategy

    settings.OPENAI_BASE_URL = llama_server.url
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_STRUCTURED_OUTPUT = "auto"
    openai._accepted_format.pop(llama_server.url, None)
    # The default strategy: every task asked of the model, as of a large one.
    return get_strategy("openai")


def test_a_server_of_one_s_own_answers_quote_first_when_the_setting_says_so(llama_server, settings):
    from queries.answering.quote_first import QuoteFirstStrategy
    from queries.answering.registry import get_strategy

    settings.OPENAI_BASE_URL = llama_server.url
    settings.ANSWER_STRATEGIES = {**settings.ANSWER_STRATEGIES, "openai": "quote_first"}
    settings.OPENAI_CONTEXT_TOKENS = 300
    settings.LLM_MAX_TOKENS = {**settings.LLM_MAX_TOKENS, "answer_plain": 24}
    provider = get_strategy("openai")
    assert isinstance(provider, QuoteFirstStrategy) and provider.retry == "other_way"
    ctx = CallContext()
    question = frame_question("Who was the lead designer of the Eiffel Tower?")
    blocks = [SourceBlock(1, "eiffel.txt", CONTEXT.split("\n", 1)[1])]

    assert provider.plan(question, ctx).planned_by == "rules"
    # A plain lookup is quoted first, without the model.
    first = provider.answer(question, CONTEXT, blocks, ctx)
    assert first.answered_by == "extractive" and "Maurice Koechlin" in first.text
    assert not ctx.usage["reasoning"].output_tokens
    # The model does not judge: the deterministic check does.
    assert provider.critique(question, CONTEXT, first.text, blocks, ctx) == DEFER_TO_CHECK
    # The retry (the check did not verify the quote) is the model's.
    retry = provider.answer(question, CONTEXT, blocks, ctx, feedback="Not supported by [1].")
    assert retry.answered_by == "model" and retry.text.strip() and retry.key_facts == ()
    # One model call in all: the retry. No model planner, no critic.
    model_calls = {stage for stage, usage in ctx.usage.items() if usage.output_tokens}
    assert model_calls == {"reasoning"} and "reflection" not in ctx.usage
    assert ctx.usage["reasoning"].input_tokens > 50
    # The backend's budget: OPENAI_CONTEXT_TOKENS at four characters a token.
    assert provider.context_budget("x" * 10_000, ctx) == 300 * 4


def test_every_json_stage_parses_with_the_schema_the_server_accepts(provider, llama_server):
    from providers.llm import openai

    ctx = CallContext()
    plan = provider.plan(frame_question("Who led the design of the Eiffel Tower?"), ctx)
    # llama-cpp-python's server refuses OpenAI's json_schema format; the schema goes in
    # json_object instead, and that is remembered for the server.
    assert openai._accepted_format[llama_server.url] == openai.JSON_OBJECT_SCHEMA
    # plan(), answer() and critique() raise when the reply lacks its decision field.
    assert plan.planned_by == "model"
    answer = provider.answer(
        frame_question("Who led the design of the Eiffel Tower?"),
        CONTEXT,
        [SourceBlock(1, "eiffel.txt", CONTEXT)],
        ctx,
    )
    assert answer.text.strip()
    provider.critique(frame_question("Who?"), CONTEXT, answer.text, [], ctx)
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
        provider.answer_direct(frame_question(LONG_TASK), ctx)
    assert time.monotonic() - ctx_started < 60
    idle_after = seconds_until_idle(llama_server.pid)
    print(f"\nmodel server idle {idle_after:.1f}s after the cancel")
    assert idle_after <= 5.0


def test_timeout_stops_the_model_server(provider, llama_server):
    # Half a second: on an idle machine SmolLM2 can finish a whole answer inside 3 s.
    provider.backend.timeout = 0.5
    with pytest.raises(ProviderError) as error:
        provider.answer_direct(frame_question(LONG_TASK), CallContext())
    assert error.value.code == "timeout"
    assert seconds_until_idle(llama_server.pid) <= 5.0


def _wait_for(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
