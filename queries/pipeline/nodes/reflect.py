"""Reflect: grade the answer against the evidence; retry, escalate to the web, or finalize.

Two judges decide together. The strategy's critique (a model's, or the extractive rules')
and the same deterministic check for every answer (`queries/answering/checks/`): each claim must be supported by the passage it cites (a claim
without a marker gets one when a passage supports it), and the answer must address the
question. An answer is grounded only when both agree. When the documents do not answer the
question, the final answer says so, lists the closest passages, and is never shown as
verified.
"""

from __future__ import annotations

import logging

from django.conf import settings

from providers.llm.base import RunCancelled, public_error
from providers.reranker import get_reranker
from queries.answering.checks import CAVEAT, not_found_answer
from queries.answering.types import BY_MODEL, BY_TABLE, OTHER_WAY, Critique
from queries.answering.values import values
from queries.pipeline import stages
from queries.pipeline.context import RunContext, run_context
from queries.pipeline.sources import (
    UNABLE,
    build_sources,
    cited_indices,
    computed_answer,
    source_blocks,
)
from queries.pipeline.state import RAGState, question, question_frame
from queries.pipeline.verdict import (
    NOT_FOUND,
    NOT_FOUND_CONFIDENCE,
    UNVERIFIED,
    VERIFIED,
    Verdict,
    combine,
)

logger = logging.getLogger(__name__)

# The critic sees at most this much of the context (the spec's limit).
REFLECT_CONTEXT_CHARS = 4000
CLOSEST_PASSAGES = 3
NOT_GROUNDED = "The answer was not grounded in the evidence."
TENTATIVE_NOTE = (
    "Note: no passage states this. It is the table's likeliest reading, computed by a program "
    "that may not be the one you asked for."
)
FROM_MEMORY_ISSUE = "A model answered from its own knowledge: no document was searched for it."
FROM_MEMORY_NOTE = (
    "Note: this answer is the model's own knowledge; no document was searched for it, so "
    "nothing here checked it."
)
TENTATIVE_ISSUE = (
    "No passage states the answer; a table program that may not be the one asked for computed it."
)

_FINALIZE_MESSAGES = {
    VERIFIED: "Answer verified and finalized",
    UNVERIFIED: "Answer finalized with a caveat",
    NOT_FOUND: "Not found in the documents",
}


def _metadata(state: RAGState, *, verdict: str, confidence: float, issues: list) -> dict:
    return {
        "query_type": state.get("query_type") or "factual",
        "sources_used": [doc.get("source_type", "vector") for doc in state.get("context_docs", [])],
        "retry_count": state.get("retry_count", 0),
        "grounded": verdict == VERIFIED,
        "confidence": round(float(confidence), 2),
        "issues": list(issues),
        # Additive: what the answer card says (verified, unverified, not_found).
        "verdict": verdict,
        # Additive: the values the answer asserts, as data (a table program's result, a cell
        # read from a row); none when the answer says the documents do not hold it.
        **(
            {"answer_values": values}
            if (values := state.get("answer_values")) and verdict != NOT_FOUND
            else {}
        ),
    }


def _kept(state: RAGState, verdict: Verdict) -> dict:
    """Return what a later finalize needs of an attempt: its answer, sources and verdict."""
    return {
        "answer": state.get("answer", ""),
        "sources": state.get("sources", []),
        "context_docs": state.get("context_docs", []),
        "answer_values": state.get("answer_values", []),
        "verdict": {
            "grounded": verdict.grounded,
            "confidence": verdict.confidence,
            "issues": list(verdict.issues),
            "sufficient": verdict.sufficient,
            "answer": verdict.answer,
        },
    }


def _kept_attempt(state: RAGState, verdict: Verdict) -> tuple[RAGState, Verdict]:
    """Return the attempt whose answer stands, with its verdict."""
    first = state.get("first_attempt")
    if first and not verdict.grounded:
        # A retry's answer stands only when the check verifies it: a retry lowers the
        # relevance bar and reads other passages, and on the benchmarks (bench/) its
        # unverified answers were worse than the first (a right first quote replaced, a
        # "not found" turned into an unrelated quote).
        # The values it asserts go with it: the retry's are not the kept answer's.
        kept = {key: first[key] for key in ("answer", "sources", "context_docs")}
        state = {**state, **kept, "answer_values": first.get("answer_values", [])}
        verdict = Verdict(**first["verdict"])
    return state, verdict


