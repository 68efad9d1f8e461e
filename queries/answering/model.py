"""The model strategy: a chat model plans, compresses, answers in JSON and judges, as the spec has it.

Prompts are in `prompts.py`, the JSON schemas of the three JSON stages in `schemas.py`; the
backend streams each reply under its output budget and deadline. Replies are read with the
spec's tolerance: JSON found inside chatter or code fences, missing keys defaulted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from langchain_core.utils.json import parse_partial_json

from knowledge.tables.model_sql import SYSTEM as TABLE_QUERY_SYSTEM
from providers.llm import chat
from providers.llm.base import CallContext, ProviderError
from queries.answering import prompts, schemas
from queries.answering.checks.claims import CITATION, REFUSAL
from queries.answering.frame import QuestionFrame
from queries.answering.strategy import Strategy
from queries.answering.types import BY_MODEL, Answer, AnsweredBy, Critique, Plan, SourceBlock

# The longest standalone question kept from a model's reply.
MAX_STANDALONE_CHARS = 500
# Labels small models put before a rewritten question ("Standalone question:", "User:").
_LABELS = ("user", "question", "query", "standalone question", "rewritten question")


def parse_json(text: str) -> dict[str, Any]:
    """Return the first JSON object in a model's reply, tolerating code fences and chatter."""
    text = text or ""
    decoder = json.JSONDecoder()
    start = text.find("{")
    error: json.JSONDecodeError | None = None
    while start >= 0:
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            error = error or exc
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    if error is not None:
        raise ProviderError(f"the model returned invalid JSON: {error}", code="invalid_json")
    raise ProviderError("the model returned no JSON object", code="invalid_json")


def standalone_line(reply: str) -> str:
    """Return the question in a condense reply: its first line, without labels, quotes or the
    prompt's fence markers (which small models echo)."""
    for line in (reply or "").splitlines():
        line = prompts.strip_fence_markers(line).strip()
        lowered = line.lower()
        for label in _LABELS:
            if lowered.startswith(label) and lowered[len(label) :].lstrip().startswith(":"):
                line = line[len(label) :].lstrip()[1:].strip()
                break
        line = line.strip("\"'`“”").strip()
        if line:
            return line[:MAX_STANDALONE_CHARS].strip()
    return ""


def partial_answer(text: str) -> str:
    """Return the `answer` field of a JSON reply that is still being written ('' if none yet)."""
    start = text.find("{")
    if start < 0:
        return ""
    try:
        value = parse_partial_json(text[start:])
    except Exception:
        return ""
    answer = value.get("answer") if isinstance(value, dict) else None
    return answer if isinstance(answer, str) else ""


def plain_answer(
    text: str, blocks: list[SourceBlock], answered_by: AnsweredBy | None = None
) -> Answer:
    """Return the Answer of a plain-text reply: its [n] markers are its citations.

    The model writes only the answer: the JSON envelope (confidence, cited sources, key facts)
    cost a small model 30-60 more tokens, 3-6 s on two cores, and said nothing the
    deterministic check does not measure better. The confidence is 0.5 for an answer that
    cites (the check sets the run's), 0 for one that does not or says the documents do not
    hold it.
    """
    known = {block.index for block in blocks}
    markers = {
        int(n) for group in CITATION.findall(text) for n in group.replace(";", ",").split(",")
    }
    cited = tuple(sorted(markers & known)) if known else ()
    refusal = bool(REFUSAL.search(text))
    return Answer(
        text=text,
        confidence=0.5 if cited and not refusal else 0.0,
        cited=cited,
        is_sufficient=not refusal,
        answered_by=answered_by,
    )


