"""The extractive strategy: rules for planning, quoted evidence sentences for answers.

No generative model is involved and nothing is random, so the same inputs always give the
same outputs. A table row or a numbered list answers from its structure first ("64 is the head
count for Porto [1].", "Step 3 of “Rolling back”: ..."); otherwise answers are sentences
quoted verbatim from the sources (a heading that holds the date asked for may lead them),
each followed by its [n] citation, which is what lets `reflect` check them mechanically. Each part of a question
is answered by the relevant sentence that best holds what it asks for; a further sentence
joins only when it is relevant on its own, never just to cite another source.
"""

from __future__ import annotations

import json

from django.conf import settings

from knowledge.chunk_kinds import KIND_ROW, KIND_TABLE
from providers.llm.base import CallContext, RunCancelled, Usage
from providers.tokenize import bm25_tokens, raw_tokens
from queries.answering.checks import CAVEAT_LINE, check_answer
from queries.answering.extractive.arithmetic import (
    ArithmeticRejected,
    evaluate_arithmetic,
    format_number,
)
from queries.answering.extractive.entities import entity_strength
from queries.answering.extractive.feedback import (
    UNSUPPORTED_MARKER,
    excluded_by_feedback,
    is_rejected,
    query_with_feedback,
)
from queries.answering.extractive.followups import condense
from queries.answering.extractive.questions import (
    FAREWELL,
    THANKS,
    classify,
)
from queries.answering.extractive.scoring import (
    choose_sentences,
    embed_sentences,
    heading_lead,
    ranking,
    score_part,
)
from queries.answering.extractive.structured import structured_answer
from queries.answering.frame import DESCRIPTION, QuestionFrame
from queries.answering.sentences import (
    block_sentences,
    normalise,
    parse_context_blocks,
)
from queries.answering.strategy import Strategy
from queries.answering.types import Answer, Critique, Plan, SourceBlock

NOT_FOUND = "I could not find an answer to this question in the provided documents."

SUFFICIENT_THRESHOLD = 0.5


