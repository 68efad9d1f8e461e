"""Words of a question and of the evidence: which matter, which mean the same, which are rare.

The answer check (this package) compares words, not strings: stems (Snowball, as BM25 does),
small synonym groups for what tables and questions call the same thing, spellings a letter
apart (a typo, "Brazil" and "Brazilian"), single-word embeddings for words that mean nearly the
same, and wordfreq's Zipf frequency for how common a word is in English.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from providers import embedder
from providers.tokenize import STOP_WORDS, bm25_tokens, raw_tokens
from queries.answering.lexicon import groups, words

# spaCy's English stop words, as a word list: importing spaCy would import thinc and torch.
SPACY_STOP_WORDS = words("spacy_stop_words")

# Words that say what kind of answer is wanted, not what it is about.
QUESTION_WORDS = words("question_words")


# Words that name the same thing in a question and in a table or a passage. One group per
# meaning; matched on stems.
SYNONYM_GROUPS: tuple[frozenset[str], ...] = tuple(
    frozenset(bm25_tokens(" ".join(group))) for group in groups("synonym_groups")
)


# Words at least this common in English (Zipf scale: 4.5 is once per 30,000 words) are often
# said in other words, so they weigh less and their absence proves nothing.
COMMON_ZIPF = 4.5


MAX_EVIDENCE_WORDS = 400


# A question word counts as found when an evidence word means nearly the same...
NEAR_WORD_COSINE = 0.45


# ... or is spelled nearly the same (a typo: "ARPNET" for "ARPANET", "Brazilian").
SHARED_PREFIX = 5


NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")


def question_terms(question: str) -> list[tuple[str, str]]:
    """Return the question's content words with their stems: what the answer must address.

    Not its function words: BM25's short stop list, spaCy's English stop words ("from",
    "himself", "put"), and the words that say what kind of answer is wanted."""
    terms: dict[str, str] = {}
    for word in raw_tokens(question):
        if word in STOP_WORDS or word in SPACY_STOP_WORDS or word in QUESTION_WORDS:
            continue
        if len(word) < 2:
            continue
        stems = bm25_tokens(word)
        if stems and stems[0] not in terms.values():
            terms[word] = stems[0]
    return list(terms.items())


def evidence_words(text: str, limit: int | None = MAX_EVIDENCE_WORDS) -> list[str]:
    words = [
        w
        for w in dict.fromkeys(raw_tokens(text.replace("%", " percent ")))
        if w not in STOP_WORDS and len(w) > 2 and not NUMBER.fullmatch(w)
    ]
    return words[:limit] if limit else words


def spelled_like(word: str, words) -> bool:
    """Return whether a word shares its first five letters with one of the words, or differs
    from it by one edit or swap (two for long words): "Brazil" and "Brazilian", a typo."""
    for other in words:
        prefix = min(len(word), len(other), SHARED_PREFIX)
        if prefix >= SHARED_PREFIX and word[:prefix] == other[:prefix]:
            return True
        allowed = 1 if len(word) < 8 else 2
        if len(word) >= 5 and abs(len(other) - len(word)) <= allowed and other[:1] == word[:1]:
            if edit_distance(word, other, allowed) <= allowed:
                return True
    return False


def edit_distance(a: str, b: str, limit: int) -> int:
    """Return the optimal string alignment distance of two words (swaps count once)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def near_in_meaning(word: str, words: list[str], cosine: float) -> bool:
    if not words:
        return False
    vectors = embedder.word_vectors([word, *words])
    return bool(np.max(vectors[1:] @ vectors[0]) >= cosine)


# A capitalised word this common ("Earth", "Prime", "States") is as often a plain word.
COMMON_NAME_ZIPF = 4.5


@lru_cache(maxsize=20_000)
def is_common_name(word: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= COMMON_NAME_ZIPF


@lru_cache(maxsize=20_000)
def is_common(word: str) -> bool:
    """Return whether a word is common in English (said in other words as often as not)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= COMMON_ZIPF
