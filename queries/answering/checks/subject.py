"""What a question is about, and how much of it a passage speaks of.

The names a question asks about (which the evidence must mention, in some spelling), its
content words weighted by how rare they are in the searched knowledge bases (what share of
them a passage holds), and near misses ("sabbatical leave" asked where the passages say
"annual leave"). The rules in `rules.py` read these.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from providers.tokenize import STOP_WORDS, bm25_tokens, raw_tokens
from queries.answering import language
from queries.answering.frame import QuestionFrame
from queries.answering.names import VERSION
from queries.answering.vocabulary import (
    NEAR_WORD_COSINE,
    NUMBER,
    QUESTION_WORDS,
    SYNONYM_GROUPS,
    evidence_words,
    is_common,
    near_in_meaning,
    question_terms,
    spelled_like,
)

COMMON_WEIGHT = 0.3


@dataclass
class Coverage:
    """The share of a question's words (by weight) a text holds, and each word's part."""

    share: float = 1.0
    # (word, weight, covered) for each question word.
    terms: list[tuple[str, float, bool]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def coverage(
    frame: QuestionFrame, text: str, term_stats: dict, *, known_words_only: bool = False
) -> Coverage:
    """Return which question words a text holds, and their share by weight: a word weighs its
    rarity in the searched knowledge bases, a common English word less. The question words
    ("how long") are not among them; with `known_words_only`, neither is a word no searched
    document uses, but for a name or a number (no passage can hold it: it may be the
    question's own wording)."""
    frequencies = term_stats.get("df") or {}
    chunks = int(term_stats.get("chunks") or 0)
    stems = set(bm25_tokens(text))
    asking = set(frame.wh.split())
    item = frame.constraint("item")
    if item:
        # "the second step": which item is asked for, not what the list is about.
        asking |= set(raw_tokens(frame.text[item["start"] : item["end"]]))
    result = Coverage()
    total = covered_weight = 0.0
    for word, stem in question_terms(frame.text):
        if word in asking:
            continue
        if known_words_only and frequencies.get(stem) == 0 and word not in frame.specifics:
            # A word no document uses may be the question's own wording ("surrender" for
            # "gave up"); a name or a year no document uses is a thing they do not speak of.
            continue
        weight = _idf(frequencies.get(stem), chunks) * (COMMON_WEIGHT if is_common(word) else 1.0)
        total += weight
        covered = _covered(word, stem, stems, text)
        result.terms.append((word, round(weight, 3), covered))
        if covered:
            covered_weight += weight
        else:
            result.missing.append(word)
    result.share = round(covered_weight / total, 3) if total else 1.0
    return result


def absent_words(missing: list[str], evidence_text: str, term_stats: dict) -> list[str]:
    """Return the missing question words no searched document uses at all (and no evidence
    word resembles): the question's own wording, or the documents' silence."""
    frequencies = term_stats.get("df") or {}
    found = evidence_words(evidence_text)
    return [
        word
        for word in missing
        if frequencies.get(bm25_tokens(word)[0]) == 0
        and not is_common(word)
        and not _resembles(word, found)
    ]


# Stricter than a paraphrase of any question word: "salary" is near "pay" (0.52) in "Keystone
# Pay", "population" near "inhabitants" (0.57).
ASKED_THING_COSINE = 0.56


def unaddressed(asked: str, evidence_text: str) -> list[str]:
    """Return the words of the thing a question asks for ("shift pattern") when the evidence
    holds none of them in any form, and one at least is not a common word: the passages are
    about the question's other words ("the night nurses in Ward 4"), not what is asked."""
    if all(is_common(word) for word in _asked_words(asked)):
        return []
    return unnamed_by(asked, evidence_text)


def unnamed_by(asked: str, names: str, *, by_its_head: bool = False) -> list[str]:
    """Return the words of the thing a question asks for ("team") when a text (the evidence,
    or the names of what a passage holds: a table row's headers, caption, section and file)
    speaks of none of them, not even as a word near in meaning: a row of tickets holds no
    team, whatever its cells say. Common words count here: columns are named with them."""
    words = _asked_words(asked)
    if not words:
        return []
    stems = set(bm25_tokens(names))
    found = evidence_words(names)

    def said(word: str) -> bool:
        stem = (bm25_tokens(word) or [word])[0]
        return _covered(word, stem, stems, names) or bool(
            found and near_in_meaning(word, found, ASKED_THING_COSINE)
        )

    if not by_its_head:
        return [] if any(said(word) for word in words) else words
    # The thing is its last word ("client contact" is a contact, "due date" a date): a row
    # with a Client column and no contact holds none. A general last word ("start date") is
    # said by the words before it (a Start column).
    head, modifiers = words[-1], words[:-1]
    if said(head) or (head in _GENERAL_HEADS and any(said(word) for word in modifiers)):
        return []
    return words


# Last words of a thing asked that say only what kind of value it is: "the start date" is read
# from a Start column, "the payment status" from Paid, "the office location" from Office.
_GENERAL_HEADS = frozenset(
    "date dates day time year years number numbers amount amounts figure figures total value "
    "values level levels count name names status statuses state rating ratings score grade "
    "location".split()
)


def _asked_words(asked: str) -> list[str]:
    return [
        word
        for word in raw_tokens(asked)
        if word not in STOP_WORDS and word not in QUESTION_WORDS and not NUMBER.fullmatch(word)
    ]


def contrasts(question: str, absent: list[str], evidence_text: str) -> list[tuple[str, str]]:
    """Return (asked, found) pairs where the question's modifier of a noun is a word no
    document uses and the evidence puts another in its place: "sabbatical leave" asked,
    "annual leave" found. That is a near miss, not a paraphrase. Only a modifier of a noun
    counts ("entity has" is no noun phrase)."""
    missing = set(absent)
    if not missing:
        return []
    tokens = [token for token in language.parse(question) if not token.is_space]
    asked_set = {token.lower_ for token in tokens}
    said = raw_tokens(evidence_text)
    said_stems = [bm25_tokens(word)[:1] for word in said]
    found: list[tuple[str, str]] = []
    for first, second in zip(tokens, tokens[1:]):
        modifier, head = first.lower_, second.lower_
        if modifier not in missing or head in STOP_WORDS or second.pos_ != "NOUN":
            continue
        if first.pos_ not in ("ADJ", "NOUN", "PROPN"):
            continue
        head_stem = bm25_tokens(head)[:1]
        for index in range(1, len(said)):
            other = said[index - 1]
            if said_stems[index] != head_stem or not head_stem:
                continue
            if other in STOP_WORDS or other in asked_set or NUMBER.fullmatch(other):
                continue
            if not spelled_like(modifier, [other]):
                found.append((f"{modifier} {head}", f"{other} {said[index]}"))
                break
    return found


# A name of common words ("Engineering News-Record", "General Board of Church and Society")
# is named when this share of its words is mentioned; a rare word of it names it alone.
NAMED_PARTS = 0.75


def unnamed(names: list[str] | tuple[str, ...], text: str) -> list[str]:
    """Return the question's names that the text never mentions (in any spelling close enough)."""
    versions = {match.group(1) for match in VERSION.finditer(text)}
    words = set(raw_tokens(text))
    spelled = [w for w in words if len(w) > 2 and not w.isdigit()]
    acronyms = _acronyms(text)
    missing = []
    for name in names:
        if VERSION.fullmatch(name):
            if name not in versions:
                missing.append(name)
            continue
        parts = [part for part in raw_tokens(name) if len(part) > 1 and part not in STOP_WORDS]
        if not parts or len(name) <= 2:
            # "UN", "EU": two letters name too many things to hold a passage to.
            continue
        # "Thomas Davis" is named by "Davis", "Brazil" by "Brazilian", "ARPNET" by "ARPANET",
        # "United States" by "US", "ABC" by "American Broadcasting Company". A name of
        # common words ("Engineering News-Record") is named only by all of them: "news" alone
        # names no such thing.
        said = [p in words or (len(p) > 2 and spelled_like(p, spelled)) for p in parts]
        rare = [not (is_common(p) or p.isdigit()) for p in parts]
        named = any(s and r for s, r in zip(said, rare)) or sum(said) >= max(
            1, math.ceil(NAMED_PARTS * len(parts))
        )
        initials = "".join(part[0] for part in parts) if len(parts) > 1 else ""
        if not (named or initials in words or "".join(parts) in acronyms):
            missing.append(name)
    return missing


def _acronyms(text: str) -> set[str]:
    """Return the initials of each run of capitalised words ("American Broadcasting Company")."""
    found = set()
    for match in re.finditer(r"(?:\b[A-Z][\w'’-]*(?:\s+(?:of|the|and|for)\b)?\s*){2,}", text):
        words = [w for w in match.group(0).split() if w[:1].isupper()]
        for start in range(len(words)):
            for end in range(start + 2, len(words) + 1):
                found.add("".join(w[0] for w in words[start:end]).lower())
    return found


def _resembles(word: str, words: list[str]) -> bool:
    """Return whether an evidence word means or is spelled nearly the same as the word."""
    if not words:
        return False
    return spelled_like(word, words) or near_in_meaning(word, words, NEAR_WORD_COSINE)


def _idf(frequency: int | None, chunks: int) -> float:
    if frequency is None or chunks <= 0:
        return 1.0
    return max(math.log((chunks - frequency + 0.5) / (frequency + 0.5) + 1.0), 0.1)


def _covered(word: str, stem: str, evidence_stems: set[str], evidence_text: str) -> bool:
    if stem in evidence_stems:
        return True
    if any(stem in group and group & evidence_stems for group in SYNONYM_GROUPS):
        return True
    if NUMBER.fullmatch(word):
        # "1980" is said by "1980s": the decade, as a passage says it.
        return bool(re.search(rf"(?<![\d.,]){re.escape(word)}(?:s|'s|’s)\b", evidence_text))
    return spelled_like(word, evidence_words(evidence_text))


def says_all(words: tuple[str, ...] | list[str], text: str) -> bool:
    """Return whether a text says each word: in any inflection (stem or lemma), a synonym, or
    a word spelled nearly the same ("migration" for "migrate"). Not merely a word near in
    meaning: "backups" is near "restore", and a sentence about backups is not one about
    restoring."""
    stems = set(bm25_tokens(text))
    lemmas = {token.lemma_.lower() for token in language.parse(text) if token.is_alpha}
    spoken = stems | set(bm25_tokens(" ".join(lemmas)))
    found = evidence_words(text)
    for word in words:
        stem = (bm25_tokens(word) or [word])[0]
        if stem in spoken or word in lemmas:
            continue
        if any(stem in group and group & spoken for group in SYNONYM_GROUPS):
            continue
        if spelled_like(word, found):
            continue
        return False
    return True


def speaks_of(noun: str, text: str) -> bool:
    """Return whether a text speaks of a thing: says the word (`says_all`) or one near it in
    meaning ("inhabitants", "population" for "people"; "staff" for "employees")."""
    if says_all([noun], text):
        return True
    found = evidence_words(text)
    return bool(found) and near_in_meaning(noun, found, NEAR_WORD_COSINE)


def role_asked(question: str) -> str:
    """Return the role a "who is the <role> of/for ..." question asks for ("caterer" in "who
    is the caterer for the Autumn Fair?"), "" for another question."""
    match = _ROLE.match(question.strip())
    return match.group(1) if match else ""


_ROLE = re.compile(
    r"who(?:'s| is| was| are| were) (?:the|a|an|our|their) ([a-z][\w -]*?) (?:of|for|at|on|in)\b",
    re.IGNORECASE,
)
# Things asked that any column may hold ("which one", "what name").
GENERIC_THINGS = frozenset("one ones name names thing things kind type item items value".split())
