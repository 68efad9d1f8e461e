"""The quote-first strategy: the passages quoted first, a model only when the quote is not verified.

A 1.5B model on two CPU cores reads a prompt at about 20 tokens a second and writes at about
11, so every model call is seconds and every token counts; a quote takes a fraction of a
second. So:

- plain lookups are planned by rule, the model plans the rest;
- the context is cut by the extractive scoring, not rewritten by the model;
- the first attempt quotes the passages (the extractive strategy);
- the deterministic check judges every answer (no model critic);
- an attempt the check does not verify is answered once the other way: by the model, in plain
  text with [n] markers, from the same passages (`retry = "other_way"`).

Any backend can stand behind it (ANSWER_STRATEGIES): the local provider's llama.cpp by default,
an OpenAI-compatible server of one's own by choice.
"""

from __future__ import annotations

from dataclasses import replace

from providers.llm.base import CallContext, RunCancelled
from queries.answering.extractive import ExtractiveStrategy
from queries.answering.extractive.questions import classify
from queries.answering.frame import QuestionFrame
from queries.answering.model import ModelStrategy
from queries.answering.types import (
    BY_MODEL,
    BY_QUOTE,
    DEFER_TO_CHECK,
    OTHER_WAY,
    Answer,
    Critique,
    Plan,
)


class QuoteFirstStrategy(ModelStrategy):
    """Quote first, the model when the check does not verify the quote; the check judges."""

    kind = "quote_first"
    retry = OTHER_WAY

    def __init__(self, name, backend) -> None:
        super().__init__(name, backend)
        self.quotes = ExtractiveStrategy(name, backend)

    def plan(self, frame: QuestionFrame, ctx: CallContext) -> Plan:
        """Plan a plain lookup by rule; ask the model only when the rules see more in it.

        A lookup ("Who runs the Porto office?") is retrieved whatever a model says about it;
        the model planner cost 3-6 s of a question on two cores (9-29 s through llama.cpp's
        server on an AVX2 machine). Questions the rules read as analytical, general
        knowledge, live or code still go to the model, which may add web search or read the
        question's kind, but not skip the documents the rules would search.
        """
        rules = self.quotes.plan(frame, ctx)
        if rules.plain_lookup:
            return replace(rules, planned_by="rules")
        planned = super().plan(frame, ctx)
        if rules.retrieve and not planned.retrieve:
            # A question the rules read as one about the documents is searched: a small model
            # planned a question over a phrase table as general knowledge and answered from
            # its memory, wrongly. Fails toward retrieval, as the spec's planner does on an
            # error.
            return replace(planned, retrieve=True)
        return planned

    def answer_direct(self, frame: QuestionFrame, ctx: CallContext) -> Answer:
        """Compute the arithmetic the rules read ("12*7 = 84", verified); the model answers
        the rest (unverified: nothing in the documents checks it)."""
        if classify(frame).expression:
            return self.quotes.answer_direct(frame, ctx)
        return super().answer_direct(frame, ctx)

    def compress(self, frame: QuestionFrame, context: str, ctx: CallContext) -> str:
        """Keep the sentences that matter most, by the extractive scoring: a small model
        rewriting 4,000 characters of context took longer than answering from it."""
        return self.quotes.compress(frame, context, ctx)

    def answer(self, frame, context, blocks, ctx, feedback="") -> Answer:
        """Quote on a first attempt; on a retry, ask the model afresh.

        The critique of a quote names the quote's sentences, not what the model should do:
        the model is asked without it. Asked again with a critique of its own answer, a small
        model mostly wrote the same answer 10 s later, so the model is never the retry of
        the model.
        """
        if not feedback:
            quote = self.quotes.answer(frame, context, blocks, ctx)
            if ctx.on_answer_text is not None and quote.text:
                # Shown as it is ready, as a model's answer is while it is written.
                ctx.on_answer_text(quote.text)
            return replace(quote, answered_by=BY_QUOTE)
        model = super().answer_plain(frame, context, blocks, ctx)
        return replace(model, answered_by=BY_MODEL)

    def answer_plain(self, frame, context, blocks, ctx, feedback="") -> Answer:
        return self.answer(frame, context, blocks, ctx, feedback)

    def critique(self, frame, context, answer, blocks, ctx) -> Critique:
        """Leave the verdict to the deterministic check: a small model's verdict on its own
        answer took 20-50 s on two cores and said "grounded" of answers citing the wrong file."""
        if ctx.is_cancelled():
            raise RunCancelled()
        return DEFER_TO_CHECK

    def rewrite_query(self, frame: QuestionFrame, feedback: str, ctx: CallContext) -> str:
        """Search again with the question as asked: the critique names the first answer's
        words, and words added from it sent the search elsewhere."""
        if ctx.is_cancelled():
            raise RunCancelled()
        return frame.text
