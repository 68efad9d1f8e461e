"""Grammar-constrained greedy sampling that asks the grammar about one token first.

llama-cpp-python puts a response format's grammar in the sampler chain, so every token runs the
grammar over the whole vocabulary (151,936 entries for Qwen2.5) before the greedy pick: on this
project's 2-core machines that was a third of each generated token's time. llama.cpp's own
server samples as `common_sampler_sample` does instead, and so does this: take the chain's pick
without the grammar, ask the grammar about that one token, and only when the grammar refuses it
run the grammar over every token and pick again. Under greedy sampling the token is the same
either way (the best token the grammar allows is the best token, when the grammar allows it),
so only greedy chains are sampled this way; any other chain keeps llama-cpp-python's.
"""

from __future__ import annotations

import ctypes

import numpy as np

# llama_token_data as numpy sees it: {int32 id; float logit; float p}.
TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)


class GrammarFirstCheck:
    """A sampler with the interface llama-cpp-python's generation loop uses (`sample`, `close`):
    `chain` is the greedy chain without the grammar, `grammar` a chain holding only it."""

    def __init__(self, chain, grammar, n_vocab: int) -> None:
        self.chain = chain
        self.grammar = grammar
        self.n_vocab = n_vocab
        self.picks = 0  # tokens sampled
        self.refused = 0  # of them, the chain's pick the grammar refused (sampled again)

    def sample(self, ctx, idx: int = -1) -> int:
        import llama_cpp

        logits = np.ctypeslib.as_array(
            llama_cpp.llama_get_logits_ith(ctx.ctx, idx), shape=(self.n_vocab,)
        )
        self.picks += 1
        token = self._pick(logits, with_grammar=False)
        if not self._allowed(token):
            self.refused += 1
            token = self._pick(logits, with_grammar=True)
        llama_cpp.llama_sampler_accept(self.grammar.sampler, token)
        llama_cpp.llama_sampler_accept(self.chain.sampler, token)
        return token

    def _pick(self, logits: np.ndarray, *, with_grammar: bool) -> int:
        import llama_cpp

        data = np.empty(self.n_vocab, dtype=TOKEN_DATA)
        data["id"] = np.arange(self.n_vocab, dtype=np.int32)
        data["logit"] = logits
        data["p"] = 0.0
        candidates = llama_cpp.llama_token_data_array(
            data=data.ctypes.data_as(llama_cpp.llama_token_data_p),
            size=self.n_vocab,
            selected=-1,
            sorted=False,
        )
        pointer = ctypes.byref(candidates)
        if with_grammar:
            llama_cpp.llama_sampler_apply(self.grammar.sampler, pointer)
        llama_cpp.llama_sampler_apply(self.chain.sampler, pointer)
        # A sampler may point `data` elsewhere; read the pick through the array it left.
        return int(candidates.data[candidates.selected].id)

    def _allowed(self, token: int) -> bool:
        import llama_cpp

        single = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 1.0, 0.0))
        candidates = llama_cpp.llama_token_data_array(
            data=single, size=1, selected=-1, sorted=False
        )
        llama_cpp.llama_sampler_apply(self.grammar.sampler, ctypes.byref(candidates))
        return bool(np.isfinite(candidates.data[0].logit))

    def close(self) -> None:
        self.chain.close()
        self.grammar.close()


def grammar_first_llama():
    """Return a subclass of llama_cpp.Llama whose greedy grammar-constrained sampling asks the
    grammar about the chain's pick first (imported lazily: llama-cpp-python is optional)."""
    from llama_cpp import Llama
    from llama_cpp._internals import LlamaSampler

    class GrammarFirstLlama(Llama):
        last_sampler: GrammarFirstCheck | None = None

        def _init_sampler(self, *args, grammar=None, **options):
            if grammar is None or options.get("temp", 0.8) != 0.0 or args:
                return super()._init_sampler(*args, grammar=grammar, **options)
            chain = super()._init_sampler(grammar=None, **options)
            only_grammar = LlamaSampler()
            only_grammar.add_grammar(self._model, grammar)
            self.last_sampler = GrammarFirstCheck(chain, only_grammar, self._n_vocab)
            return self.last_sampler

    return GrammarFirstLlama
