"""The `local` provider: llama.cpp in-process (its backend), with the model fetched from the
package registry, answering quote-first by default."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from providers.llm.base import CallContext, ProviderError, RunCancelled
from queries.answering.frame import frame_question
from queries.answering.types import SourceBlock

CONTEXT = (
    "[1] eiffel.txt\nThe Eiffel Tower is a wrought-iron lattice tower in Paris. It was designed "
    "by the engineering firm of Gustave Eiffel. Its lead designer was Maurice Koechlin."
)


@pytest.fixture
def local(gguf_model, settings):
    """The local provider as composed by default: quote-first over llama.cpp in-process."""
    from queries.answering.registry import get_strategy

    settings.LOCAL_MODEL_PATH = str(gguf_model)
    return get_strategy("local")


@pytest.fixture
def local_model(gguf_model, settings):
    """The local backend under the model strategy: every task asked of the model."""
    from queries.answering.registry import get_strategy

    settings.LOCAL_MODEL_PATH = str(gguf_model)
    settings.ANSWER_STRATEGIES = {**settings.ANSWER_STRATEGIES, "local": "model"}
    return get_strategy("local")


def test_plans_and_answers_under_the_schema_and_counts_real_tokens(local_model):
    ctx = CallContext()
    question = frame_question("Who led the design of the Eiffel Tower?")
    plan = local_model.plan(question, ctx)
    assert plan.planned_by == "model" and isinstance(plan.retrieve, bool)
    result = local_model.answer(question, CONTEXT, [SourceBlock(1, "e.txt", CONTEXT)], ctx)
    assert len(result.cited) <= 6  # the grammar's bound on arrays
    usage = ctx.usage["reasoning"].as_dict()
    assert usage["calls"] == 1 and "estimated" not in usage
    # The prompt holds the system text, the fenced context and the question: well over 100.
    assert usage["input_tokens"] > 100 and usage["output_tokens"] > 5


def test_the_model_is_loaded_once_per_process(local, gguf_model):
    from providers.llm.local import load_model

    assert load_model(gguf_model) is load_model(gguf_model)


def test_cancel_stops_generation_between_tokens(local):
    cancelled = threading.Event()
    written: list[str] = []
    ctx = CallContext(is_cancelled=cancelled.is_set, on_answer_text=written.append)

    def cancel_once_writing() -> None:
        deadline = time.monotonic() + 60
        while not written and time.monotonic() < deadline:
            time.sleep(0.01)
        cancelled.set()

    threading.Thread(target=cancel_once_writing, daemon=True).start()
    with pytest.raises(RunCancelled):
        local.answer_direct(frame_question("Write a very long essay about Paris."), ctx)
    # Stopped a few tokens after the cancel, long before the 400-token budget.
    assert len(written[-1].split()) < 100


def test_a_model_name_picks_a_fetched_file_and_never_a_path_outside(local, gguf_model):
    from providers.llm.local import model_path

    assert model_path("smollm2-135m") == gguf_model
    assert model_path(gguf_model.name) == gguf_model
    assert model_path("../../etc/passwd") == gguf_model  # unknown: the configured model


def test_a_missing_model_file_is_a_permanent_provider_error(settings, tmp_path):
    from queries.answering.registry import get_strategy

    settings.LOCAL_MODEL_PATH = str(tmp_path / "absent.gguf")
    provider = get_strategy("local")
    assert provider.available() is False
    with pytest.raises(ProviderError) as error:
        provider.answer_direct(frame_question("hello"), CallContext())
    assert error.value.permanent


def test_fetch_refuses_a_file_whose_checksum_differs(gguf_model, monkeypatch, settings, tmp_path):
    from providers import model_files

    settings.DATA_DIR = tmp_path
    real = model_files.CATALOGUE["smollm2-135m"]
    monkeypatch.setitem(
        model_files.CATALOGUE, "smollm2-135m", dataclasses.replace(real, sha256="0" * 64)
    )
    with pytest.raises(model_files.ModelFetchError, match="sha256 mismatch"):
        model_files.model_fetch(name="smollm2-135m")
    assert not list((tmp_path / "models").glob("*"))


@pytest.mark.slow
def test_fetch_command_reports_a_present_model_without_downloading(gguf_model, settings):
    from tests.support import run_manage

    result = run_manage("fetch_model", "smollm2-135m", ADRAG_DATA_DIR=str(settings.DATA_DIR))
    assert result.returncode == 0, result.stderr
    assert "is present and its sha256 matches" in result.stdout


def test_quote_first_leaves_the_verdict_to_the_check_and_needs_no_model_for_it(settings, tmp_path):
    from queries.answering.registry import get_strategy

    # No model file at all: a verdict that needed the model would fail.
    settings.LOCAL_MODEL_PATH = str(tmp_path / "missing.gguf")
    blocks = [SourceBlock(index=1, file_name="eiffel.txt", text=CONTEXT)]
    verdict = get_strategy("local").critique(
        frame_question("Who designed it?"), CONTEXT, "Koechlin [1].", blocks, CallContext()
    )
    assert verdict.grounded and not verdict.issues and not verdict.should_retry


def test_a_plain_lookup_is_planned_by_rule_and_anything_more_by_the_model(local):
    ctx = CallContext()
    lookup = local.plan(frame_question("Who runs the Porto office?"), ctx)
    assert lookup.planned_by == "rules" and lookup.retrieve
    assert not ctx.usage["planner"].input_tokens

    analytical = local.plan(
        frame_question("Why did the Porto office grow faster than Lisbon?"), ctx
    )
    assert analytical.planned_by == "model" and ctx.usage["planner"].input_tokens > 0


def test_a_cancel_while_the_prompt_is_read_stops_before_the_first_token(local_model, gguf_model):
    from providers.llm.local import PROMPT_BATCH_MAX, load_model, prompt_tokens
    from queries.answering import prompts

    checks = []

    def cancelled_after_the_first_batch() -> bool:
        checks.append(1)
        return len(checks) > 1

    written: list[str] = []
    ctx = CallContext(is_cancelled=cancelled_after_the_first_batch, on_answer_text=written.append)
    context = "\n".join([CONTEXT] * 24)  # many batches of prompt
    with pytest.raises(RunCancelled):
        local_model.answer_plain(frame_question("Who designed it?"), context, [], ctx)
    llm = load_model(gguf_model)
    messages = [
        {"role": "system", "content": prompts.ANSWER_PLAIN_SYSTEM},
        {"role": "user", "content": prompts.answer_user(context, "Who designed it?")},
    ]
    whole = len(prompt_tokens(llm, messages))
    # One batch read (after what the cache held), then the stop: no token written, the
    # prompt far from read to its end.
    assert not written and llm.n_tokens < whole - PROMPT_BATCH_MAX


def test_a_prompt_that_starts_like_the_last_one_reads_only_the_rest(local, gguf_model):
    from providers.llm.local import load_model, read_prompt

    llm = load_model(gguf_model)
    shared = llm.tokenize(CONTEXT.encode())
    rest = llm.tokenize(b" Who designed the Eiffel Tower, and when?", add_bos=False)
    read_prompt(llm, shared, lambda: False)
    evaluated: list[int] = []
    real_eval = llm.eval
    llm.eval = lambda tokens: (evaluated.extend(tokens), real_eval(tokens))
    try:
        read_prompt(llm, shared + rest, lambda: False)
    finally:
        del llm.eval
    assert evaluated == rest and llm.n_tokens == len(shared) + len(rest)


def _forget(llm) -> None:
    """Nothing kept and an empty context: the next prompt is read from its first token."""
    from providers.llm import local as module

    module._kept.clear()
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    llm.n_tokens = 0


def _ask(local, system: str, user: str) -> str:
    """Six greedy tokens of the local backend's reply to one prompt."""
    from providers.llm.chat import ChatRequest

    request = ChatRequest("answer", "reasoning", system, user, None, 0, 6)
    generation = local.backend.generate(request, is_cancelled=lambda: False, on_text=None)
    return "".join(generation.parts)


