"""Scoring and choosing sentences: meaning, shared words, and the entity a question asks for.

A sentence's relevance is COSINE_WEIGHT * cosine + LEXICAL_WEIGHT * question-term coverage
(rare terms weigh more) + a small bonus for the reranker's order, computed on its text with
an opening pronoun replaced by its subject. Its score adds ENTITY_WEIGHT when it holds a new
entity of the type the question asks for (a person for "who"): relevance decides whether a
sentence may answer at all, the score which relevant sentence answers best. Each part of a
question gets its best sentence; a further one joins only above an absolute bar.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from providers import embedder
from providers.tokenize import bm25_tokens, raw_tokens
from queries.answering.extractive.entities import entity_strength
from queries.answering.extractive.questions import question_parts
from queries.answering.frame import DATE, QuestionFrame
from queries.answering.names import VERSION
from queries.answering.sentences import Sentence, normalise

COSINE_WEIGHT = 0.6
LEXICAL_WEIGHT = 0.4
# The best reranked source gets this bonus, the n-th gets RANK_BONUS / n: enough to break
# near-ties toward the reranker's choice, too small to override a clearly better sentence.
RANK_BONUS = 0.03
# Enough to prefer the sentence that names the answer among similarly relevant ones, not to
# lift one that is clearly less relevant.
ENTITY_WEIGHT = 0.15
NEAR_DUPLICATE_COSINE = 0.92
# The leading sentence of an answer needs this relevance; below it nothing is quoted.
RELEVANCE_THRESHOLD = 0.35
# A further sentence must clear this relevance on its own, reach this share of the leading
# sentence's, and share this many of the question's terms, one at least not a name: a
# sentence that matches one name of the question does not join just to cite another source.
SUPPORT_THRESHOLD = 0.55
RELATIVE_CUTOFF = 0.8
MIN_SUPPORT_TERMS = 2
MAX_SENTENCES = 3
# A retry after critic feedback looks further down the ranking so it can change the answer.
RETRY_THRESHOLD_DROP = 0.1
RETRY_RELATIVE_CUTOFF = 0.5
RETRY_MAX_SENTENCES = 5
# A sentence a chunk boundary cut short is quoted only when nothing whole is nearly as good.
CUT_PENALTY = 0.1
# The headings above a sentence say what it is about ("v3.2.0 › Known issues"): the share of
# the question's terms they hold adds this much.
SECTION_WEIGHT = 0.15
# A version the question names ("v3.2.0") in the sentence or its headings adds this much: the
# tokeniser splits versions into numbers that every release shares.
VERSION_WEIGHT = 0.2

# Question words and auxiliaries say what kind of answer is wanted, not what it is about.
_QUESTION_TERMS = frozenset(
    bm25_tokens("who whom whose what when where which why how many much does do did")
)
# Capitalised words after the first, and acronyms: the names a question mentions.
_NAME = re.compile(r"(?<=\S )[A-Z][\w'’-]*|\b[A-Z]{2,}\b")


@dataclass(frozen=True)
class PartScores:
    """Each sentence's relevance to one question part, its score, and the terms it matched."""

    answer_type: str
    relevance: np.ndarray
    score: np.ndarray
    # How clearly each sentence holds a new entity of the part's answer type (0 to 1).
    entity: np.ndarray
    # How many of the part's terms each sentence holds, and how many of those are not names.
    matched: list[int]
    matched_topic: list[int]
    terms: int
    topic_terms: int


def embed_sentences(sentences: list[Sentence]) -> np.ndarray:
    """Return the embeddings of the sentences' scored texts, one unit-norm row each."""
    return embedder.embed_texts([sentence.scored_text for sentence in sentences])


