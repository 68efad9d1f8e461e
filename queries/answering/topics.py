"""What a question is about: a topic before a colon, the names it asks about (which the
evidence must mention) and its content words (what the evidence must be about).

The question's frame (queries/answering/frame.py) carries them as its `entities` and `terms`.
"""

from __future__ import annotations

from queries.answering.names import describes, question_names
from queries.answering.vocabulary import QUESTION_WORDS

# spaCy's labels for names of particular things (not dates, numbers or demonyms).
_NAME_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "FAC", "EVENT", "PRODUCT", "WORK_OF_ART", "LAW"}
)


def is_topic(text: str) -> bool:
    """Return whether the words before a colon name a topic: a few words, no question."""
    words = text.split()
    return 0 < len(words) <= MAX_TOPIC_WORDS and not any(ch in text for ch in "?!.")


# "Priority support plan: ..." at most.
MAX_TOPIC_WORDS = 6


def question_entities(text: str, doc, topic: str = "") -> list[str]:
    """Return the names and versions a question asks about: capitalised names (not common
    words or demonyms), versions, what spaCy reads as a name of a particular thing, and a
    capitalised topic before a colon ("Lisbon: what is its cap?")."""
    names = question_names(text)
    if topic[:1].isupper() and not describes(topic) and not any(topic in n for n in names):
        names.insert(0, topic)
    seen = {name.lower() for name in names}
    for entity in doc.ents:
        name = entity.text.strip(" .,'’\"")
        if entity.label_ not in _NAME_LABELS or not name[:1].isupper() or entity.start == 0:
            continue
        if " " not in name and describes(name):
            continue  # one capitalised common word ("Earth", "Parliament"): said other ways too
        if not any(name.lower() in known or known in name.lower() for known in seen):
            names.append(name)
            seen.add(name.lower())
    return names


def content_terms(tokens, asked: set[int], wh_index: int | None, topic: str = "") -> list[str]:
    """Return the question's content words (lemmas), the thing asked and a topic before a
    colon included."""
    terms: list[str] = [
        word for word in dict.fromkeys(topic.lower().split()) if word not in QUESTION_WORDS
    ]
    for token in tokens:
        if token.i == wh_index or token.is_stop or token.is_punct or token.pos_ in ("AUX", "DET"):
            continue
        lemma = token.lemma_.lower()
        if lemma in QUESTION_WORDS or len(lemma) < 2 or lemma in terms:
            continue
        if token.pos_ in ("NOUN", "PROPN", "VERB", "ADJ", "NUM", "X"):
            terms.append(lemma)
    return terms