def test_a_task_reads_its_system_prompt_once_though_another_task_came_between(local, gguf_model):
    """Each task's fixed start is kept aside once read: after another task's prompt, only the
    user's text is read again, and the reply is the one a fresh read gives."""
    from providers.llm import local as module
    from queries.answering import prompts

    llm = module.load_model(gguf_model)

    def ask(system: str, user: str) -> str:
        return _ask(local, system, user)

    question = "[1] eiffel.txt\nThe tower is in Paris.\n\nQuestion: where is the tower?"
    _forget(llm)
    ask(prompts.ANSWER_PLAIN_SYSTEM, "[1] a.txt\nAnother text.\n\nQuestion: what is it?")
    ask(prompts.REFLECT_SYSTEM, "The answer, and whether the context supports it.")
    tokens = module.prompt_tokens(
        llm,
        [
            {"role": "system", "content": prompts.ANSWER_PLAIN_SYSTEM},
            {"role": "user", "content": question},
        ],
    )
    kept = module.fixed_start(llm, prompts.ANSWER_PLAIN_SYSTEM, tokens)
    evaluated: list[int] = []
    real_eval = llm.eval
    llm.eval = lambda batch: (evaluated.extend(batch), real_eval(batch))
    try:
        reply = ask(prompts.ANSWER_PLAIN_SYSTEM, question)
    finally:
        del llm.eval
    # The system prompt (over 100 tokens) was put back, not read: reading began at the user's text.
    assert kept > 100 and evaluated[: len(tokens) - 1 - kept] == tokens[kept:-1]
    # The same reply as from an empty context with nothing kept.
    _forget(llm)
    assert ask(prompts.ANSWER_PLAIN_SYSTEM, question) == reply


