"""Tokens for BM25: lowercase words, English stop words removed, Snowball-stemmed."""

from __future__ import annotations

import re
import threading

import Stemmer

# Lucene's EnglishAnalyzer default stop set (ENGLISH_STOP_WORDS_SET, 33 words):
# short enough that phrases like "to be or not to be" keep most of their words.
STOP_WORDS: frozenset[str] = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in",
        "into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the",
        "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
    }
)  # fmt: skip

_WORD = re.compile(r"\b\w+\b")

# PyStemmer objects are not safe to share between threads, and building one per
# call is wasteful, so each thread keeps its own.
_local = threading.local()


def raw_tokens(text: str) -> list[str]:
    """Return the lowercase word tokens of a text, with nothing removed."""
    return _WORD.findall(text.lower())


def bm25_tokens(text: str) -> list[str]:
    """Return the stemmed, stop-word-free tokens used for BM25 scoring."""
    words = [word for word in raw_tokens(text) if word not in STOP_WORDS]
    return _stemmer().stemWords(words)


def _stemmer() -> Stemmer.Stemmer:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = Stemmer.Stemmer("english")
        _local.stemmer = stemmer
    return stemmer