def _with_cited_passages(answer: str, sources: list[dict], state: RAGState) -> list[dict]:
    """Return the sources with the passages the answer cites that are not among them yet."""
    cited = cited_indices(answer, []) - {source["index"] for source in sources}
    added = [s for s in build_sources(state.get("context_docs", [])) if s["index"] in cited]
    return sorted([*sources, *added], key=lambda source: source["index"])


def _not_found(state: RAGState) -> tuple[str, list[dict]]:
    """Return the answer that the documents do not answer the question, and the closest
    passages as its sources."""
    docs = state.get("context_docs", [])[:CLOSEST_PASSAGES]
    sources = build_sources(docs)
    answer = not_found_answer(
        question(state),
        [(source["file_name"], doc.get("section") or []) for source, doc in zip(sources, docs)],
    )
    return answer, sources


def _gives_the_kind_instead(state: RAGState, verdict: Verdict) -> bool:
    """Whether the check found that the answer's first sentence gives nothing of the kind the
    question asks for (a name for "which", a person for "who", a number for "how many") and
    the tentative table program's result is of that kind: "who approves the budgets?" keeps
    "the regional health authority" (no person the check knows) over a clinic's name."""
    if verdict.check is None or not verdict.check.unfitting:
        return False
    frame = question_frame(state)
    said = state["tentative_docs"][0]["structure"].get("values") or []
    return any(values(str(value), frame.answer_type, frame.text) for value in said)


def _finalize(run: RunContext, state: RAGState, verdict: Verdict, error: str = "") -> dict:
    state, verdict = _kept_attempt(state, verdict)
    answer = (verdict.answer or state.get("answer") or "").strip() or UNABLE
    sources = state.get("sources", [])
    if verdict.answer:
        # The check gave uncited claims the marker of their passage: keep those sources too.
        sources = _with_cited_passages(answer, sources, state)
    confidence = verdict.confidence
    if verdict.grounded:
        outcome = VERIFIED
    elif state.get("tentative_docs") and (
        not verdict.sufficient or _gives_the_kind_instead(state, verdict)
    ):
        # The passages found nothing, or nothing of the kind asked ("which incident …?" over a
        # log's opening line), but a table program the rules did not admit is likely enough
        # (TABLE_TENTATIVE_MIN): its result, as the table's likeliest reading.
        outcome = UNVERIFIED
        docs = state["tentative_docs"]
        structure = docs[0]["structure"]
        sources = build_sources(docs)
        answer, keep = computed_answer(docs, sources, lead="Probably")
        answer = f"{answer}\n\n{TENTATIVE_NOTE}"
        sources = [source for source in sources if source["index"] in keep]
        confidence = float(structure.get("confidence") or 0.0)
        verdict = Verdict(
            grounded=False, confidence=confidence, issues=[*verdict.issues, TENTATIVE_ISSUE]
        )
        state = {
            **state,
            "context_docs": docs,
            "answer_values": list(structure.get("values") or []),
        }
    elif not verdict.sufficient:
        outcome = NOT_FOUND
        answer, sources = _not_found(state)
        confidence = min(confidence, NOT_FOUND_CONFIDENCE)
    else:
        outcome = UNVERIFIED
        unchecked = FROM_MEMORY_ISSUE in verdict.issues
        answer = f"{answer}\n\n{FROM_MEMORY_NOTE if unchecked else CAVEAT}"
    run.emit(
        stages.FINALIZE,
        {
            "stage": stages.REFLECTION,
            "grounded": verdict.grounded,
            "message": _FINALIZE_MESSAGES[outcome],
            "verdict": outcome,
        },
    )
    metadata = _metadata(state, verdict=outcome, confidence=confidence, issues=verdict.issues)
    if error:
        metadata["error"] = error
    return {
        "final_answer": answer,
        "final_sources": sources,
        "grounded": verdict.grounded,
        "verdict": outcome,
        "issues": list(verdict.issues),
        "pipeline_metadata": metadata,
    }