def score_part(
    text: str,
    answer_type: str,
    sentences: list[Sentence],
    vectors: np.ndarray,
    question_words: set[str] | None = None,
) -> PartScores:
    """Return the relevance and score of each sentence for one question (part)."""
    cosine = vectors @ embedder.embed_query(text)
    terms = set(bm25_tokens(text)) - _QUESTION_TERMS
    known = question_words if question_words is not None else set(raw_tokens(text))
    relevance = np.empty(len(sentences), dtype=np.float64)
    entity = np.array(
        [_entity(sentence, answer_type, known) for sentence in sentences], dtype=np.float64
    )
    # A name shared with the question says a sentence mentions it, not that it answers it.
    topic = terms - set(bm25_tokens(" ".join(_NAME.findall(text))))
    matched, matched_topic = [], []
    term_sets = [set(bm25_tokens(sentence.scored_text)) for sentence in sentences]
    # A term most candidate sentences share ("Super Bowl" in every sentence about it) tells
    # them apart less than a rare one, so coverage is weighted by the term's rarity among them.
    weights = {
        term: math.log(1 + len(sentences) / (1 + sum(term in ts for ts in term_sets)))
        for term in terms
    }
    total = sum(weights.values())
    section_terms: dict[tuple[str, ...], set[str]] = {}
    versions = {match.group(1) for match in VERSION.finditer(text)}
    for i, sentence in enumerate(sentences):
        sentence_terms = term_sets[i]
        if sentence.section not in section_terms:
            section_terms[sentence.section] = set(bm25_tokens(" ".join(sentence.section)))
        in_section = terms & (section_terms[sentence.section] - sentence_terms)
        section_cover = sum(weights[t] for t in in_section) / total if total else 0.0
        shared = len(terms & sentence_terms)
        matched.append(shared)
        matched_topic.append(len(topic & sentence_terms))
        lexical = sum(weights[t] for t in terms & sentence_terms) / total if total else 0.0
        relevance[i] = (
            COSINE_WEIGHT * float(cosine[i])
            + LEXICAL_WEIGHT * lexical
            + RANK_BONUS / (sentence.rank + 1)
            + SECTION_WEIGHT * section_cover
            + (VERSION_WEIGHT if versions and _names_version(sentence, versions) else 0.0)
            - (CUT_PENALTY if sentence.cut_start or sentence.cut_end else 0.0)
        )
    return PartScores(
        answer_type,
        relevance,
        relevance + ENTITY_WEIGHT * entity,
        entity,
        matched,
        matched_topic,
        len(terms),
        len(topic),
    )


# A date only a heading above the sentence holds ("Tue 14 January 2025 - leadership weekly"
# over "Decision: go with Maashaven") answers "when" less clearly than one in the sentence.
HEADING_DATE_STRENGTH = 0.5


def _entity(sentence: Sentence, answer_type: str, known: set[str]) -> float:
    """Return how clearly a sentence holds a new entity of the type; for a date, its heading
    may hold it (meeting notes date the decisions under them)."""
    strength = entity_strength(sentence.text, answer_type, known)
    if strength or answer_type != DATE:
        return strength
    dated = any(entity_strength(heading, DATE, known) for heading in sentence.section)
    return HEADING_DATE_STRENGTH if dated else 0.0


def ranking(scores: np.ndarray, sentences: list[Sentence]) -> list[int]:
    """Return sentence indices best first; ties go to the better-ranked source, then reading order."""
    return sorted(
        range(len(sentences)),
        key=lambda i: (-round(float(scores[i]), 6), sentences[i].rank, sentences[i].position),
    )


def near_duplicate(
    first: Sentence, second: Sentence, first_vector: np.ndarray, second_vector: np.ndarray
) -> bool:
    """Return whether two sentences say the same: overlapping chunks repeat sentences."""
    a, b = normalise(first.text), normalise(second.text)
    if a in b or b in a:
        return True
    return float(first_vector @ second_vector) >= NEAR_DUPLICATE_COSINE


def overlap(claim_tokens: set[str], other_tokens: set[str]) -> float:
    """Return the share of a claim's tokens that the other text holds."""
    return len(claim_tokens & other_tokens) / len(claim_tokens) if claim_tokens else 0.0