class ExtractiveStrategy(Strategy):
    """Answers by quoting the sources' most relevant sentences; plans and checks by rules."""

    kind = "extractive"

    def _start(self, stage: str, ctx: CallContext) -> None:
        if ctx.is_cancelled():
            raise RunCancelled()
        ctx.record(stage, Usage(calls=1))

    def plan(self, frame: QuestionFrame, ctx: CallContext) -> Plan:
        self._start("planner", ctx)
        rules = classify(frame)
        return Plan(
            retrieve=rules.retrieve,
            use_external=rules.use_external,
            query_type=rules.query_type,
            reasoning=rules.reasoning,
            expression=rules.expression,
        )

    def answer_direct(self, frame: QuestionFrame, ctx: CallContext) -> Answer:
        """Greet, compute arithmetic, or say honestly that it cannot answer (a decline)."""
        self._start("reasoning", ctx)
        query = frame.text
        plan = classify(frame)
        if plan.query_type == "conversational":
            text = (query or "").lower()
            if THANKS.search(text):
                opening = "You're welcome!"
            elif FAREWELL.search(text):
                opening = "Goodbye, and come back any time!"
            else:
                opening = "Hello!"
            return _direct(
                f"{opening} I answer questions from your team's uploaded documents: add files to a "
                "knowledge base, ask a question, and I quote the passages that answer it with [n] "
                "citations to their sources."
            )
        if plan.expression:
            try:
                value = evaluate_arithmetic(plan.expression)
            except ArithmeticRejected as exc:
                return _direct(f"I cannot compute that: {exc}.", declines=True)
            return _direct(f"{plan.expression.replace('**', '^')} = {format_number(value)}")
        if plan.retrieve:
            return _direct(
                "No passages were retrieved from your documents for this question, so the offline "
                "extractive provider has nothing to quote. Try rephrasing it, or upload documents "
                "that cover it.",
                declines=True,
            )
        return _direct(
            "The offline extractive provider answers only from your team's documents, by quoting "
            "them, so it cannot answer this kind of question on its own. Configure a generative "
            "provider (OpenAI or Ollama) to get answers to general, coding or live questions.",
            declines=True,
        )

    def answer(
        self,
        frame: QuestionFrame,
        context: str,
        blocks: list[SourceBlock],
        ctx: CallContext,
        feedback: str = "",
    ) -> Answer:
        self._start("reasoning", ctx)
        blocks = list(blocks) or [block for _, block in parse_context_blocks(context)]
        retrying = bool(feedback.strip())
        rejected = excluded_by_feedback(feedback) if retrying else []
        structured = structured_answer(frame, blocks)
        if structured is not None and not structured.text:
            # The structure says the documents hold no such item ("step 9" of six).
            return _not_found(0.0)
        if structured is not None and not (
            rejected and is_rejected(set(bm25_tokens(structured.text)), rejected)
        ):
            return Answer(
                text=structured.text,
                confidence=structured.confidence,
                cited=tuple(structured.cited),
                key_facts=tuple(structured.facts),
                is_sufficient=True,
                values=tuple(structured.values),
            )
        candidates = _quotable_sentences(blocks, rejected)
        if not candidates:
            return _not_found(0.0)
        if ctx.is_cancelled():
            raise RunCancelled()
        chosen, best = choose_sentences(frame, candidates, retrying)
        if not chosen:
            return _not_found(best)
        if frame.answer_type == DESCRIPTION and not frame.wh:
            chosen = _summary(candidates, chosen)
        facts = _quoted_facts(frame, candidates, chosen)
        return Answer(
            text=" ".join(
                f"{fact} [{candidates[i].block}]" for fact, i in zip(facts, chosen, strict=True)
            ),
            confidence=round(min(max(best, 0.0), 1.0), 2),
            cited=tuple(sorted({candidates[i].block for i in chosen})),
            key_facts=tuple(facts),
            is_sufficient=best >= SUFFICIENT_THRESHOLD,
        )

    def critique(
        self,
        frame: QuestionFrame,
        context: str,
        answer: str,
        blocks: list[SourceBlock],
        ctx: CallContext,
    ) -> Critique:
        self._start("reflection", ctx)
        by_index = {
            block.index: block
            for block in (list(blocks) or [b for _, b in parse_context_blocks(context)])
        }
        lines = [
            line
            for line in (answer or "").splitlines()
            if line.strip() and not CAVEAT_LINE.match(line)
        ]
        body = "\n".join(lines).strip()
        if not body:
            return _verdict(
                False,
                0.0,
                ["The answer is empty."],
                "No answer was produced; quote evidence that answers the question.",
            )
        if normalise(body).startswith(normalise(NOT_FOUND)[:40]):
            return _verdict(
                False,
                0.0,
                ["No source sentence was relevant enough to answer the question."],
                "No sentence passed the relevance threshold; widen to more, weaker evidence.",
            )
        check = check_answer(frame, body, list(by_index.values()), assign_markers=False)
        if not check.claims:
            return _verdict(
                False,
                0.0,
                ["The answer has no checkable sentence."],
                "Quote evidence sentences with [n] citations.",
            )
        unsupported = [claim.text for claim in check.unsupported]
        if not unsupported:
            return _verdict(True, round(check.supported_share, 2), [], "")
        feedback = (
            UNSUPPORTED_MARKER + json.dumps(unsupported, ensure_ascii=False) + "\n"
            "Drop these sentences and quote only sentences that appear in the sources they cite."
        )
        return _verdict(False, round(check.supported_share, 2), check.issues, feedback)

    def compress(self, frame: QuestionFrame, context: str, ctx: CallContext) -> str:
        self._start("compressor", ctx)
        query = frame.text
        limit = int(ctx.context_chars or settings.MAX_CONTEXT_CHARS)
        parsed = parse_context_blocks(context)
        labels = {block.index: label for label, block in parsed}
        sentences = block_sentences([block for _, block in parsed])
        if not sentences:
            return ""
        vectors = embed_sentences(sentences)
        scores = score_part(query, frame.answer_type, sentences, vectors).score
        kept: dict[int, list[int]] = {}
        total = 0
        for i in ranking(scores, sentences):
            sentence = sentences[i]
            label = labels[sentence.block]
            if sentence.block in kept:
                cost = len(sentence.text) + 1
            else:
                # A new block costs its label line, a newline and the blank line before it.
                cost = len(label) + 1 + len(sentence.text) + (2 if kept else 0)
                if not label:
                    cost -= 1
            if total + cost > limit:
                continue
            kept.setdefault(sentence.block, []).append(i)
            total += cost
        if not kept:
            best = sentences[ranking(scores, sentences)[0]]
            label = labels[best.block]
            room = max(limit - len(label) - 1, 0)
            return f"{label}\n{best.text[:room]}".strip() if label else best.text[:limit]
        output = []
        for label, block in parsed:
            if block.index not in kept:
                continue
            body = " ".join(
                sentences[i].text
                for i in sorted(kept[block.index], key=lambda i: sentences[i].position)
            )
            output.append(f"{label}\n{body}" if label else body)
        return "\n\n".join(output)

    def rewrite_query(self, frame: QuestionFrame, feedback: str, ctx: CallContext) -> str:
        self._start("reflection", ctx)
        if not (feedback or "").strip():
            return frame.text
        return query_with_feedback(frame.text, feedback)

    def condense(self, query: str, history: list[dict[str, str]], ctx: CallContext) -> str:
        if not history:
            return query
        self._start("condense", ctx)
        return condense(query, history) or query