def reflect(state: RAGState, config) -> dict:
    """Judge grounding; retry within budget, feeding the critique into the next attempt."""
    run = run_context(config)
    run.check_cancelled()
    retry_count = state.get("retry_count", 0)
    max_attempts = run.config.max_reflection_retries + 1
    run.emit(
        stages.STAGE_START,
        {
            "stage": stages.REFLECTION,
            "message": f"Checking the answer against the evidence (attempt {retry_count + 1}/{max_attempts})",
            "attempt": retry_count + 1,
            "max_attempts": max_attempts,
        },
    )
    try:
        verdict = _judge(run, state)
    except RunCancelled:
        raise
    except Exception as exc:
        # The critic's failure is handled in _judge; this is the check's own: nothing checked
        # the answer, so it is finalized unverified, never verified.
        logger.warning("the answer check failed", exc_info=True)
        message = public_error(exc)
        run.emit(stages.STAGE_ERROR, {"stage": stages.REFLECTION, "error": message})
        unchecked = Verdict(grounded=False, confidence=0.0, issues=["The answer was not checked."])
        return _finalize(run, state, unchecked, error=message)
    if verdict.error:
        # The critic failed: the spec fails open, but only the check decides, never nobody.
        run.emit(stages.STAGE_ERROR, {"stage": stages.REFLECTION, "error": verdict.error})
        return _finalize(run, state, verdict, error=verdict.error)

    will_retry, escalate = _next_step(run, state, verdict)
    if verdict.grounded:
        message = "Grounded"
    elif will_retry:
        message = "Not grounded — retrying"
    else:
        message = "Not grounded" if verdict.sufficient else "Not found in the documents"
    run.emit(
        stages.STAGE_COMPLETE,
        {
            "stage": stages.REFLECTION,
            "message": message,
            "grounded": verdict.grounded,
            "confidence": round(verdict.confidence, 2),
            "issues": verdict.issues,
            "will_retry": will_retry,
            "escalate_external": escalate,
            # Additive: whether the answer addresses the question at all.
            "sufficient": verdict.sufficient,
        },
    )
    if not will_retry:
        return _finalize(run, state, verdict)
    return _retry(run, state, verdict, escalate=escalate)


def _next_step(run: RunContext, state: RAGState, verdict: Verdict) -> tuple[bool, bool]:
    """Return whether to try again, and whether that try adds web search (weak evidence)."""
    retry_count = state.get("retry_count", 0)
    will_retry = (
        (not verdict.grounded)
        and verdict.should_retry
        and retry_count < run.config.max_reflection_retries
    )
    if not will_retry or state.get("use_external", False) or run.strategy.retry == OTHER_WAY:
        # A retry the other way reads the same passages: it never sends the question to the web.
        return will_retry, False
    docs = state.get("context_docs", [])
    floor = (run.reranker or get_reranker()).floor
    scores = [doc.get("rerank_score") for doc in docs if doc.get("rerank_score") is not None]
    weak_evidence = not docs or (bool(scores) and max(scores) < floor)
    return will_retry, weak_evidence


def _judge(run: RunContext, state: RAGState) -> Verdict:
    """Return the strategy's critique combined with the deterministic check."""
    docs = state.get("context_docs", [])
    answer = (state.get("answer") or "").strip()
    if not state.get("retrieve", True) and not docs:
        return _judge_direct(state)
    if not answer or answer == UNABLE:
        # An empty answer is a failed attempt; the budget, not the recursion limit, ends it.
        return Verdict(
            grounded=False,
            confidence=0.0,
            issues=["The answer is empty."],
            feedback="No answer was produced; find evidence that answers the question.",
            should_retry=True,
        )
    if state.get("answered_by") == BY_TABLE:
        return _judge_computed(state)
    blocks = source_blocks(build_sources(docs), docs)
    critic, error = _critic(run, state, answer, blocks)
    check = run.checks(question_frame(state), answer, blocks, term_stats=state.get("term_stats"))
    return combine(
        critic,
        check,
        answer_doubts=state.get("is_sufficient") is False,
        retry_count=state.get("retry_count", 0),
        error=error,
        other_way=run.strategy.retry == OTHER_WAY,
    )


