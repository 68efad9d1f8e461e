"""The pipeline's state: plain JSON-able values, so a run's record can keep any of it."""

from __future__ import annotations

from typing import Any, TypedDict

from queries.answering.frame import QuestionFrame, frame_question


class RAGState(TypedDict, total=False):
    query: str
    # The question rewritten to stand alone (a follow-up in a conversation), else the query.
    standalone_query: str
    # The question's frame (queries/answering/frame.py), read once by the planner.
    frame: dict[str, Any]
    retrieval_query: str
    retrieve: bool
    use_external: bool
    query_type: str
    planner_reasoning: str
    # Each store's hits, best first (store name -> hits; knowledge/retrieval/stores.py).
    store_hits: dict[str, list[dict[str, Any]]]
    web_hits: list[dict[str, Any]]
    candidates: list[dict[str, Any]]
    context_docs: list[dict[str, Any]]
    # A tentative table program's computed passage and rows (knowledge/tables/store.py): the
    # answer only when the passages find nothing.
    tentative_docs: list[dict[str, Any]]
    reranker: dict[str, Any]
    context: str
    answer: str
    confidence: float
    sources: list[dict[str, Any]]
    key_facts: list[str]
    # The answer's own judgement of its evidence; None when it gave none (a plain answer).
    is_sufficient: bool | None
    # Who wrote the attempt's answer when a strategy has more than one way ("model", or
    # "extractive": the passages quoted); "" otherwise.
    answered_by: str
    # The values the answer asserts, as data, when it is a value (a table program's result).
    answer_values: list
    grounded: bool
    # How many chunks the searched KBs hold, and how many hold each question term.
    term_stats: dict[str, Any]
    # "verified", "unverified" or "not_found": what the final answer card says.
    verdict: str
    issues: list[str]
    feedback: str
    retry_count: int
    # The first attempt (answer, sources, passages, verdict): a retry's answer replaces it
    # only when the check verifies it.
    first_attempt: dict[str, Any]
    final_answer: str
    final_sources: list[dict[str, Any]]
    pipeline_metadata: dict[str, Any]
    timings_ms: dict[str, float]


def question(state: RAGState) -> str:
    """Return the question the nodes work on: the standalone one once the planner has set it."""
    return state.get("standalone_query") or state["query"]


def question_frame(state: RAGState) -> QuestionFrame:
    """Return the question's frame as the planner read it (read now if no planner ran)."""
    if state.get("frame"):
        return QuestionFrame.from_dict(state["frame"])
    return frame_question(question(state))
