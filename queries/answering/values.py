"""Values of an answer type in a text: the people, places, dates, numbers and amounts it names.

Read from spaCy's named entities (`language.py`), with what a table cell or a terse line holds
that a tagger trained on news misses: digits for numbers and amounts, ISO dates and years,
e-mail addresses for whom to contact, and runs of capitalised words for names. A value the
question itself holds is not new: "When did the office open in 2015?" is not answered by 2015.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass

from queries.answering import language
from queries.answering.frame import (
    AMOUNT,
    DATE,
    DURATION,
    NAME,
    NUMBER,
    ORGANISATION,
    PERSON,
    PLACE,
    noun_type,
)
from queries.answering.lexicon import words
from queries.answering.sentences import CITATION

# spaCy's entity labels that carry a value of each type. A "who" answer may name a person or
# an organisation ("Who provides the SMS gateway?"); a place may be a facility or a body.
LABELS: dict[str, frozenset[str]] = {
    PERSON: frozenset({"PERSON", "ORG", "NORP"}),
    ORGANISATION: frozenset({"ORG", "PERSON", "PRODUCT", "NORP", "FAC"}),
    PLACE: frozenset({"GPE", "LOC", "FAC", "ORG"}),
    DATE: frozenset({"DATE", "TIME"}),
    DURATION: frozenset({"DATE", "TIME", "QUANTITY", "CARDINAL"}),
    NUMBER: frozenset({"CARDINAL", "QUANTITY", "PERCENT", "MONEY", "ORDINAL"}),
    AMOUNT: frozenset({"MONEY", "QUANTITY", "PERCENT", "CARDINAL"}),
    NAME: frozenset(
        {
            "PERSON",
            "ORG",
            "GPE",
            "LOC",
            "FAC",
            "EVENT",
            "PRODUCT",
            "WORK_OF_ART",
            "LAW",
            "LANGUAGE",
            "NORP",
        }
    ),  # fmt: skip
}
# What a table cell or a terse line holds that the tagger may not label.
_DIGITS = re.compile(
    r"(?<![\w.])[$€£¥]?\d[\d,]*(?:\.\d+)?%?(?![\w])|(?<![\w.])\d+(?:\.\d+)?(?=[a-zA-Z])"
)
# A calendar date in digits, or a time of day ("09:00"): what a table cell holds.
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b|\b\d{1,2}:\d{2}\b")
_YEAR = re.compile(r"\b(?:1[5-9]|20)\d\d\b")
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_NAME_RUN = re.compile(
    r"\b[A-Z][\w'’.-]*(?:\s+(?:(?:of|van|von|de|da|la|le|del)\s+)?[A-Z][\w'’.-]*)+"
)
_WORD = re.compile(r"[\w'’-]+")
# A version: "v" and a number with points, or a number with two points or more.
_VERSION = re.compile(r"\bv\d+(?:\.\d+)+\b|\b\d+\.\d+\.\d+(?:\.\d+)*\b", re.IGNORECASE)
# A number and the word after it: "40 minutes", "3 business days".
_COUNTED = re.compile(r"\b\d+(?:[.,]\d+)?\s+(?:[a-z]+\s+)?(?P<unit>[A-Za-z]+)\b")


@dataclass(frozen=True)
class Value:
    """A value found in a text: its words as written, and spaCy's label for it ("" when a
    pattern found it)."""

    text: str
    label: str = ""

    @property
    def key(self) -> str:
        """Return the value as compared: lowercased, without thousands separators."""
        return normalise(self.text)


def normalise(text: str) -> str:
    """Return text lowercased with spaces collapsed and no thousands separators."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text.lower())
    return " ".join(text.split()).strip(" .,;:'’\"()")


