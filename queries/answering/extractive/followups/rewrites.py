"""The rewrites of a follow-up: another subject, another question word, another step, and
pronouns put back to what they stand for."""

from __future__ import annotations

import re

from queries.answering.extractive.followups.subjects import (
    AUXILIARIES,
    PREPOSITIONS,
    WORDS,
    Subject,
    is_bare_name,
    is_participle,
    is_short_noun_phrase,
)
from queries.answering.lexicon import words

END = re.compile(r"[\s?.!]+$")


# After these "there" is where one goes ("to"), not where one is ("in").
_MOTION = words("motion_verbs")


_BE = frozenset({"is", "are", "was", "were", "be", "been", "'s", "will", "would", "could"})


_WH = r"(?:how (?:many|much|long|often|far|old)|when|where|why|who|whom|what|which|how)"


_LEAD = r"^(?:(?:and|but|so|also|then|ok|okay)\b[\s,]*)?"


_AND = r"^(?:and|but|or|also)\s+"


_NEW_SUBJECT_PREPOSITION = r"(?:(?:for|in|at|with|on|about)\s+)?"


_WHAT_ABOUT = re.compile(
    _LEAD + r"(?:what|how) about\s+" + _NEW_SUBJECT_PREPOSITION + r"(?P<subject>.+?)[\s?.!]*$",
    re.I,
)


_AND_SUBJECT = re.compile(
    _AND + _NEW_SUBJECT_PREPOSITION + r"(?P<subject>[^?.!,;:]+?)[\s?.!]*$", re.I
)


_BARE_WH = re.compile(
    _LEAD + r"(?P<wh>" + _WH + r")(?:\s+(?:exactly|then|again|precisely))?[\s?.!]*$", re.I
)


# "When was that?", "Why did it happen?": the question word carries the whole question.
_WH_EMPTY_CLAUSE = re.compile(
    _LEAD
    + r"(?P<wh>when|where|why|how)\s+(?:exactly\s+)?"
    + r"(?:is|was|are|were|do|does|did|has|had|will|would)\s+(?:that|this|it)"
    + r"(?:\s+(?:happen|happened|occur|occurred|take place|taken place|come about|be))?"
    + r"(?:\s+(?:exactly|then|again))?[\s?.!]*$",
    re.I,
)


# "And when was that decided?": the decision is the previous question's answer.
_WH_DECIDED = re.compile(
    _LEAD
    + r"(?P<wh>when|who|why|where|how)\s+(?:was|were|has been|had been)\s+(?:that|this|it)\s+"
    + r"(?P<verb>decided|agreed|approved|announced|chosen|confirmed|settled|planned)[\s?.!]*$",
    re.I,
)


# "Which building is the Rotterdam office moving to?": a question with its subject after the
# auxiliary, to be said as a clause ("which building the Rotterdam office is moving to").
_INVERTED = re.compile(
    r"^(?P<wh>which|what|who|where|when|how)(?P<noun>(?:\s+[a-z][\w-]*){0,2}?)\s+"
    r"(?P<aux>is|are|was|were|will)\s+(?P<rest>.+?)[\s?.!]*$",
    re.I,
)


_WH_AUX = re.compile(r"^(?P<wh>" + _WH + r")\s+(?P<rest>" + AUXILIARIES + r"\b.*)$", re.I)


WHO_QUESTION = re.compile(_LEAD + r"who(?:m|se)?\b", re.I)


LEADING_AND = re.compile(r"^(?:and|so|also|then)\b[\s,]*(?=\w)", re.I)


# Numbered parts of a list the previous question asked about: "step 4", "section 3".
_ORDINAL_NOUN = r"(?:step|stage|phase|part|section|chapter|item|point|clause|article|rule)"


_ORDINAL_FOLLOW_UP = re.compile(
    _LEAD
    + r"(?:(?:what|how) about\s+)?(?:the\s+)?(?:"
    + r"(?P<noun>"
    + _ORDINAL_NOUN
    + r")\s+(?P<number>\d+)"
    + r"|(?P<direction>next|following|previous|prior|preceding|first|last|final)\s+"
    + r"(?P<noun_after>"
    + _ORDINAL_NOUN
    + r"|one)"
    + r"|(?P<noun_before>"
    + _ORDINAL_NOUN
    + r")\s+(?P<side>after|before)(?:\s+(?:that|this|it))?"
    + r")[\s?.!]*$",
    re.I,
)


_FORWARD = frozenset({"next", "following", "after"})


# Pronouns for the subject (a thing) and for the person of the last answer; possessives get 's.
_THING = {"it": "", "its": "'s", "they": "", "them": "", "their": "'s"}


