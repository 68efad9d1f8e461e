"""llama.cpp in-process through `llama-cpp-python` (the optional extra `.[local]`).

Any GGUF file at LOCAL_MODEL_PATH (or the model `manage.py fetch_model` put in the data
folder) is loaded once per process and shared by its threads; one generation runs at a time,
since a llama.cpp context is not thread-safe. Generation runs in the calling thread and is
cancellable between tokens: the run's cancel check and the deadline are read after every
token, and closing the token stream stops llama.cpp at once. JSON tasks are constrained by a
grammar built from their schema.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from providers.llm.base import ProviderError, RunCancelled, Usage
from providers.llm.chat import ChatBackend, ChatRequest, Generation
from providers.llm.grammar import bounded
from providers.llm.sampling import grammar_first_llama
from providers.model_files import CATALOGUE, default_model_file, models_dir

logger = logging.getLogger(__name__)

# Waiting for another thread's generation, the cancel check is read this often.
LOCK_POLL_SECONDS = 0.1

_load_lock = threading.Lock()
_generate_lock = threading.Lock()
_loaded: dict[str, object] = {}


def llama_cpp_installed() -> bool:
    try:
        import llama_cpp  # noqa: F401
    except Exception:
        return False
    return True


def model_path(name: str | None = None) -> Path | None:
    """Return the GGUF file to load.

    A `model` naming a catalogue model or a file in the models folder picks that file;
    otherwise LOCAL_MODEL_PATH, else the fetched LOCAL_MODEL.
    """
    if name:
        if name in CATALOGUE:
            return models_dir() / CATALOGUE[name].file_name
        # Only a bare file name inside the models folder: never a path elsewhere.
        candidate = models_dir() / Path(name).name
        if candidate.is_file():
            return candidate
    if settings.LOCAL_MODEL_PATH:
        return Path(settings.LOCAL_MODEL_PATH).expanduser()
    return default_model_file()


def load_model(path: Path):
    """Return the process's Llama for a GGUF file, loading it on first use."""
    key = str(path.resolve())
    with _load_lock:
        llm = _loaded.get(key)
        if llm is None:
            if not path.is_file():
                raise ProviderError(f"no GGUF model file at {path}", permanent=True)
            started = time.perf_counter()
            # Greedy grammar-constrained sampling asks the grammar about the pick first.
            llm = grammar_first_llama()(
                model_path=key,
                n_ctx=settings.LOCAL_N_CTX,
                n_threads=settings.LOCAL_N_THREADS or os.cpu_count() or 1,
                verbose=False,
            )
            logger.info("loaded %s in %.1fs", path.name, time.perf_counter() - started)
            _loaded[key] = llm
        return llm


@atexit.register
def _close_models() -> None:
    # Freed before the interpreter tears down the modules llama-cpp-python's finaliser needs.
    with _load_lock:
        for llm in _loaded.values():
            llm.close()
        _loaded.clear()
        _kept.clear()


# The prompt is read a batch at a time, the cancel flag checked between batches. A batch is
# sized to take about PROMPT_BATCH_SECONDS at the rate the model's first batches were read: a
# 1.5B model read 64 tokens a second on an AVX-512 machine and 19 on an AVX2 one, where a fixed
# 64-token batch made a stop wait 3.4 s.
PROMPT_BATCH_SECONDS = 0.5
PROMPT_BATCH_TOKENS = 16  # the first batch, before any rate is known
# Below 16 tokens a batch reads slower (8: 12.7 tokens/s against 19.6 at 16 and 21.4 at 64).
PROMPT_BATCH_MIN, PROMPT_BATCH_MAX = 16, 128
# The size then stays what the first batches (the warm-up's system prompt) settled on: the
# model's arithmetic depends on how a prompt is batched, and a size that followed the load
# gave one question different queries after different questions (`ORDER BY lead` or `ORDER BY
# budget_2026_eur` for "who leads the largest site?"); settled, it gave the same each time.
PROMPT_BATCH_SETTLE = 4
_batch_tokens: dict[int, int] = {}
_batches_read: dict[int, int] = {}
# The last tokens of a chat template after the user's text (end of turn, assistant header).
PROMPT_TAIL_TOKENS = 8