def _judge_direct(state: RAGState) -> Verdict:
    """Direct-answer mode: there is no evidence to check the answer against. An answer that
    declines (the extractive strategy's to a general question) is not verified, nor one a model
    wrote from its own knowledge ("verified" means checked against the documents): only a
    greeting, or what the rules computed ("12*7 = 84"), stands verified. Neither is retried:
    the plan sends a retry to the same place."""
    answer = (state.get("answer") or "").strip()
    if state.get("is_sufficient") is False or not answer or answer == UNABLE:
        issues = ["The question was not answered."]
    elif state.get("answered_by") == BY_MODEL and state.get("query_type") != "conversational":
        issues = [FROM_MEMORY_ISSUE]
    else:
        issues = []
    return Verdict(
        grounded=not issues, confidence=float(state.get("confidence", 0.5)), issues=issues
    )


def _judge_computed(state: RAGState) -> Verdict:
    """A table program's answer is its result, so there is no claim to check against the
    passages: it is verified when the parser was sure enough of the program that computed it
    (TABLE_VERIFY_MIN), else shown with the caveat. It is never retried: a retry computes the
    same program."""
    confidence = float(state.get("confidence") or 0.0)
    grounded = confidence >= settings.TABLE_VERIFY_MIN
    issues = (
        [] if grounded else ["The program that computed the answer may not be the one asked for."]
    )
    return Verdict(grounded=grounded, confidence=confidence, issues=issues)


def _critic(run: RunContext, state: RAGState, answer: str, blocks) -> tuple[Critique, str]:
    """Return the strategy's critique, and its failure as a user may read it ("" if none).

    A critic that fails leaves the check to decide alone: its verdict is read as grounded.
    """
    try:
        critic = run.strategy.critique(
            question_frame(state),
            (state.get("context") or "")[:REFLECT_CONTEXT_CHARS],
            answer,
            blocks,
            run.call,
        )
    except RunCancelled:
        raise
    except Exception as exc:
        logger.warning("the critic failed; the check decides alone", exc_info=True)
        failed = Critique(grounded=True, confidence=float(state.get("confidence", 0.0)))
        return failed, public_error(exc)
    return critic, ""


def _retry(run: RunContext, state: RAGState, verdict: Verdict, *, escalate: bool) -> dict:
    retry_count = state.get("retry_count", 0)
    attempt = retry_count + 2
    max_attempts = run.config.max_reflection_retries + 1
    # Never empty: the next attempt knows it is one (a small model answers the other way).
    reason = verdict.feedback or "; ".join(verdict.issues) or NOT_GROUNDED
    run.emit(
        stages.RETRY,
        {
            "attempt": attempt,
            "max_attempts": max_attempts,
            "reason": reason,
            "escalate_external": escalate,
            "message": f"Retrying with adjusted strategy (attempt {attempt}/{max_attempts})",
        },
    )
    try:
        retrieval_query = run.strategy.rewrite_query(question_frame(state), reason, run.call)
    except RunCancelled:
        raise
    except Exception:
        logger.warning("query rewrite failed", exc_info=True)
        retrieval_query = question(state)
    answered = (state.get("answer") or UNABLE) != UNABLE
    return {
        # An empty first attempt is none: the next answered one takes its place.
        "first_attempt": state.get("first_attempt")
        or (_kept(state, verdict) if answered else None),
        "retry_count": retry_count + 1,
        "feedback": reason,
        "use_external": state.get("use_external", False) or escalate,
        "retrieval_query": retrieval_query or question(state),
        "grounded": False,
        "issues": verdict.issues,
        "final_answer": "",
    }