_PERSON = {"he": "", "him": "", "she": "", "his": "'s", "hers": "'s"}


_PLURAL_PERSON = {"they": "", "them": "", "their": "'s"}


# Demonstratives stand for the subject only when no noun follows them: "who built this?",
# "when was that released", not "this document".
_DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})


_AFTER_PRONOUN = words("after_pronoun_words")


_PRONOUN = re.compile(
    r"\b(?:it|its|they|them|their|he|him|she|his|hers|her|this|that|these|those|there)\b", re.I
)


# A person who replaces "they" takes the singular auxiliary: "Are they" -> "Is Ines Duarte".
_SINGULAR = {
    "are": "is", "were": "was", "have": "has", "do": "does", "aren't": "isn't",
    "weren't": "wasn't", "haven't": "hasn't", "don't": "doesn't",
}  # fmt: skip


def with_context(question: str, previous: str, subject: Subject) -> str:
    """Return the previous question re-asked as the follow-up asks, or "" if it asks anew."""
    match = _ORDINAL_FOLLOW_UP.match(question)
    rewritten = _with_ordinal(previous, match) if match else ""
    if rewritten:
        return rewritten
    match = _BARE_WH.match(question) or _WH_EMPTY_CLAUSE.match(question)
    if match:
        return _with_question_word(previous, match.group("wh").lower())
    match = _WH_DECIDED.match(question)
    clause = _as_clause(previous, subject) if match else ""
    if clause:
        return f"{match.group('wh').capitalize()} was it {match.group('verb').lower()} {clause}?"
    new_subject = _new_subject(question)
    if new_subject:
        return _with_subject(previous, subject, new_subject)
    return ""


def _as_clause(question: str, subject: Subject) -> str:
    """Return a question said as a clause ("which building the Rotterdam office is moving
    to"), or "" when its subject does not follow its auxiliary."""
    match = _INVERTED.match(question)
    if not match or not subject.phrase:
        return ""
    rest = match.group("rest")
    if not rest.lower().startswith(subject.phrase.lower() + " "):
        return ""
    after = rest[len(subject.phrase) :].strip()
    noun = match.group("noun").strip()
    opening = " ".join(part for part in (match.group("wh").lower(), noun) if part)
    return f"{opening} {rest[: len(subject.phrase)]} {match.group('aux').lower()} {after}"


def _with_ordinal(previous: str, match: re.Match[str]) -> str:
    """Ask the previous question about another numbered step, or return ""."""
    noun = match.group("noun") or match.group("noun_after") or match.group("noun_before")
    if noun.lower() == "one":
        # "And the next one?": the numbered part the previous question asked about.
        noun = _ORDINAL_NOUN
    found = re.search(rf"\b({noun})\s+(\d+)\b", previous, re.I)
    if not found:
        return ""
    direction = (match.group("direction") or "").lower()
    if direction in ("last", "final", "first"):
        # "the last step" is no number; the previous question is asked about it by name.
        the = "" if re.search(r"\bthe\s+$", previous[: found.start()], re.I) else "the "
        named = found.group(1)
        return previous[: found.start()] + f"{the}{direction} {named}" + previous[found.end() :]
    if match.group("number"):
        number = int(match.group("number"))
    else:
        direction = (match.group("direction") or match.group("side")).lower()
        number = int(found.group(2)) + (1 if direction in _FORWARD else -1)
    # Lists start at 1: "the previous step" of step 1 asks about step 1 again.
    number = max(number, 1)
    return previous[: found.start(2)] + str(number) + previous[found.end(2) :]


# "the Priority one", "the Berlin ones": another of the same kind, named.
_NAMED_ONE = re.compile(r"^(?:the\s+)?(?P<name>.+?)\s+ones?$", re.I)


def _new_subject(question: str) -> str:
    """Return the subject "What about X?" or "And X?" brings in, or "". "The Priority one"
    brings in "Priority": another of the kind the previous question asked about."""
    subject = ""
    match = _WHAT_ABOUT.match(question)
    if match:
        subject = match.group("subject").strip()
        subject = "" if _PRONOUN.fullmatch(subject) else subject
    else:
        match = _AND_SUBJECT.match(question)
        if match and is_short_noun_phrase(match.group("subject")):
            subject = match.group("subject").strip()
    named = _NAMED_ONE.match(subject)
    if named and is_bare_name(named.group("name")):
        return named.group("name")
    return subject


