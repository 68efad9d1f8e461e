"""How a small chat model does the pipeline's tasks: few, short model calls, and quotes.

A 1.5B model on two CPU cores reads a prompt at about 20 tokens a second and writes at about
11, so every model call is seconds and every token counts. The local provider always works
this way, and the `openai` provider does against a self-hosted server (OPENAI_SMALL_MODEL):

- plain lookups are planned by rule (LOCAL_RULES_PLANNER), the model plans the rest;
- the context is cut by the extractive scoring, not rewritten by the model;
- the answer is plain text with [n] markers, no JSON envelope (LOCAL_ANSWER_FORMAT);
- the deterministic check judges the answer, not the model itself (LOCAL_MODEL_CRITIC);
- a plain lookup is answered first by quoting the passages (LOCAL_ANSWER_FIRST), in a
  fraction of a second; the model writes only when the check does not verify the quote;
- any other question is answered by the model first, and an answer the check does not verify
  (a refusal, a claim no passage supports, a word of the model's own) is answered again by
  quoting (LOCAL_RETRY).

Either way a question gets at most one attempt each way, and a retry searches again with the
question as asked.
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings

from providers.llm import prompts
from providers.llm.base import CallContext, RunCancelled
from providers.llm.chat import ChatModelProvider

# LOCAL_RETRY: how a retry answers, after the check rejected the model's answer.
RETRY_EXTRACTIVE = "extractive"
RETRY_MODEL = "model"
# LOCAL_ANSWER_FIRST: who answers a plain lookup first.
FIRST_QUOTE = "quote"
FIRST_MODEL = "model"
# Who wrote an attempt's answer (the reasoning event's additive `answered_by`).
BY_MODEL = "model"
BY_QUOTE = RETRY_EXTRACTIVE

_MARKER = re.compile(r"\[(\d+)\]")


def answer_system() -> str:
    """Return the system prompt of a small model's answers (LOCAL_ANSWER_FORMAT)."""
    if settings.LOCAL_ANSWER_FORMAT == "json":
        return prompts.ANSWER_SYSTEM
    return prompts.ANSWER_PLAIN_SYSTEM


def plain_result(text: str, sources) -> dict[str, Any]:
    """Return the answer fields of a plain-text answer.

    The model writes only the answer, with its [n] markers: the JSON envelope (confidence,
    cited sources, key facts) cost 30-60 more tokens, 3-6 s on two cores, and said nothing the
    deterministic check does not measure better. The cited sources are the markers; the
    confidence is 0.5 for an answer that cites (the check sets the run's), 0 for one that does
    not or says the documents do not hold it.
    """
    from providers.llm.checks.claims import REFUSAL

    known = {block.index for block in sources}
    cited = sorted({int(n) for n in _MARKER.findall(text)} & known) if known else []
    refusal = bool(REFUSAL.search(text))
    return {
        "answer": text,
        "confidence": 0.5 if cited and not refusal else 0.0,
        "cited_sources": cited,
        "key_facts": [],
        "is_sufficient": not refusal,
        "answered_by": BY_MODEL,
    }


def _plain_lookup(plan) -> bool:
    """Return whether the rules planner's plan is a plain document lookup."""
    return plan.retrieve and not plan.use_external and plan.query_type == "factual"


def _quote(query, context, sources, ctx) -> dict[str, Any]:
    """Answer by quoting the passages, as the offline provider does on a first attempt.

    The check's critique names the model's words, not the passages': passed on, it struck the
    very sentences the model had paraphrased badly. The quote reaches the run's answer text
    (`answer_delta`) at once, as a model's answer does while it is written.
    """
    from providers.llm.extractive import ExtractiveProvider

    result = ExtractiveProvider().answer(query, context, sources, ctx)
    if ctx.on_answer_text is not None and result.get("answer"):
        # Shown as it is ready, as a model's answer is while it is written.
        ctx.on_answer_text(str(result["answer"]))
    return {**result, "answered_by": BY_QUOTE}


