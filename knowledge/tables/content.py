"""The words of a question that name things a table may hold, not those that ask for a
computation ("how many", "the most"), nor a team speaking of itself ("we", "our"), nor words
that say nothing of a table ("anything", "so far", "can … hold between them"). The store's
relevance (knowledge/tables/rules.py) is the share of them a table holds."""

from __future__ import annotations

from knowledge.tables.programs import fold
from knowledge.tables.question import STOPWORDS

# Words that ask for a computation, not for a thing the table names.
_ASKING = frozenset(
    "how many much number total sum average mean most least highest lowest largest smallest "
    "biggest first last next previous before after more less fewer than difference between "
    "name names list top greatest best worst longest shortest earliest latest same count "
    "times year years all across together combined overall altogether each every per listed "
    "there table chart busiest busier quietest quieter recently recent so far told "
    # Comparisons and orders: what a program computes, not what a table holds ("how many
    # consecutive wins", "above 50", "which is older").
    "consecutive long amount above below under over higher lower larger smaller bigger longer "
    "shorter earlier later greater better worse older younger oldest youngest newest fastest "
    "slowest tallest fewest".split()
)


# A team speaking of itself ("how many units do we manage?", "which tenant has been with us
# the longest?"), and words that say nothing of a table ("haven't paid us anything yet", "can
# … hold between them"): no table's word. A verb's "n't" folds to a word of its own ("haven t"): both go ("Model T" stays).
_OURSELVES = frozenset(
    "we us our ours ourselves anything anyone something yet actually them they it its can "
    "could".split()
)
_NOT = frozenset(
    "haven hasn hadn didn doesn don isn aren wasn weren won can couldn shouldn wouldn".split()
)


def content_words(question: str) -> list[str]:
    """Return the question's words that name things, not those that ask for a computation."""
    words = fold(question).split()
    said_not = {
        at + step for at, word in enumerate(words)
        if word in _NOT and words[at + 1 : at + 2] == ["t"] for step in (0, 1)
    }  # fmt: skip
    return [
        word for at, word in enumerate(words)
        if word not in STOPWORDS and word not in _ASKING and at not in said_not
        and (word not in _OURSELVES or at == 0 and word in _ASKS_LEAVE) and not word.isdigit()
    ]  # fmt: skip


# A question that opens "Can we …?" or "Could we …?" asks leave, as prose does: its modal stays.
_ASKS_LEAVE = frozenset("can could".split())
