"""What an earlier question is about: its subject phrase, the names in it, the person an answer
names; and the words that tell a noun phrase from the verb after it."""

from __future__ import annotations

import re
from typing import NamedTuple

from queries.answering.lexicon import words

SPACE = re.compile(r"\s+")


WORDS = re.compile(r"[\w'’-]+")


# Words (with version numbers such as "3.1" kept whole) and single punctuation marks.
_TOKEN = re.compile(r"[\w'’-]+(?:\.\d+)*|[^\w\s]")


# A run of capitalised words (with the particles names carry): "Project Falcon",
# "University of Chicago", "Guido van Rossum", "GPT-4".
_NAME_RUN = re.compile(
    r"\b[A-Z][\w'’-]*(?:\s+(?:(?:of|the|de|van|von|da|di|du|del|la|le)\s+){0,2}[A-Z][\w'’-]*)*"
)


_PARTICLES = words("name_particles")


# Capitalised words that open a question far more often than they name anything.
_NOT_NAMES = words("not_names_in_questions")


# Words that make a name something other than a person.
_NOT_PERSON = words("not_person_in_questions")


_DETERMINERS = frozenset({"the", "a", "an", "our", "your", "their", "my"})


PREPOSITIONS = words("prepositions")


# Where a noun phrase ends besides a preposition: pronouns, question words, adverbs.
_PHRASE_ENDS = PREPOSITIONS | frozenset(
    {
        "and", "or", "but", "that", "which", "who", "whom", "whose", "when", "where", "why",
        "how", "what", "if", "than", "first", "last", "the", "a", "an", "our", "your",
        "their", "my", "his", "her", "its", "it", "this", "these", "those", "they", "them",
        "we", "us", "you", "me", "i", "he", "she", "him", "there", "here", "not", "also",
        "still", "ever", "already", "now", "today", "yet", "really", "just", "currently",
        "usually", "always", "never", "then", "again", "so", "too", "very",
    }
)  # fmt: skip


# Adjectives a be-question puts after its subject ("Is the Dublin office open on Fridays?");
# after do-support the same word is the verb ("When did the Dublin office open?").
_PREDICATES = words("predicates")


# Irregular participles: "When was the Eiffel Tower built?" (regular ones end in -ed).
_PARTICIPLES = words("participles")


# Verbs that follow a subject and are rarely a noun inside one; participles are verbs too.
_VERBS = _PARTICIPLES | frozenset(
    {
        "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "has", "have",
        "had", "can", "could", "will", "would", "should", "may", "might", "must", "shall",
        "say", "says", "mean", "means", "get", "gets", "go", "goes", "went", "comes", "came",
        "take", "takes", "took", "make", "makes", "include", "includes", "require",
        "requires", "belong", "belongs", "own", "owns", "employ", "employs", "contain",
        "contains", "depend", "depends", "happen", "happens", "becomes", "seem", "seems",
        "decide", "decides", "approve", "approves",
    }
)  # fmt: skip


# Nouns that end like a participle ("-ed") but are not one.
_ED_NOUNS = frozenset({"need", "needs", "speed", "feed", "seed", "bed", "shed", "hundred"})


# A name (or a phrase ending in one of these) is somewhere "there" can stand for.
_PLACES = words("place_nouns")


AUXILIARIES = (
    r"(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|may|might|must)"
)


_DO_SUPPORT = frozenset({"do", "does", "did", "can", "could", "will", "would", "should", "must"})


class Subject(NamedTuple):
    """What a question is about: the phrase, the name inside it, and the noun that heads it."""

    phrase: str = ""
    name: str = ""
    head: str = ""
    # What the question asks of the subject, when it says so: "general availability of".
    of: str = ""

    @property
    def whole(self) -> str:
        """Return the phrase with what the question asked of it: "general availability of the
        Ledger online checkout"."""
        return f"{self.of} {self.phrase}" if self.of and self.phrase else self.phrase

    def place_like(self) -> bool:
        """Return whether "there" can stand for this subject: a name, or a place noun."""
        if self.name and not self.head:
            words = self.name.split()
            return words[-1].lower() in _PLACES or not _looks_like_person(words)
        return self.head.lower() in _PLACES


def subject_of(question: str) -> str:
    """Return what a question is about: the phrase its first name sits in, else a noun phrase."""
    return subject_in(question).phrase


def person_in(answer: str, question: str) -> str:
    """Return the first person's name an answer adds to its question, or ""."""
    known = set(WORDS.findall(question.lower()))
    for match in _NAME_RUN.finditer(answer or ""):
        words = [w for w in match.group(0).split() if w[0].isupper()]
        if not _looks_like_person(words) or words[0].lower() in _NOT_NAMES:
            continue
        if all(w.lower() in known for w in words):
            continue
        return " ".join(words)
    return ""


def _looks_like_person(words: list[str]) -> bool:
    """Return whether capitalised words read as a person's name: "Ines Duarte", not "GPT-4"."""
    if len(words) < 2:
        return False
    return not any(w.lower() in _NOT_PERSON or w.isupper() or _has_digit(w) for w in words)