def choose_sentences(
    frame: QuestionFrame, candidates: list[Sentence], retrying: bool
) -> tuple[list[int], float]:
    """Return the indices of the sentences to quote, in answer order, and the best relevance."""
    drop = RETRY_THRESHOLD_DROP if retrying else 0.0
    threshold = RELEVANCE_THRESHOLD - drop
    vectors = embed_sentences(candidates)
    question_words = set(raw_tokens(frame.text))
    parts = [
        score_part(part.scored_text, part.answer_type, candidates, vectors, question_words)
        for part in question_parts(frame)
    ]
    best = max(float(part.relevance.max()) for part in parts)
    chosen: list[int] = []

    def repeats(i: int) -> bool:
        return any(
            near_duplicate(candidates[i], candidates[j], vectors[i], vectors[j]) for j in chosen
        )

    # Each part is answered by its best-scored sentence among those relevant enough; one
    # already quoted for an earlier part answers this one too only if it holds what this asks.
    for part in parts:
        relevant = [i for i in ranking(part.score, candidates) if part.relevance[i] >= threshold]
        if not relevant:
            continue
        top = relevant[0]
        if top in chosen or repeats(top):
            if not part.answer_type or part.entity[top] > 0:
                continue
            relevant = [i for i in relevant if part.entity[i] > 0]
        lead = next((i for i in relevant if i not in chosen and not repeats(i)), None)
        if lead is not None:
            chosen.append(lead)
    if not chosen:
        return [], best
    relevance = np.max([part.relevance for part in parts], axis=0)
    score = np.max([part.score for part in parts], axis=0)
    cutoff = RETRY_RELATIVE_CUTOFF if retrying else RELATIVE_CUTOFF
    bar = max(SUPPORT_THRESHOLD - drop, cutoff * max(relevance[i] for i in chosen))
    limit = RETRY_MAX_SENTENCES if retrying else MAX_SENTENCES
    for i in ranking(score, candidates):
        if len(chosen) >= limit:
            break
        if i in chosen or relevance[i] < bar or not _shares_terms(i, parts):
            continue
        if not repeats(i):
            chosen.append(i)
    return chosen, best


def _shares_terms(i: int, parts: list[PartScores]) -> bool:
    """Return whether sentence i shares enough of some part's terms, not just its names."""
    for part in parts:
        if not part.topic_terms:
            if part.matched[i] >= part.terms:
                return True
        elif part.matched_topic[i] and part.matched[i] >= min(MIN_SUPPORT_TERMS, part.terms):
            return True
    return False


def _names_version(sentence: Sentence, versions: set[str]) -> bool:
    found = VERSION.finditer(" ".join([*sentence.section, sentence.text]))
    return any(match.group(1) in versions for match in found)


_VERSION_QUESTION = re.compile(r"\b(?:release|version|update)\b", re.IGNORECASE)


def heading_lead(frame: QuestionFrame, sentence: Sentence) -> str:
    """Return the heading above a sentence that holds what the question asks for, or "".

    "When was v3.1.0 released?" is answered under the heading "v3.1.0 — 4 June 2024": the
    sentence names no date, its heading does, so the answer leads with the heading.
    """
    query = frame.text
    wanted = frame.answer_type
    known = set(raw_tokens(query))
    named = {match.group(1) for match in VERSION.finditer(query)}
    if named and wanted == DATE:
        # "When was v3.4.0 released?": the heading "v3.4.0 — 25 February 2025" says when.
        for heading in reversed(sentence.section):
            versions = {match.group(1) for match in VERSION.finditer(heading)}
            if versions & named and entity_strength(heading, DATE, known) > 0:
                return heading
    if _VERSION_QUESTION.search(query) and not VERSION.search(query):
        # "Which release added X?": the version heading above the sentence answers.
        if not VERSION.search(sentence.text):
            for heading in reversed(sentence.section):
                if VERSION.search(heading):
                    return heading
    if not wanted or entity_strength(sentence.text, wanted, known) > 0:
        return ""
    for heading in reversed(sentence.section):
        if entity_strength(heading, wanted, known) >= 1.0:
            return heading
    return ""
