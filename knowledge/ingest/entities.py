"""Find named entities with adRAG's regular expressions: names, acronyms, camelCase."""

from __future__ import annotations

import re
from collections import Counter

# Capitalised words that start sentences far more often than they name anything.
STOP_WORDS: frozenset[str] = frozenset(
    {
        "The", "This", "That", "These", "Those", "There", "Then", "It", "In", "On",
        "At", "For", "And", "But", "Or", "If", "When", "What", "Which", "Who", "How",
        "Why", "An", "We", "You", "They",
    }
)  # fmt: skip
_STOP_WORDS_LOWER = frozenset(word.lower() for word in STOP_WORDS)

# Latin-1 letters too, so "Émile Zola" and "São Paulo" count as names.
_UPPER = "A-ZÀ-ÖØ-Þ"
_LOWER = "a-zß-öø-ÿ"

# Two or more capitalised words on one line; a line break usually ends a heading,
# and joining it to the next line's first word would invent a name.
_PROPER_NOUN = re.compile(rf"\b[{_UPPER}][{_LOWER}]+(?:[ \t]+[{_UPPER}][{_LOWER}]+)+\b")
# 2-6 characters, starting with a letter, at least two capitals: RAG, BM25, GPT4.
# A trailing plural "s" is allowed and dropped, so "LLMs" counts as "llm".
_ACRONYM = re.compile(r"\b([A-Z][A-Z0-9]{1,5})s?\b")
# A lowercase letter directly followed by a capital: rerankScore, LangGraph, iPhone.
_CAMEL_CASE = re.compile(r"\b(?=[A-Za-z])[A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*\b")


def extract_entities(text: str) -> dict[str, int]:
    """Return each entity's normalised name mapped to its number of occurrences."""
    return dict(Counter(_find_entities(text)))


def query_entities(text: str) -> list[str]:
    """Return the distinct entities of a query in order of first appearance."""
    return list(dict.fromkeys(_find_entities(text)))


def normalise_entity(name: str) -> str:
    """Return the lowercase, whitespace-collapsed form used as an entity's key."""
    return " ".join(name.split()).lower()


def _find_entities(text: str) -> list[str]:
    found: list[tuple[int, str]] = []
    for match in _PROPER_NOUN.finditer(text):
        # Split at stop words so "When Marie Curie" yields "Marie Curie", and keep
        # only runs that are still two words or more.
        run: list[str] = []
        run_start = match.start()
        for word_match in re.finditer(r"\S+", match.group(0)):
            word = word_match.group(0)
            if word in STOP_WORDS:
                _keep_run(run, run_start, found)
                run = []
                continue
            if not run:
                run_start = match.start() + word_match.start()
            run.append(word)
        _keep_run(run, run_start, found)
    for match in _ACRONYM.finditer(text):
        acronym = match.group(1)
        if (
            sum(char.isupper() for char in acronym) >= 2
            and acronym.lower() not in _STOP_WORDS_LOWER
        ):
            found.append((match.start(), acronym))
    for match in _CAMEL_CASE.finditer(text):
        found.append((match.start(), match.group(0)))
    found.sort(key=lambda item: item[0])
    return [normalise_entity(name) for _, name in found]


def _keep_run(run: list[str], start: int, found: list[tuple[int, str]]) -> None:
    if len(run) >= 2:
        found.append((start, " ".join(run)))
