"""Follow-up questions made to stand alone by rule: no model reads the conversation.

A follow-up leans on the turn before it in one of three ways, each resolved from the earlier
standalone questions (their subject: the first name, else the first noun phrase) and the last
answer (the person it names):

- a new subject for the same question: "What about Project Heron?" asks the previous
  question again with Project Heron in place of its subject;
- a bare question word: "And where?" after "When was the tower built?" becomes "Where was
  the tower built?"; after "Who deployed Project Falcon first?" (no auxiliary to swap) it
  becomes "Who deployed Project Falcon first, and where?";
- a pronoun: "Who deployed it first?" becomes "Who deployed Project Falcon first?"; he, she,
  him and her name the person the last answer introduced, else the subject.

Anything else is already standalone and comes back unchanged.
"""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")
_WORDS = re.compile(r"[\w'’-]+")
_END = re.compile(r"[\s?.!]+$")

# A run of capitalised words (with the particles names carry): "Project Falcon",
# "University of Chicago", "Guido van Rossum", "GPT-4".
_NAME_RUN = re.compile(
    r"\b[A-Z][\w'’-]*(?:\s+(?:(?:of|the|de|van|von|da|di|du|del|la|le)\s+){0,2}[A-Z][\w'’-]*)*"
)
# Capitalised words that open a question far more often than they name anything.
_NOT_NAMES = frozenset(
    {
        "what", "who", "whom", "whose", "when", "where", "which", "why", "how", "is", "are",
        "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "will",
        "would", "should", "may", "might", "must", "shall", "the", "a", "an", "and", "but",
        "or", "so", "also", "then", "in", "on", "at", "for", "from", "by", "with",
        "about", "of", "to", "tell", "explain", "describe", "list", "give", "show", "name",
        "please", "summarise", "summarize", "compare", "i", "it", "its", "they", "their",
        "this", "that", "these", "those", "he", "she", "his", "her", "we", "you", "our",
        "your", "my", "ok", "okay", "thanks", "hi", "hello",
    }
)  # fmt: skip
# Words that make a name something other than a person.
_NOT_PERSON = frozenset(
    {
        "project", "office", "team", "service", "services", "university", "college",
        "company", "inc", "ltd", "group", "department", "tower", "bridge", "street", "city",
        "river", "lake", "park", "bank", "airport", "station", "january", "february", "march",
        "april", "may", "june", "july", "august", "september", "october", "november",
        "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
        "sunday",
    }
)  # fmt: skip
_DETERMINERS = frozenset({"the", "a", "an", "our", "your", "their", "my"})
# Where a noun phrase ends: prepositions, auxiliaries, question words, conjunctions.
_PHRASE_ENDS = frozenset(
    {
        "of", "in", "on", "at", "for", "from", "by", "with", "about", "to", "into", "after",
        "before", "during", "since", "under", "over", "between", "and", "or", "but", "is",
        "are", "was", "were", "be", "been", "do", "does", "did", "has", "have", "had", "can",
        "could", "will", "would", "should", "that", "which", "who", "when", "where", "why",
        "how", "if", "than", "first", "last",
    }
)  # fmt: skip
_AUXILIARIES = (
    r"(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|may|might|must)"
)
_DO_SUPPORT = frozenset({"do", "does", "did", "can", "could", "will", "would", "should", "must"})
_WH = r"(?:how (?:many|much|long|often|far|old)|when|where|why|who|whom|what|which|how)"
_LEAD = r"^(?:(?:and|but|so|also|then|ok|okay)\b[\s,]*)?"

_WHAT_ABOUT = re.compile(_LEAD + r"(?:what|how) about\s+(?P<subject>.+?)[\s?.!]*$", re.I)
_BARE_WH = re.compile(
    _LEAD + r"(?P<wh>" + _WH + r")(?:\s+(?:exactly|then|again|precisely))?[\s?.!]*$", re.I
)
_WH_AUX = re.compile(r"^(?P<wh>" + _WH + r")\s+(?P<rest>" + _AUXILIARIES + r"\b.*)$", re.I)

# Pronouns for the subject (a thing) and for the person of the last answer; possessives get 's.
_THING = {"it": "", "its": "'s", "they": "", "them": "", "their": "'s"}
_PERSON = {"he": "", "him": "", "she": "", "his": "'s", "hers": "'s"}
# Demonstratives stand for the subject only when no noun follows them: "who built this?",
# "when was that released", not "this document".
_DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})
_AFTER_PRONOUN = frozenset(
    {
        "is", "was", "are", "were", "do", "does", "did", "has", "have", "had", "mean",
        "means", "meant", "work", "works", "happen", "happened", "cost", "costs", "run",
        "runs", "start", "started", "in", "on", "at", "for", "from", "to", "with", "by",
        "about", "first", "last", "again", "and", "or", "but",
    }
)  # fmt: skip
_PRONOUN = re.compile(
    r"\b(?:it|its|they|them|their|he|him|she|his|hers|her|this|that|these|those)\b", re.I
)