def subject_in(question: str) -> Subject:
    """Return the phrase the first name sits in, else the first determiner's noun phrase."""
    tokens = _TOKEN.findall(question)
    for start, token in enumerate(tokens):
        if not _starts_name(token):
            continue
        end = _name_end(tokens, start)
        name = " ".join(tokens[start:end])
        determiner = (
            tokens[start - 1] if start and tokens[start - 1].lower() in _DETERMINERS else ""
        )
        if not determiner:
            return Subject(name, name)
        do_support = start > 1 and tokens[start - 2].lower() in _DO_SUPPORT
        nouns = _nouns_after(tokens, end, do_support, keep=0)
        phrase = " ".join([determiner.lower(), name, *nouns])
        return Subject(phrase, name, nouns[-1] if nouns else "", _of_before(tokens, start - 1))
    return _noun_phrase(tokens)


def _of_before(tokens: list[str], start: int) -> str:
    """Return the nouns and "of" before a phrase ("general availability of"), or ""."""
    if start < 2 or tokens[start - 1].lower() != "of":
        return ""
    nouns: list[str] = []
    for token in reversed(tokens[max(start - 4, 0) : start - 1]):
        if not token[0].isalnum() or token[0].isupper() or _is_phrase_end(token):
            break
        nouns.insert(0, token)
    return " ".join([*nouns, "of"]) if nouns else ""


def _starts_name(token: str) -> bool:
    # "What's", "Who's", "Don't" open questions; they name nothing.
    base = re.split(r"['’]", token.lower())[0]
    return token[0].isupper() and base not in _NOT_NAMES and "n't" not in token.lower()


def _name_end(tokens: list[str], start: int) -> int:
    """Return where the name starting at `start` ends: capitals, numbered parts, particles."""
    end = start + 1
    while end < len(tokens):
        token = tokens[end]
        # "Lumen v2", "Atlas 3.1": a part with a digit belongs to the name before it.
        if _starts_name(token) or _has_digit(token):
            end += 1
            continue
        particles = 0
        while end + particles < len(tokens) and particles < 2:
            if tokens[end + particles].lower() not in _PARTICLES:
                break
            particles += 1
        if particles and end + particles < len(tokens) and tokens[end + particles][0].isupper():
            end += particles + 1
            continue
        break
    return end


def _has_digit(token: str) -> bool:
    return token[0].isalnum() and any(c.isdigit() for c in token)


def _nouns_after(tokens: list[str], start: int, do_support: bool, keep: int) -> list[str]:
    """Return up to four nouns from `start` on, without the verb a do-question puts last."""
    nouns: list[str] = []
    for index, token in enumerate(tokens[start : start + 4], start=start):
        if not token[0].isalnum() or token[0].isupper() or _is_phrase_end(token):
            break
        following = tokens[index + 1] if index + 1 < len(tokens) else "?"
        if _is_progressive(token, following):
            break
        nouns.append(token)
    stop = tokens[start + len(nouns)] if start + len(nouns) < len(tokens) else "?"
    # "When did the Dublin office open?": after do-support the subject is followed by its verb;
    # if the phrase stopped at anything but a verb (or a comma), the verb is its last word.
    at_verb = _is_verb(stop) or stop.lower() in _PREDICATES
    verb_was_taken = stop in {"?", ".", "!"} or (stop[0].isalnum() and not at_verb)
    if do_support and verb_was_taken and len(nouns) > keep:
        nouns = nouns[:-1]
    return nouns


def _is_progressive(word: str, following: str) -> bool:
    """Return whether an -ing word is the verb of "is the office moving to ...?", not a noun
    ("the office building"): it ends the question or a preposition follows it."""
    lowered = word.lower()
    if not lowered.endswith("ing") or len(lowered) < 6 or lowered in _PLACES:
        return False
    return following in {"?", ".", "!"} or following.lower() in PREPOSITIONS


def _is_phrase_end(word: str) -> bool:
    lowered = word.lower()
    # An adverb ("originally", "currently") ends a noun phrase as a verb does.
    adverb = lowered.endswith("ly") and len(lowered) > 4
    return lowered in _PHRASE_ENDS or lowered in _PREDICATES or adverb or _is_verb(word)


def _is_verb(word: str) -> bool:
    return word.lower() in _VERBS or is_participle(word)


def is_participle(word: str) -> bool:
    lowered = word.lower()
    if lowered in _PARTICIPLES:
        return True
    return len(lowered) > 3 and lowered.endswith("ed") and lowered not in _ED_NOUNS


def _noun_phrase(tokens: list[str]) -> Subject:
    """Return the first `the X Y` phrase, without the main verb a do-question ends with."""
    for i, token in enumerate(tokens):
        if token.lower() not in _DETERMINERS:
            continue
        do_support = i > 0 and tokens[i - 1].lower() in _DO_SUPPORT
        nouns = _nouns_after(tokens, i + 1, do_support, keep=1)
        if nouns:
            return Subject(" ".join([token, *nouns]), "", nouns[-1])
    return Subject()


def is_short_noun_phrase(text: str) -> bool:
    """Return whether the text is a name or a determiner's phrase, with no verb or pronoun."""
    tokens = _TOKEN.findall(text)
    if not 1 <= len(tokens) <= 5 or not all(t[0].isalnum() for t in tokens):
        return False
    first = tokens[0].lower()
    if first not in _DETERMINERS and not _starts_name(tokens[0]):
        return False
    return not any(_is_phrase_end(t) and t.lower() not in _PARTICLES for t in tokens[1:])


def is_bare_name(text: str) -> bool:
    """Return whether the text is a name alone: "Berlin", "Lumen v3", not "the Berlin office"."""
    tokens = _TOKEN.findall(text)
    return bool(tokens) and _starts_name(tokens[0]) and _name_end(tokens, 0) == len(tokens)