def prompt_tokens(llm, messages: list[dict[str, str]]) -> list[int]:
    """Return the tokens llama-cpp-python's chat handler makes of the messages, or [] when the
    model's chat format is not its GGUF template (the prompt is then read in one go)."""
    formatter = _formatter(llm)
    if formatter is None:
        return []
    result = formatter(messages=messages)
    return llm.tokenize(
        result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
    )


_formatters: dict[int, object] = {}


def _formatter(llm):
    """Return the Jinja2 chat formatter of the model's own template, as llama-cpp-python
    builds it for the "chat_template.default" format."""
    if getattr(llm, "chat_format", None) != "chat_template.default":
        return None
    key = id(llm)
    if key not in _formatters:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = llm.metadata.get("tokenizer.chat_template")
        if not template:
            return None
        eos, bos = llm.token_eos(), llm.token_bos()
        _formatters[key] = Jinja2ChatFormatter(
            template=template,
            eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
            bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
            stop_token_ids=[eos],
        )
    return _formatters[key]


def read_prompt(
    llm,
    tokens: list[int],
    is_cancelled: Callable[[], bool],
    deadline: float | None = None,
    *,
    kept: int = 0,
) -> None:
    """Evaluate the prompt tokens the context does not hold yet, a batch at a time.

    The context keeps the longest prefix it shares with the last prompt (the system prompt,
    the same context on a retry), so only the rest is read. The first `kept` tokens (a task's
    fixed start: its system prompt) are also kept aside once read, and put back when a prompt
    of another task came between, so no task reads its system prompt twice. Called with the
    generate lock.
    """
    held = llm._input_ids[: llm.n_tokens]
    prefix = 0
    for a, b in zip(held, tokens):
        if a != b:
            break
        prefix += 1
    if prefix < kept and _restore_prefix(llm, tokens[:kept]):
        prefix = kept
    else:
        # A restore llama.cpp refused emptied the context.
        prefix = min(prefix, llm.n_tokens)
        if prefix < llm.n_tokens:
            llm._ctx.kv_cache_seq_rm(-1, prefix, -1)
            llm.n_tokens = prefix
    llm._requires_eval = True  # the logits held are the last prompt's
    if prefix < kept:
        _read_batches(llm, tokens[prefix:kept], is_cancelled, deadline)
        _keep_prefix(llm, tokens[:kept])
        prefix = kept
    _read_batches(llm, tokens[prefix:], is_cancelled, deadline)


def _read_batches(llm, tokens: list[int], is_cancelled, deadline: float | None) -> None:
    """Evaluate tokens after those the context holds, a batch at a time, checking the cancel
    flag and the deadline between batches."""
    start = 0
    while start < len(tokens):
        if is_cancelled():
            raise RunCancelled()
        if deadline and time.monotonic() > deadline:
            raise ProviderError("the model did not read the prompt in time", code="timeout")
        batch = tokens[start : start + _batch_tokens.get(id(llm), PROMPT_BATCH_TOKENS)]
        began = time.perf_counter()
        llm.eval(batch)
        read = _batches_read[id(llm)] = _batches_read.get(id(llm), 0) + 1
        if read <= PROMPT_BATCH_SETTLE:
            rate = len(batch) / max(time.perf_counter() - began, 1e-6)
            _batch_tokens[id(llm)] = min(
                max(int(rate * PROMPT_BATCH_SECONDS), PROMPT_BATCH_MIN), PROMPT_BATCH_MAX
            )
        start += len(batch)


# The fixed starts of prompts (each task's system prompt) kept aside per model, the most
# recently used last: the state of their tokens in the context (llama.cpp's state of one
# sequence, about 28 KB a token for a 1.5B model). Reading a 150-token system prompt again
# took 7 s on a 2-core AVX2 machine each time another task's prompt came between. There are
# 9 tasks' system prompts; all of them together are about 1,000 tokens.
KEPT_PREFIXES = 12
_kept: dict[int, OrderedDict[tuple[int, ...], bytes]] = {}


