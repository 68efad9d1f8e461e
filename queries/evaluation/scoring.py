"""How an answer is scored against an evaluation item: the one scorer of the portal's
evaluations and of the `bench/` scripts (bench/team_answers.py imports it), so that the same
set scored by both gives the same numbers.

An outcome is anything with `answer`, `sources`, `metadata` and `standalone_query`: the
pipeline's `PipelineOutcome` (the bench, in process) or a finished `QueryRun` (the portal).
Text is compared as the benchmarks always have: lower-cased, a gold value found as a substring.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Protocol

from queries.answering.sentences import split_sentences

CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
# A citation followed by a capital ends a sentence even when the quoted text has no full stop.
CITED_BREAK = re.compile(r"(\[\d+(?:\s*[,;]\s*\d+)*\])\s+(?=[A-Z\"“(|])")
CAVEAT_PREFIX = "note: some claims"
NOT_FOUND_PREFIX = "i could not find"
VERIFIED, UNVERIFIED, NOT_FOUND = "verified", "unverified", "not_found"
VERDICTS = (VERIFIED, UNVERIFIED, NOT_FOUND)


class Outcome(Protocol):
    answer: str
    sources: list[dict]
    metadata: dict
    standalone_query: str | None


def normalise(text: str) -> str:
    """Return text as gold values are matched in it: lower-cased."""
    return (text or "").lower()


def answer_body(answer: str) -> str:
    """Return the answer without its caveat line."""
    return "\n".join(
        line for line in answer.splitlines() if not line.strip().lower().startswith(CAVEAT_PREFIX)
    ).strip()


def first_sentence(answer: str) -> str:
    """Return the first sentence of an answer's body (a cited break ends one too)."""
    body = CITED_BREAK.sub(r"\1\n\n", answer_body(answer))
    return (split_sentences(body) or [""])[0]


def verdict_of(outcome: Outcome) -> str:
    """Return what the answer card shows: verified, unverified, or not_found."""
    verdict = (outcome.metadata or {}).get("verdict")
    if verdict:
        return verdict
    # Runs from before the verdict existed: a "could not find" answer, else the badge.
    if answer_body(outcome.answer).lower().startswith(NOT_FOUND_PREFIX):
        return NOT_FOUND
    return VERIFIED if (outcome.metadata or {}).get("grounded") else UNVERIFIED


def cited_files(sentence: str, sources: list[dict]) -> set[str]:
    """Return the files a sentence's [n] markers point to."""
    by_index = {int(source["index"]): source["file_name"] for source in sources}
    numbers = {int(n) for group in CITATION.findall(sentence) for n in re.split(r"[,;]", group)}
    return {by_index.get(n, f"[{n}] (missing)") for n in numbers}


def score(item: dict, outcome: Outcome) -> dict[str, Any]:
    """Return what one answer got right.

    `item` holds the question's gold: `answers` (any one in the first sentence), or
    `answers_all` (every one anywhere in the answer), `sources` (the files that hold the fact),
    `kind` ("unanswerable": the documents do not hold it), `standalone_contains` (the words a
    follow-up's rewritten question keeps). The keys: `verdict`, `first_sentence`, and `right`
    (the fact first), `correct` (the fact anywhere), `cites_right`, `on_topic`, or for an
    unanswerable item `recognised` (not found) and `false_badge` (shown verified).
    """
    answer = outcome.answer or ""
    sentence = first_sentence(answer)
    first = normalise(sentence)
    verdict = verdict_of(outcome)
    result: dict[str, Any] = {"verdict": verdict, "first_sentence": sentence}
    if item.get("kind") == "unanswerable":
        result["recognised"] = verdict == NOT_FOUND
        result["false_badge"] = verdict == VERIFIED
        return result
    body = normalise(answer)
    if item.get("answers_all"):
        result["right"] = all(normalise(value) in body for value in item["answers_all"])
        result["correct"] = result["right"]
    else:
        result["right"] = any(normalise(value) in first for value in item.get("answers", []))
        result["correct"] = any(normalise(value) in body for value in item.get("answers", []))
    if verdict != NOT_FOUND and item.get("sources"):
        files = cited_files(sentence, outcome.sources or [])
        result["cites_right"] = bool(files) and files <= set(item["sources"])
    if item.get("standalone_contains"):
        standalone = normalise(outcome.standalone_query or "")
        result["on_topic"] = all(normalise(w) in standalone for w in item["standalone_contains"])
    return result


def retrieval_ranks(ranked_ids: list, relevant_ids: Iterable[int]) -> dict[str, float]:
    """Return recall@k (k: the ranked list's length; share of relevant passages in it) and the
    reciprocal rank of the first relevant passage (0 when none is ranked)."""
    relevant = set(relevant_ids)
    if not relevant:
        return {}
    found = [rank for rank, ref in enumerate(ranked_ids, start=1) if ref in relevant]
    return {
        "recall_at_k": len(relevant & set(ranked_ids)) / len(relevant),
        "reciprocal_rank": 1.0 / found[0] if found else 0.0,
        "k": len(ranked_ids),
    }


def share(rows: list[dict], key: str) -> dict[str, Any] | None:
    """Return the share of rows whose `key` is true, among the rows that have it."""
    values = [bool(row[key]) for row in rows if key in row]
    if not values:
        return None
    return {"share": sum(values) / len(values), "hits": sum(values), "n": len(values)}


def mean(rows: list[dict], key: str) -> dict[str, Any] | None:
    """Return the mean of `key` over the rows that have it."""
    values = [float(row[key]) for row in rows if key in row]
    if not values:
        return None
    return {"mean": sum(values) / len(values), "n": len(values)}