def values(text: str, answer_type: str, question: str = "") -> list[Value]:
    """Return the values of a type the text holds that the question does not."""
    if answer_type not in LABELS or not text.strip():
        return []
    # The [n] markers are citations, and "v3.1.0" or "2.4.1" a version: no values.
    text = _VERSION.sub(lambda match: " " * len(match.group(0)), CITATION.sub(" ", text))
    doc = language.parse(text)
    found: list[Value] = []
    labels = LABELS[answer_type]
    # A calendar date's digits are no count ("12 March 2025" for "how many"), and no length
    # of time is an amount ("within 7 days" for "how much can I spend").
    dates = [
        (_day_start(entity), entity.end_char)
        for entity in doc.ents
        if entity.label_ in ("DATE", "TIME")
        and _calendar(entity.text)
        and (answer_type == AMOUNT or not _fits(entity.text, DURATION))
    ]

    def in_date(start: int) -> bool:
        return answer_type in (NUMBER, AMOUNT) and any(a <= start < b for a, b in dates)

    for entity in doc.ents:
        if entity.label_ not in labels or not _fits(entity.text, answer_type):
            continue
        if in_date(entity.start_char) or (
            answer_type in (NUMBER, AMOUNT)
            and entity.label_ in ("DATE", "TIME")
            and _calendar(entity.text)
        ):
            continue
        found.append(Value(entity.text, entity.label_))
    for match in _fallback_matches(text, answer_type):
        if not in_date(match.start()):
            found.append(Value(match.group(0)))
    if answer_type == DURATION:
        found += _end_points(doc)
    if answer_type in (PERSON, ORGANISATION):
        found += _roles(doc)
    return _not_asked(found, question)


def _end_points(doc) -> list[Value]:
    """Return the end points a text names: "until the end of the current Parliament" says how
    long as well."""
    found = []
    for token in doc:
        if token.lower_ in _UNTIL and any(
            child.dep_ in ("pobj", "pcomp") for child in token.children
        ):
            span = doc[token.i : token.right_edge.i + 1]
            found.append(Value(span.text))
    return found


def _roles(doc) -> list[Value]:
    """Return the roles and groups a text names: "Your line manager approves ...", "The
    finance team handles ...": a role or a group answers "who" as well as a name does."""
    found = []
    for chunk in doc.noun_chunks:
        if any(token.like_num for token in chunk):
            continue  # "64 staff" is a count, not who
        if chunk.root.pos_ == "NOUN" and noun_type(chunk.root.lemma_.lower()) in (
            PERSON,
            ORGANISATION,
        ):
            found.append(Value(chunk.text))
    return found


def _not_asked(found: list[Value], question: str) -> list[Value]:
    """Return the values once each, less those the question itself says."""
    asked = normalise(question)
    asked_words = set(_WORD.findall(asked))
    result: list[Value] = []
    seen: set[str] = set()
    for value in found:
        key = value.key
        words = set(_WORD.findall(key))
        if not key or key in seen or (words and words <= asked_words):
            continue
        seen.add(key)
        result.append(value)
    return result


# The prepositions of an end point, which answers "how long" ("until the end of the year").
_UNTIL = frozenset({"until", "till"})

_CALENDAR_WORDS = frozenset(
    name.lower()
    for name in [*calendar.month_name, *calendar.month_abbr, *calendar.day_name, *calendar.day_abbr]
    if name
)


def _day_start(entity) -> int:
    """Return where a date begins, its day number included ("12" of "12 March 2025", which
    the tagger may leave out of the date)."""
    before = entity.doc[entity.start - 1] if entity.start > 0 else None
    if before is not None and before.like_num and len(before.text) <= 2:
        return before.idx
    return entity.start_char


def _calendar(text: str) -> bool:
    """Return whether a text the tagger calls a date is one (a year, a month or a day, a
    time of day, a length of time), not a number it mislabels ("1250000")."""
    if _YEAR.search(text) or _ISO_DATE.search(text):
        return True
    found = set(_WORD.findall(text.lower()))
    return bool(found & (_CALENDAR_WORDS | words("time_units")))


def _fits(text: str, answer_type: str) -> bool:
    """Return whether an entity of a fitting label really holds the type (a duration has a
    unit of time; a number or an amount has a digit or a number word)."""
    if answer_type == DURATION:
        return bool(set(_WORD.findall(text.lower())) & words("time_units"))
    return True


def _fallback_matches(text: str, answer_type: str) -> list[re.Match]:
    if answer_type in (NUMBER, AMOUNT):
        return list(_DIGITS.finditer(text))
    if answer_type == DATE:
        return [*_ISO_DATE.finditer(text), *_YEAR.finditer(text)]
    if answer_type == DURATION:
        units = words("time_units")
        return [m for m in _COUNTED.finditer(text) if m.group("unit").lower() in units]
    if answer_type in (PERSON, ORGANISATION):
        return [*_EMAIL.finditer(text), *_NAME_RUN.finditer(text)]
    if answer_type == NAME:
        return [*_EMAIL.finditer(text), *_NAME_RUN.finditer(text)]
    if answer_type == PLACE:
        return list(_NAME_RUN.finditer(text))
    return []


def holds(passage: str, value: Value) -> bool:
    """Return whether a passage holds a value (as compared: case, spaces, separators)."""
    return value.key in normalise(passage)