def _keep_prefix(llm, tokens: list[int]) -> None:
    """Keep the state of the context, which holds exactly `tokens`, for a later prompt."""
    from llama_cpp import llama_cpp

    ctx = llm._ctx.ctx
    size = llama_cpp.llama_state_seq_get_size(ctx, 0)
    buffer = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, 0)
    if not written:
        return
    kept = _kept.setdefault(id(llm), OrderedDict())
    kept[tuple(tokens)] = ctypes.string_at(buffer, written)
    kept.move_to_end(tuple(tokens))
    while len(kept) > KEPT_PREFIXES:
        kept.popitem(last=False)


def _restore_prefix(llm, tokens: list[int]) -> bool:
    """Put a kept prefix's state back as the context's whole content; False when none is kept
    for these tokens (or llama.cpp refused it: the context is then empty)."""
    from llama_cpp import llama_cpp

    state = _kept.get(id(llm), {}).get(tuple(tokens))
    if state is None:
        return False
    _kept[id(llm)].move_to_end(tuple(tokens))
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    llm.n_tokens = 0
    buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
    if not llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buffer, len(state), 0):
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        _kept[id(llm)].pop(tuple(tokens))
        return False
    llm.input_ids[: len(tokens)] = tokens
    llm.n_tokens = len(tokens)
    return True


def fixed_start(llm, system: str, tokens: list[int]) -> int:
    """Return how many of a prompt's tokens are its task's fixed start: the system prompt and
    the chat template up to the user's text (0 when the prompt does not start with them)."""
    start = prompt_tokens(
        llm, [{"role": "system", "content": system}, {"role": "user", "content": ""}]
    )
    start = start[: max(len(start) - PROMPT_TAIL_TOKENS, 0)]
    return len(start) if start and tokens[: len(start)] == start else 0


def context_tokens(name: str | None = None) -> int:
    """Return the context budget in tokens for a model: LOCAL_CONTEXT_TOKENS when set, else
    the catalogue's measured figure for it, else 0 (the run's MAX_CONTEXT_CHARS only)."""
    if settings.LOCAL_CONTEXT_TOKENS:
        return settings.LOCAL_CONTEXT_TOKENS
    path = model_path(name)
    for model in CATALOGUE.values():
        if path is not None and path.name == model.file_name:
            return model.context_tokens
    return 0


def _acquire(is_cancelled: Callable[[], bool], deadline: float | None) -> None:
    while not _generate_lock.acquire(timeout=LOCK_POLL_SECONDS):
        if is_cancelled():
            raise RunCancelled()
        if deadline and time.monotonic() > deadline:
            raise ProviderError("the local model stayed busy with other runs", code="timeout")


