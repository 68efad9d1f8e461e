"""Rule-based entity spotting: does a sentence name a person, a date, a place, a number?

No tagger model is involved: capitalised word runs, titles, years and month names, numbers
and number words, and prepositions before names are enough to tell "Its lead designer was
Guido van Rossum." from "Python is a programming language." for a who-question. Only
entities the question does not already mention count: they are what the answer adds.
"""

from __future__ import annotations

import calendar
import re

from providers.tokenize import raw_tokens
from queries.answering.frame import (
    AMOUNT,
    DATE,
    DURATION,
    NAME,
    NUMBER,
    ORGANISATION,
    PERSON,
    PLACE,
)
from queries.answering.lexicon import words
from queries.answering.vocabulary import is_common_name

_UPPER = "A-ZÀ-ÖØ-Þ"
# A run of capitalised words, with the particles names carry: "Guido van Rossum",
# "University of Chicago", "Leonardo da Vinci".
_NAME_RUN = re.compile(
    rf"[{_UPPER}][\w'’-]*(?:\s+(?:(?:van|von|de|der|den|da|di|du|del|la|le|bin|ibn|of|the|and)"
    rf"\s+){{0,2}}[{_UPPER}][\w'’-]*)*"
)
# Capitalised words that open sentences or clauses far more often than they name anything.
_NOT_NAMES = words("not_names_in_sentences")
# Month and day names, full and short ("sept" too), from the calendar module (C locale).
_MONTHS = frozenset(
    name.lower() for name in [*calendar.month_name, *calendar.month_abbr, "sept"] if name
)
_WEEKDAYS = frozenset(name.lower() for name in calendar.day_name)
# Words that make a name an organisation, a place or an event rather than a person.
_NOT_PERSON = words("not_person_words")
_TITLE_BEFORE = re.compile(
    r"(?:\b(?:Dr|Mr|Mrs|Ms|Prof|Sir|Dame|Lord|Lady|Saint|St|President|King|Queen|Prince|"
    r"Princess|Pope|Emperor|General|Captain|Senator|Governor|Judge|Bishop|Archbishop|Rev)\.?"
    r"|\bby)\s+$"
)
_PLACE_BEFORE = re.compile(
    r"\b(?:in|at|from|near|into|across|throughout|outside|inside|within|to|towards?|around|"
    r"of the (?:city|town|state|country|region|province) of)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})s?\b|\b\d+\s*(?:BC|AD|BCE|CE)\b")
_DATE_WORDS = re.compile(
    r"\b\d{1,2}(?:st|nd|rd|th)? (?:century|millennium)\b|\bcentur(?:y|ies)\b|"
    r"\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?%?")
_NUMBER_WORDS = words("number_words")
_PLAIN_YEAR = re.compile(r"^(?:1[0-9]{3}|20[0-9]{2})$")


# The kind of entity each answer type is spotted as: an organisation by its name, a duration
# or an amount by its number. Other types (a reason, a description, a list) have none.
_SPOTTED = {
    PERSON: PERSON, ORGANISATION: NAME, PLACE: PLACE, DATE: DATE, DURATION: NUMBER,
    NUMBER: NUMBER, AMOUNT: NUMBER, NAME: NAME,
}  # fmt: skip


def entity_strength(sentence: str, answer_type: str, question_words: set[str]) -> float:
    """Return how clearly a sentence holds a new entity of the type: 1, 0.5 (weakly) or 0."""
    answer_type = _SPOTTED.get(answer_type, "")
    if not answer_type:
        return 0.0
    if answer_type == DATE:
        return 1.0 if _has_new_date(sentence, question_words) else 0.0
    if answer_type == NUMBER:
        return 1.0 if _has_new_number(sentence, question_words) else 0.0
    best = 0.0
    for start, name_words in _new_names(sentence, question_words):
        before = sentence[:start]
        if answer_type == NAME:
            return 1.0
        if answer_type == PERSON:
            strong = bool(_TITLE_BEFORE.search(before)) or (
                len(name_words) >= 2 and not any(word.lower() in _NOT_PERSON for word in name_words)
            )
        else:
            strong = answer_type == PLACE and bool(_PLACE_BEFORE.search(before))
        best = max(best, 1.0 if strong else 0.5)
    return best


def _new_names(sentence: str, question_words: set[str]) -> list[tuple[int, list[str]]]:
    """Return (offset, words) of each name run whose words the question does not all hold."""
    names = []
    for match in _NAME_RUN.finditer(sentence):
        offset = match.start()
        words = match.group(0).split()
        # "The Broncos" and "In Denver": the opening word is not part of the name.
        while words and words[0].lower().strip("'’") in _NOT_NAMES:
            offset = sentence.index(words[1], offset) if len(words) > 1 else offset
            words = words[1:]
        words = [w for w in words if w.lower() not in _MONTHS and w.lower() not in _WEEKDAYS]
        if not words:
            continue
        sentence_start = not sentence[:offset].strip() or sentence[:offset].rstrip()[-1] in ".!?:"
        # A lone capitalised word opening a sentence is as likely a noun as a name, unless a
        # comma sets off a rare word ("Sintra, 8-10 October").
        if sentence_start and len(words) == 1 and not words[0].isupper():
            after = sentence[sentence.index(words[0], offset) + len(words[0]) :]
            if not (after.startswith(",") and not is_common_name(words[0].lower())):
                continue
        tokens = {token for word in words for token in raw_tokens(word)} - {"s"}
        if tokens and not tokens <= question_words:
            names.append((offset, words))
    return names


def _has_new_date(sentence: str, question_words: set[str]) -> bool:
    for match in _YEAR.finditer(sentence):
        if not set(raw_tokens(match.group(0))) <= question_words:
            return True
    if _DATE_WORDS.search(sentence):
        return True
    words = set(raw_tokens(sentence)) - question_words
    return bool(words & (_MONTHS - {"may"})) or bool(words & _WEEKDAYS)


def _has_new_number(sentence: str, question_words: set[str]) -> bool:
    for match in _NUMBER.finditer(sentence):
        digits = match.group(0).rstrip("%,")
        if _PLAIN_YEAR.match(digits) or digits.replace(",", "") in question_words:
            continue
        if digits not in question_words:
            return True
    words = set(raw_tokens(sentence)) - question_words
    return bool(words & _NUMBER_WORDS)