def _with_subject(previous: str, subject: Subject, new_subject: str) -> str:
    """Ask the previous question again about a new subject."""
    old = subject.phrase
    start = previous.lower().find(old.lower()) if old else -1
    if start < 0:
        return f"{END.sub('', previous)}: {new_subject}?"
    new = new_subject
    article = re.search(r"\b(?:a|an)\s+[\w'’-]+(?:\s+[\w'’-]+)?(?=[\s?.!,]*$)", previous, re.I)
    if new_subject.lower().startswith(("a ", "an ")) and article:
        # "What about a software engineer?" after "... budget for a data analyst?": the role.
        return previous[: article.start()] + new_subject + previous[article.end() :]
    # "What about Berlin?" after "the Dublin office": Berlin is another office, not the office.
    if subject.name and subject.head and is_bare_name(new_subject):
        new = previous[start : start + len(old)].replace(subject.name, new_subject, 1)
    return previous[:start] + new + previous[start + len(old) :]


def _with_question_word(previous: str, wh: str) -> str:
    """Ask the previous question with another question word."""
    match = _WH_AUX.match(previous)
    if match:
        return f"{wh.capitalize()} {match.group('rest')}"
    return f"{END.sub('', previous)}, and {wh}?"


def resolve_pronouns(question: str, subject: Subject, person: str, who_asked: bool) -> str:
    """Put the subject (and the last answer's person) in place of the first pronoun of each."""
    mentioned = question.lower()
    replaced: set[str] = set()
    pieces = []
    last = 0
    plural_person = False
    for match in _PRONOUN.finditer(question):
        word = match.group(0).lower()
        before, after = question[: match.start()], question[match.end() :]
        who = person if who_asked and word in _PLURAL_PERSON else ""
        referent, text = _referent(word, before, after, subject, person, who)
        if not referent or referent.lower() in mentioned or referent in replaced:
            continue
        replaced.add(referent)
        plural_person = plural_person or bool(who)
        if match.start() == 0 or before.rstrip().endswith((".", "?", "!")):
            text = text[0].upper() + text[1:]
        pieces += [question[last : match.start()], text]
        last = match.end()
    if not pieces:
        return question
    rewritten = "".join([*pieces, question[last:]])
    return _singular_verbs(rewritten, person) if plural_person else rewritten


def _referent(
    word: str, before: str, after: str, subject: Subject, person: str, they_person: str
) -> tuple[str, str]:
    """Return what a pronoun stands for and the text to put in its place, or ("", "")."""
    next_word = (re.findall(r"[\w'’-]+|[?.!,;:]", after)[:1] or [""])[0].lower()
    if they_person:
        return they_person, they_person + _possessive(they_person, _PLURAL_PERSON[word])
    if word == "there":
        return _there(before, next_word, subject)
    if word in _THING:
        return subject.phrase, subject.phrase + _possessive(subject.phrase, _THING[word])
    if word in _DEMONSTRATIVES:
        ends = not next_word or not next_word[0].isalnum()
        if ends or next_word in _AFTER_PRONOUN or is_participle(next_word):
            return subject.phrase, subject.phrase
        return "", ""
    referent = person or subject.phrase
    if word == "her":
        # "her" before a noun is a possessive ("her role"), else an object ("ask her").
        object_form = not next_word or not next_word[0].isalnum() or next_word in _AFTER_PRONOUN
        return referent, referent + ("" if object_form else _possessive(referent, "'s"))
    return referent, referent + _possessive(referent, _PERSON[word])


def _there(before: str, next_word: str, subject: Subject) -> tuple[str, str]:
    """Return the place "there" stands for and its text ("in the Dublin office"), or ("", "")."""
    previous_word = (WORDS.findall(before)[-1:] or [""])[0].lower()
    # "Is there a canteen?", "there's": existential, it stands for no place.
    if next_word in _BE or previous_word in _BE or not subject.place_like():
        return "", ""
    if previous_word in PREPOSITIONS:
        return subject.phrase, subject.phrase
    preposition = "to" if previous_word in _MOTION else "in"
    return subject.phrase, f"{preposition} {subject.phrase}"


def _singular_verbs(text: str, person: str) -> str:
    """Make the auxiliaries next to a person who replaced "they" agree with one person."""
    verbs = "|".join(re.escape(v) for v in _SINGULAR)
    name = re.escape(person)

    def singular(match: re.Match[str]) -> str:
        verb = match.group(0)
        single = _SINGULAR[verb.lower()]
        return single.capitalize() if verb[0].isupper() else single

    text = re.sub(rf"\b(?:{verbs})(?=\s+{name}\b)", singular, text, flags=re.I)
    return re.sub(rf"(?<={name}\s)(?:{verbs})(?![\w'’])", singular, text, flags=re.I)


def _possessive(referent: str, suffix: str) -> str:
    if suffix and referent.endswith(("s", "S")):
        return "'"
    return suffix