SHORT_LEAD_WORDS = 5
# "Summarize the travel policy": the best passage's sentences, in reading order, up to this.
SUMMARY_SENTENCES = 5


def _quotable_sentences(blocks: list[SourceBlock], rejected: list) -> list:
    """Return the sentences of the passages that may be quoted as an answer, less those the
    feedback on a previous attempt rejected."""
    # Table rows are read by the structure above, never quoted as sentences: a record
    # quoted whole is a dump, not an answer.
    quotable = [block for block in blocks if block.kind not in (KIND_ROW, KIND_TABLE)]
    candidates = [sentence for sentence in block_sentences(quotable) if sentence.answerable]
    if rejected:
        candidates = [s for s in candidates if not is_rejected(set(bm25_tokens(s.text)), rejected)]
    return candidates


def _quoted_facts(frame: QuestionFrame, candidates: list, chosen: list[int]) -> list[str]:
    """Return the chosen sentences as quoted, the first with the sentence that goes on from it
    and the heading that says what it is about."""
    facts = [candidates[i].quoted for i in chosen]
    following = _continuation(candidates, chosen[0])
    if following is not None and following not in chosen:
        # "Company offsite - approved." says little alone; the next sentence goes on. Each
        # carries its marker: the check reads every sentence as a claim.
        marker = candidates[chosen[0]].block
        lead, rest = facts[0], candidates[following].quoted
        if _holds_answer(frame, rest) and not _holds_answer(frame, lead):
            # "Where ...?": the sentence that holds the place leads.
            lead, rest = rest, lead
        facts[0] = f"{lead} [{marker}] {rest}"
    heading = heading_lead(frame, candidates[chosen[0]])
    if heading:
        facts[0] = f"{heading}: {facts[0]}"
    return facts


def _summary(candidates: list, chosen: list[int]) -> list[int]:
    """Return the sentences that summarise the best passage: a request to summarise or
    describe is answered by the passage, not by its one sentence nearest the request's words."""
    block = candidates[chosen[0]].block
    same = [i for i, sentence in enumerate(candidates) if sentence.block == block]
    same.sort(key=lambda i: candidates[i].position)
    return same[:SUMMARY_SENTENCES]


def _continuation(candidates: list, lead: int) -> int | None:
    """Return the sentence that goes on from a very short lead sentence of the same passage."""
    sentence = candidates[lead]
    if len(sentence.text.split()) >= SHORT_LEAD_WORDS:
        return None
    for index, other in enumerate(candidates):
        if other.block == sentence.block and other.position == sentence.position + 1:
            return index
    return None


def _holds_answer(frame: QuestionFrame, sentence: str) -> bool:
    """Return whether a sentence holds a new thing of the kind the question asks for."""
    return entity_strength(sentence, frame.answer_type, set(raw_tokens(frame.text))) > 0


def _direct(text: str, *, declines: bool = False) -> Answer:
    return Answer(text=text, confidence=0.5, is_sufficient=not declines)


def _not_found(best: float) -> Answer:
    return Answer(
        text=NOT_FOUND,
        confidence=round(min(max(best, 0.0), 1.0) * 0.5, 2),
        is_sufficient=False,
    )


def _verdict(grounded: bool, confidence: float, issues: list[str], feedback: str) -> Critique:
    return Critique(
        grounded=grounded,
        confidence=confidence,
        issues=tuple(issues),
        feedback=feedback,
        should_retry=not grounded,
    )