class SmallModelTasks(ChatModelProvider):
    """The pipeline's tasks the way a small model does them, when `small_model()` says so."""

    def small_model(self) -> bool:
        return True

    def retries_other_way(self) -> bool:
        """Whether a retry answers the other way (a quote after the model, the model after a
        quote) rather than asking the model again: LOCAL_RETRY "extractive"."""
        return self.small_model() and settings.LOCAL_RETRY == RETRY_EXTRACTIVE

    def quotes_first(self, query: str) -> bool:
        """Whether this question is answered by quoting first: a plain lookup, by the rules
        planner's reading, when LOCAL_ANSWER_FIRST is "quote"."""
        from providers.llm.extractive.questions import classify

        if not self.retries_other_way() or settings.LOCAL_ANSWER_FIRST != FIRST_QUOTE:
            return False
        return _plain_lookup(classify(query))

    def _quotes_now(self, query: str, feedback: str) -> bool:
        """Whether this attempt quotes: the first way on a first attempt, the other on a retry."""
        return self.retries_other_way() and self.quotes_first(query) != bool(feedback)

    def plan(self, query: str, ctx: CallContext) -> dict[str, Any]:
        """Plan a plain lookup by rule; ask the model only when the rules see more in it.

        A lookup ("Who runs the Porto office?") is retrieved whatever a model says about it;
        the model planner cost 3-6 s of a question on two cores (9-29 s through llama.cpp's
        server on an AVX2 machine). Questions the rules read as analytical, general knowledge,
        live or code still go to the model.
        """
        from providers.llm.extractive.questions import classify

        if not self.small_model():
            return super().plan(query, ctx)
        rules = classify(query)
        if not settings.LOCAL_RULES_PLANNER or not _plain_lookup(rules):
            plan = super().plan(query, ctx)
            return {**plan, "planned_by": "model"}
        if ctx.is_cancelled():
            raise RunCancelled()
        return {
            "retrieve": rules.retrieve,
            "use_external": rules.use_external,
            "query_type": rules.query_type,
            "reasoning": rules.reasoning,
            "planned_by": "rules",
        }

    def compress(self, query: str, context: str, ctx: CallContext) -> str:
        """Keep the sentences that matter most, by the extractive scoring: a small model
        rewriting 4,000 characters of context took longer than answering from it."""
        from providers.llm.extractive import ExtractiveProvider

        if not self.small_model():
            return super().compress(query, context, ctx)
        return ExtractiveProvider().compress(query, context, ctx)

    def answer(self, query, context, sources, ctx, feedback=""):
        """Answer by quoting or with the model, whichever way this attempt takes.

        Asked again with the critique, a small model mostly wrote the same answer again, 10 s
        later: the other way is what the check may verify. The critique is of the other way's
        answer, so the model is asked afresh.
        """
        if not self.small_model():
            return super().answer(query, context, sources, ctx, feedback)
        if self._quotes_now(query, feedback):
            return _quote(query, context, sources, ctx)
        if self.retries_other_way():
            feedback = ""
        if settings.LOCAL_ANSWER_FORMAT == "json":
            return {
                **super().answer(query, context, sources, ctx, feedback),
                "answered_by": BY_MODEL,
            }
        text = super().answer_plain(query, context, sources, ctx, feedback).strip()
        return plain_result(text, sources)

    def answer_plain(self, query, context, sources, ctx, feedback=""):
        if self._quotes_now(query, feedback):
            return _quote(query, context, sources, ctx)["answer"]
        if self.retries_other_way():
            feedback = ""
        return super().answer_plain(query, context, sources, ctx, feedback)

    def rewrite_query(self, query: str, feedback: str, ctx: CallContext) -> str:
        """Search again with the question as asked when the retry answers the other way.

        The critique of a model's answer names the model's own wrong claims: words added from
        it sent the search elsewhere, and the quoted answer then came from worse passages.
        """
        if self.retries_other_way():
            if ctx.is_cancelled():
                raise RunCancelled()
            return query
        return super().rewrite_query(query, feedback, ctx)

    def reflect(self, query, context, answer, sources, ctx):
        """Leave the verdict to the deterministic check, unless LOCAL_MODEL_CRITIC asks the model.

        A small model's verdict on its own answer took 20-50 s on two cores and said "grounded"
        of answers citing the wrong file; the pipeline's check reads every answer anyway.
        """
        if not self.small_model() or settings.LOCAL_MODEL_CRITIC:
            return super().reflect(query, context, answer, sources, ctx)
        if ctx.is_cancelled():
            raise RunCancelled()
        return {
            "grounded": True,
            "confidence": 1.0,
            "issues": [],
            "feedback": "",
            "should_retry": False,
        }