def test_a_kept_start_llama_cpp_refuses_is_read_again_and_kept_right(
    local, gguf_model, monkeypatch
):
    """A state llama.cpp will not put back leaves an empty context: the prompt is read whole,
    and what is kept in its place is put back rightly the next time."""
    from llama_cpp import llama_cpp

    from providers.llm import local as module
    from queries.answering import prompts

    llm = module.load_model(gguf_model)
    _forget(llm)

    def ask(system: str, user: str) -> str:
        return _ask(local, system, user)

    question = "[1] a.txt\nThe bridge opened in 1932.\n\nQuestion: when did it open?"
    first = ask(prompts.ANSWER_PLAIN_SYSTEM, question)
    ask(prompts.REFLECT_SYSTEM, "Another task's prompt.")
    with monkeypatch.context() as patched:
        patched.setattr(llama_cpp, "llama_state_seq_set_data", lambda *args: 0)
        assert ask(prompts.ANSWER_PLAIN_SYSTEM, question) == first
    ask(prompts.REFLECT_SYSTEM, "Another task's prompt.")
    assert ask(prompts.ANSWER_PLAIN_SYSTEM, question) == first


def test_the_prompt_batch_settles_and_no_longer_follows_the_load(local, gguf_model, monkeypatch):
    """The model's arithmetic depends on how a prompt is batched: once its first batches have set
    the size, a load that makes reading look faster or slower changes nothing."""
    from providers.llm import local as module

    llm = module.load_model(gguf_model)
    tokens = llm.tokenize("\n".join([CONTEXT] * 24).encode())
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    llm.n_tokens = 0
    # Enough batches to settle (no batch is longer than PROMPT_BATCH_MAX).
    module.read_prompt(
        llm, tokens[: module.PROMPT_BATCH_SETTLE * module.PROMPT_BATCH_MAX], lambda: False
    )
    assert module._batches_read[id(llm)] >= module.PROMPT_BATCH_SETTLE
    settled = module._batch_tokens[id(llm)]
    # A clock that makes reading look as slow as can be (each call 10 s on), which would size
    # the next batch at PROMPT_BATCH_MIN if the size still followed it; or, when it already is
    # that, one that stands still (infinitely fast: PROMPT_BATCH_MAX).
    ticks = iter(range(0, 10**6, 10))
    clock = (lambda: float(next(ticks))) if settled > module.PROMPT_BATCH_MIN else (lambda: 1.0)
    monkeypatch.setattr(module.time, "perf_counter", clock)
    llm.n_tokens = 0
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    # Three batches: a size that followed the clock would change after the first.
    module.read_prompt(llm, tokens[: 2 * settled + 1], lambda: False)
    assert module._batch_tokens[id(llm)] == settled