class ModelStrategy(Strategy):
    """Every task by the model: the planner, the compression, a JSON answer and the critic."""

    kind = "model"

    def _ask(
        self,
        task: str,
        stage: str,
        system: str,
        user: str,
        ctx: CallContext,
        *,
        json_reply: bool = False,
        on_text: Callable[[str], None] | None = None,
    ) -> str:
        schema = schemas.BY_STAGE[stage] if json_reply else None
        request = self.backend.request(
            task, stage, system=system, user=user, ctx=ctx, schema=schema
        )
        return self.backend.complete(request, ctx, on_text)

    def _answer_stream(self, ctx: CallContext, *, json_reply: bool):
        """Return the callback that hands the answer written so far to the run, if it wants it."""
        if ctx.on_answer_text is None:
            return None
        if not json_reply:
            return ctx.on_answer_text

        def relay(text: str) -> None:
            answer = partial_answer(text)
            if answer:
                ctx.on_answer_text(answer)

        return relay

    def condense(self, query: str, history: list[dict[str, str]], ctx: CallContext) -> str:
        if not history:
            return query
        user = (
            prompts.fence("CONVERSATION", prompts.conversation_transcript(history))
            + "\n\n"
            + prompts.fence("QUESTION", query)
            + "\n\n"
            + prompts.CONDENSE_REMINDER
        )
        reply = self._ask(chat.CONDENSE, "condense", prompts.CONDENSE_SYSTEM, user, ctx)
        return standalone_line(reply) or query

    def plan(self, frame: QuestionFrame, ctx: CallContext) -> Plan:
        reply = self._ask(
            chat.PLAN,
            "planner",
            prompts.PLANNER_SYSTEM,
            prompts.fence("QUESTION", frame.text),
            ctx,
            json_reply=True,
        )
        plan = parse_json(reply)
        if "retrieve" not in plan:
            raise ProviderError("the plan has no 'retrieve' decision", code="invalid_json")
        return Plan.from_reply(plan, planned_by="model")

    def context_budget(self, context: str, ctx: CallContext) -> int | None:
        return self.backend.context_chars(context, ctx.model)

    def compress(self, frame: QuestionFrame, context: str, ctx: CallContext) -> str:
        user = prompts.fence("QUESTION", frame.text) + "\n\n" + prompts.fence("CONTEXT", context)
        reply = self._ask(chat.COMPRESS, "compressor", prompts.COMPRESS_SYSTEM, user, ctx)
        return reply.strip()

    def answer(self, frame, context, blocks, ctx, feedback=""):
        reply = self._ask(
            chat.ANSWER,
            "reasoning",
            prompts.ANSWER_SYSTEM,
            prompts.answer_user(context, frame.text, feedback),
            ctx,
            json_reply=True,
            on_text=self._answer_stream(ctx, json_reply=True),
        )
        result = parse_json(reply)
        if "answer" not in result:
            raise ProviderError("the answer JSON has no 'answer'", code="invalid_json")
        return Answer.from_reply(result)

    def answer_plain(self, frame, context, blocks, ctx, feedback=""):
        text = self._ask(
            chat.ANSWER_PLAIN,
            "reasoning",
            prompts.ANSWER_PLAIN_SYSTEM,
            prompts.answer_user(context, frame.text, feedback),
            ctx,
            on_text=self._answer_stream(ctx, json_reply=False),
        ).strip()
        return plain_answer(text, blocks)

    def answer_direct(self, frame: QuestionFrame, ctx: CallContext) -> Answer:
        text = self._ask(
            chat.DIRECT,
            "reasoning",
            prompts.DIRECT_SYSTEM,
            prompts.fence("QUESTION", frame.text),
            ctx,
            on_text=self._answer_stream(ctx, json_reply=False),
        ).strip()
        # Written from the model's own knowledge: nothing in the documents checks it.
        return Answer(
            text=text,
            confidence=0.5,
            is_sufficient=not REFUSAL.search(text),
            answered_by=BY_MODEL,
        )

    def critique(self, frame, context, answer, blocks, ctx) -> Critique:
        user = (
            prompts.fence("CONTEXT", context)
            + "\n\n"
            + prompts.fence("QUESTION", frame.text)
            + "\n\n"
            + prompts.fence("ANSWER", answer)
        )
        verdict = parse_json(
            self._ask(
                chat.REFLECT, "reflection", prompts.REFLECT_SYSTEM, user, ctx, json_reply=True
            )
        )
        if "grounded" not in verdict:
            raise ProviderError("the verdict has no 'grounded'", code="invalid_json")
        return Critique.from_reply(verdict)

    writes_table_queries = True

    def write_table_query(
        self, question: str, schema: str, ctx: CallContext, *, problem: str = ""
    ) -> str:
        user = prompts.fence("TABLES", schema) + "\n\n" + prompts.fence("QUESTION", question)
        if problem:
            # A query written before did not answer: the model sees it with why.
            user += "\n\n" + prompts.fence("A QUERY THAT DID NOT ANSWER", problem)
            user += "\n\nWrite a corrected query."
        return self._ask(chat.TABLE_QUERY, "retrieval", TABLE_QUERY_SYSTEM, user, ctx)

    def rewrite_query(self, frame: QuestionFrame, feedback: str, ctx: CallContext) -> str:
        if not feedback:
            return frame.text
        user = prompts.fence("QUESTION", frame.text) + "\n\n" + prompts.fence("FEEDBACK", feedback)
        rewritten = self._ask(chat.REWRITE, "reflection", prompts.REWRITE_SYSTEM, user, ctx).strip()
        return rewritten.splitlines()[0][:500] if rewritten else frame.text