class LlamaCppBackend(ChatBackend):
    """llama.cpp in this process: any GGUF file, one generation at a time."""

    name = "local"
    label = "Local (llama.cpp)"

    def __init__(self) -> None:
        self.timeout = settings.LLM_TIMEOUT_SECONDS
        self.json_format = settings.LOCAL_STRUCTURED_OUTPUT

    def context_chars(self, context: str, model: str | None) -> int | None:
        """Return the characters of this context that fit the model's token budget.

        The budget is LOCAL_CONTEXT_TOKENS, else the catalogue's figure for the model (chosen
        by measurement: reading the prompt is most of a small model's time to first text).
        The context is counted with the model's own tokenizer, so the budget holds whatever
        the language or the kind of text.
        """
        tokens = context_tokens(model)
        if not tokens or not context or not llama_cpp_installed():
            return None
        path = model_path(model)
        if path is None or not path.is_file():
            return None
        count = len(load_model(path).tokenize(context.encode("utf-8"), add_bos=False))
        if count <= tokens:
            return len(context)
        return max(int(len(context) * tokens / count), 1)

    def warm_up(self, *, system: str, model: str | None = None) -> None:
        """Load the model and read a prompt's fixed start (its system prompt) into its cache,
        so the first question pays neither."""
        path = model_path(model)
        if path is None or not llama_cpp_installed():
            return
        llm = load_model(path)
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": ""},
        ]
        tokens = prompt_tokens(llm, messages)
        if tokens:
            # The part every answer prompt shares: the system prompt, up to the user's text.
            shared = tokens[: max(len(tokens) - PROMPT_TAIL_TOKENS, 0)]
            with _generate_lock:
                read_prompt(llm, shared, lambda: False, kept=len(shared))

    def generate(
        self,
        request: ChatRequest,
        *,
        is_cancelled: Callable[[], bool],
        on_text: Callable[[str], None] | None,
    ) -> Generation:
        llm = _requested_model(request)
        deadline = time.monotonic() + self.timeout if self.timeout else None
        kwargs = _format_options(request)
        generation = Generation()
        _acquire(is_cancelled, deadline)
        try:
            tokens = prompt_tokens(llm, request.messages)
            if tokens:
                # Read the prompt in batches, checking the cancel flag between them; the
                # completion below finds it in the cache and only samples.
                kept = fixed_start(llm, request.system, tokens)
                read_prompt(llm, tokens[:-1], is_cancelled, deadline, kept=kept)
            stream = llm.create_chat_completion(
                messages=request.messages,
                temperature=request.temperature,
                max_tokens=request.max_tokens,
                stream=True,
                **kwargs,
            )
            self._sample(stream, generation, is_cancelled, on_text, deadline)
            generation.usage = _usage(llm, generation)
        except (RunCancelled, ProviderError):
            raise
        except ValueError as exc:
            # llama-cpp-python raises ValueError when the prompt exceeds the context window.
            logger.warning("local model refused a request: %s", exc)
            raise ProviderError(
                "the local model refused the request (the prompt is longer than its context)",
                permanent=True,
            ) from exc
        finally:
            _generate_lock.release()
        return generation

    def _sample(self, stream, generation: Generation, is_cancelled, on_text, deadline) -> None:
        """Read the completion's chunks into `generation`, stopping on a cancel or the deadline."""
        try:
            for chunk in stream:
                choice = chunk["choices"][0]
                text = choice.get("delta", {}).get("content") or ""
                if text:
                    generation.append(text)
                    if on_text is not None:
                        on_text(generation.text())
                if choice.get("finish_reason"):
                    generation.finish_reason = choice["finish_reason"]
                if is_cancelled():
                    raise RunCancelled()
                if deadline and time.monotonic() > deadline:
                    raise ProviderError(
                        f"the model did not finish within {self.timeout:.0f}s", code="timeout"
                    )
        finally:
            # Closing the generator ends llama.cpp's sampling loop.
            stream.close()

    def available(self) -> bool:
        path = model_path()
        return llama_cpp_installed() and path is not None and path.is_file()

    def models(self) -> list[str]:
        default = self.default_model()
        fetched = (
            sorted(p.name for p in models_dir().glob("*.gguf")) if models_dir().is_dir() else []
        )
        return [default] + [name for name in fetched if name != default]

    def default_model(self) -> str:
        path = model_path()
        return path.name if path is not None else ""


def _requested_model(request: ChatRequest):
    """Return the loaded model a request names (the configured one by default), or raise a
    permanent ProviderError when there is none to load."""
    if not llama_cpp_installed():
        raise ProviderError(
            "llama-cpp-python is not installed (pip install -e '.[local]')", permanent=True
        )
    path = model_path(request.model)
    if path is None:
        raise ProviderError(
            "no local model: set LOCAL_MODEL_PATH or run `manage.py fetch_model`",
            permanent=True,
        )
    return load_model(path)


def _format_options(request: ChatRequest) -> dict:
    """Return the completion's options that constrain its output to JSON (and to the request's
    schema), when the request asks for it."""
    kwargs: dict = {}
    if request.json_mode and request.constrain:
        kwargs["response_format"] = (
            {"type": "json_object", "schema": bounded(request.schema[1])}
            if request.schema is not None
            else {"type": "json_object"}
        )
    return kwargs


def _usage(llm, generation: Generation) -> Usage:
    """Return a completion's token usage."""
    # Tokens in the context now: the whole prompt plus what was generated.
    output_tokens = generation.chunks
    input_tokens = max(int(llm.n_tokens) - output_tokens, 0)
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
        calls=1,
    )