def condense(query: str, history: list[dict[str, str]]) -> str:
    """Return the follow-up rewritten to stand alone, or the question itself."""
    question = _SPACE.sub(" ", (query or "").strip())
    if not history or not question:
        return question
    previous = _asked(history[-1])
    subject = next((s for s in (subject_of(_asked(t)) for t in reversed(history)) if s), "")

    match = _WHAT_ABOUT.match(question)
    if match and previous:
        return _with_subject(previous, subject, match.group("subject"))
    match = _BARE_WH.match(question)
    if match and previous:
        return _with_question_word(previous, match.group("wh").lower())
    return _resolve_pronouns(question, subject, person_in(history[-1].get("answer", ""), previous))


def subject_of(question: str) -> str:
    """Return what a question is about: its first name, else its first noun phrase."""
    for match in _NAME_RUN.finditer(question):
        words = match.group(0).split()
        start = match.start()
        # "What" and "Describe" open the question; "The Eiffel Tower" keeps its name only.
        while words and words[0].lower() in _NOT_NAMES:
            start += len(words[0]) + 1
            words = words[1:]
        while words and words[-1].lower() in ("of", "the", "de", "van", "von", "da", "di"):
            words = words[:-1]
        if not words:
            continue
        name = " ".join(words)
        if re.search(r"\bthe\s+$", question[:start], re.I):
            name = "the " + name
        return name
    return _noun_phrase(question)


def person_in(answer: str, question: str) -> str:
    """Return the first person's name an answer adds to its question, or ""."""
    known = set(_WORDS.findall(question.lower()))
    for match in _NAME_RUN.finditer(answer or ""):
        words = [w for w in match.group(0).split() if w[0].isupper()]
        if len(words) < 2 or any(w.lower() in _NOT_PERSON or w.isupper() for w in words):
            continue
        if words[0].lower() in _NOT_NAMES or all(w.lower() in known for w in words):
            continue
        return " ".join(words)
    return ""


def _asked(turn: dict[str, str]) -> str:
    return _SPACE.sub(" ", (turn.get("standalone_query") or turn.get("query") or "").strip())


def _noun_phrase(question: str) -> str:
    """Return the first `the X Y` phrase, without the main verb a do-question ends with."""
    words = _WORDS.findall(question)
    lowered = [w.lower() for w in words]
    for i, word in enumerate(lowered):
        if word not in _DETERMINERS:
            continue
        phrase = []
        for following in words[i + 1 : i + 5]:
            if following.lower() in _PHRASE_ENDS:
                break
            phrase.append(following)
        if not phrase:
            continue
        reaches_end = i + 1 + len(phrase) == len(words)
        # "How long does the battery last?": the last word is the verb, not the noun.
        if reaches_end and len(phrase) > 1 and _DO_SUPPORT & set(lowered[:i]):
            phrase = phrase[:-1]
        return " ".join([words[i], *phrase])
    return ""


def _with_subject(previous: str, subject: str, new_subject: str) -> str:
    """Ask the previous question again about a new subject."""
    new_subject = new_subject.strip()
    if subject and subject.lower() in previous.lower():
        start = previous.lower().index(subject.lower())
        return previous[:start] + new_subject + previous[start + len(subject) :]
    return f"{_END.sub('', previous)}: {new_subject}?"


def _with_question_word(previous: str, wh: str) -> str:
    """Ask the previous question with another question word."""
    match = _WH_AUX.match(previous)
    if match:
        return f"{wh.capitalize()} {match.group('rest')}"
    return f"{_END.sub('', previous)}, and {wh}?"


def _resolve_pronouns(question: str, subject: str, person: str) -> str:
    """Put the subject (and the last answer's person) in place of the first pronoun of each."""
    mentioned = question.lower()
    replaced: set[str] = set()
    pieces = []
    last = 0
    for match in _PRONOUN.finditer(question):
        word = match.group(0).lower()
        referent, suffix = _referent(word, question[match.end() :], subject, person)
        if not referent or referent.lower() in mentioned or referent in replaced:
            continue
        replaced.add(referent)
        text = referent + suffix
        if match.start() == 0 or question[: match.start()].rstrip().endswith((".", "?", "!")):
            text = text[0].upper() + text[1:]
        pieces.append(question[last : match.start()])
        pieces.append(text)
        last = match.end()
    if not pieces:
        return question
    pieces.append(question[last:])
    return "".join(pieces)


def _referent(word: str, after: str, subject: str, person: str) -> tuple[str, str]:
    """Return what a pronoun stands for and the suffix it needs ("'s"), or ("", "")."""
    next_word = (re.findall(r"[\w'’-]+|[?.!,;:]", after)[:1] or [""])[0].lower()
    if word in _THING:
        return subject, _possessive(subject, _THING[word])
    if word in _DEMONSTRATIVES:
        pronoun = next_word in _AFTER_PRONOUN or not next_word or not next_word[0].isalnum()
        return (subject, "") if pronoun else ("", "")
    if word == "her":
        # "her" before a noun is a possessive ("her role"), else an object ("ask her").
        object_form = not next_word or not next_word[0].isalnum() or next_word in _AFTER_PRONOUN
        referent = person or subject
        return referent, "" if object_form else _possessive(referent, "'s")
    referent = person or subject
    return referent, _possessive(referent, _PERSON[word])


def _possessive(referent: str, suffix: str) -> str:
    if suffix and referent.endswith(("s", "S")):
        return "'"
    return suffix
