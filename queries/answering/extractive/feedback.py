"""The critic's feedback: which sentences it rejected, and which words a retry should add.

`reflect` lists the sentences it could not find in their sources after UNSUPPORTED_MARKER, as
JSON; other critics quote them. A retry drops those sentences, and `rewrite_query` adds the
distinctive words of the feedback (names, numbers) that the query lacks.
"""

from __future__ import annotations

import json
import re

from providers.tokenize import STOP_WORDS, bm25_tokens
from queries.answering.lexicon import words
from queries.answering.sentences import CITATION
from queries.answering.vocabulary import SPACY_STOP_WORDS

UNSUPPORTED_MARKER = "Unsupported sentences (JSON): "
# A claim is supported when this share of its tokens is in one sentence of its source; a
# sentence is the rejected one when this share of both sentences' tokens is shared.
SUPPORT_OVERLAP = 0.8
MAX_ADDED_WORDS = 5

# Words that describe answers and evidence rather than the topic; they never help retrieval.
_META_WORDS = words("feedback_meta_words")


def excluded_by_feedback(feedback: str) -> list[set[str]]:
    """Return the token sets of sentences the critic rejected (ours as JSON, others quoted)."""
    rejected: list[str] = []
    for line in feedback.splitlines():
        if line.startswith(UNSUPPORTED_MARKER):
            try:
                value = json.loads(line[len(UNSUPPORTED_MARKER) :])
            except json.JSONDecodeError:
                continue
            if isinstance(value, list):
                rejected.extend(str(item) for item in value)
    without_marker = "\n".join(
        line for line in feedback.splitlines() if not line.startswith(UNSUPPORTED_MARKER)
    )
    rejected.extend(re.findall(r"[\"“]([^\"“”]{20,})[\"”]", without_marker))
    sets = [set(bm25_tokens(CITATION.sub(" ", text))) for text in rejected]
    return [tokens for tokens in sets if tokens]


def is_rejected(tokens: set[str], rejected: list[set[str]]) -> bool:
    """Return whether a sentence's tokens are close enough to a rejected sentence's."""
    for other in rejected:
        union = tokens | other
        if union and len(tokens & other) / len(union) >= SUPPORT_OVERLAP:
            return True
    return False


def query_with_feedback(query: str, feedback: str) -> str:
    """Return the query with the feedback's distinctive missing words added, if any."""
    # Our feedback lists rejected sentences: their words are what went wrong, not what lacks.
    text = "\n".join(
        line for line in feedback.splitlines() if not line.startswith(UNSUPPORTED_MARKER)
    )
    known = set(bm25_tokens(query))
    candidates: list[tuple[bool, int, str]] = []
    seen: set[str] = set()
    for position, match in enumerate(
        re.finditer(r"[A-Za-z][A-Za-z0-9_'-]*[A-Za-z0-9]|\d+(?:[.,]\d+)*%?", text)
    ):
        word = match.group(0)
        lower = word.lower()
        if (
            len(lower) < 3
            or lower in STOP_WORDS
            or lower in _META_WORDS
            or lower in SPACY_STOP_WORDS
        ):
            continue
        stems = bm25_tokens(word)
        if not stems or stems[0] in known or stems[0] in seen:
            continue
        seen.add(stems[0])
        # Names, acronyms and numbers name the missing evidence more precisely than verbs do.
        distinctive = word[0].isupper() or word[0].isdigit() or any(c.isdigit() for c in word)
        candidates.append((not distinctive, position, word))
    chosen = sorted(sorted(candidates)[:MAX_ADDED_WORDS], key=lambda candidate: candidate[1])
    if not chosen:
        return query
    return f"{query.strip()} {' '.join(word for _, _, word in chosen)}"