def test_warm_up_loads_the_model_and_reads_the_answer_prompt_s_start(local, gguf_model):
    from providers.llm.chat import ChatRequest
    from providers.llm.local import load_model, prompt_tokens
    from queries.answering import prompts

    local.backend.warm_up(system=prompts.ANSWER_PLAIN_SYSTEM)
    llm = load_model(gguf_model)
    request = ChatRequest(
        "answer", "reasoning", prompts.ANSWER_PLAIN_SYSTEM, "[1] a.txt\nText.", None, 0, 1
    )
    tokens = prompt_tokens(llm, request.messages)
    held = list(llm._input_ids[: llm.n_tokens])
    # What the warm-up read is the start of every answer prompt: the system prompt at least.
    assert len(held) > 100 and tokens[: len(held)] == held


def test_a_lookup_is_quoted_first_and_its_retry_is_the_model_s(local, settings):
    blocks = [SourceBlock(1, "eiffel.txt", CONTEXT.split("\n", 1)[1])]
    question = frame_question("Who was the lead designer of the Eiffel Tower?")
    ctx = CallContext()
    first = local.answer(question, CONTEXT, blocks, ctx)
    assert first.answered_by == "extractive"
    assert "Maurice Koechlin" in first.text and "[1]" in first.text
    # No model call: the quoted answer counts as one offline call, no tokens.
    assert not ctx.usage["reasoning"].input_tokens
    # The retry searches with the question as asked, not the critique's words.
    feedback = "The claim 'Eiffel designed it alone' is not supported by [1]."
    assert local.rewrite_query(question, feedback, ctx) == question.text

    # A short budget: the small test model may ramble to the full one on a loaded machine.
    settings.LLM_MAX_TOKENS = {**settings.LLM_MAX_TOKENS, "answer_plain": 24}
    ctx = CallContext()
    again = local.answer(question, CONTEXT, blocks, ctx, feedback)
    assert again.answered_by == "model" and ctx.usage["reasoning"].input_tokens > 100


def test_the_context_budget_is_counted_in_the_model_s_tokens(local, gguf_model, settings):
    from providers.llm.local import context_tokens, load_model

    long_context = "\n\n".join([CONTEXT] * 20)
    # The catalogue's SmolLM2 row has no measured budget: the run's own limit holds.
    assert context_tokens() == 0
    assert local.context_budget(long_context, CallContext()) is None

    settings.LOCAL_CONTEXT_TOKENS = 200
    budget = local.context_budget(long_context, CallContext())
    kept = long_context[:budget]
    count = len(load_model(gguf_model).tokenize(kept.encode(), add_bos=False))
    assert 180 <= count <= 220
    # A context that fits is kept whole.
    assert local.context_budget(CONTEXT, CallContext()) == len(CONTEXT)


def test_greedy_json_asks_the_grammar_about_the_pick_first_and_writes_what_the_full_grammar_does(
    gguf_model,
):
    """providers/llm/sampling.py: the local model writes a schema's JSON token for token as with
    the grammar run over the whole vocabulary, while the grammar ran over it only for the picks
    it refused."""
    from llama_cpp import Llama

    from providers.llm.grammar import bounded
    from providers.llm.local import load_model
    from queries.answering.schemas import BY_STAGE

    messages = [
        {"role": "system", "content": "You write poems. Never write JSON."},
        {"role": "user", "content": "A short poem about the sea, then one about Paris."},
    ]
    options = {
        "messages": messages,
        "temperature": 0.0,
        "max_tokens": 48,
        "response_format": {"type": "json_object", "schema": bounded(BY_STAGE["reasoning"][1])},
    }
    provider_model = load_model(gguf_model)
    written = provider_model.create_chat_completion(**options)["choices"][0]["message"]["content"]
    sampler = provider_model.last_sampler
    full_grammar = Llama(model_path=str(gguf_model), n_ctx=2048, n_threads=1, verbose=False)
    try:
        expected = full_grammar.create_chat_completion(**options)["choices"][0]["message"]
    finally:
        full_grammar.close()
    assert written == expected["content"]
    assert written.lstrip().startswith("{") and '"answer"' in written, written
    # The grammar refused the model's own pick at least once (it wanted a poem, not JSON), and
    # was not run over the whole vocabulary for most tokens.
    assert sampler.picks >= 40 and 0 < sampler.refused < sampler.picks / 2, vars(sampler)
