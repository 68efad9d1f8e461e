"""Follow-up questions made to stand alone by rule: no model reads the conversation.

The earlier standalone questions give the subject: the noun phrase the first name sits in
("Project Falcon", "the Dublin office", "the Lumen v2 launch date"; a name may carry parts
such as "v2", "3.1", "Q3", "GPT-4"), else the first `the X Y` noun phrase. After a determiner
the phrase runs on over the nouns that follow the name and stops at a verb, a participle
("built", "moved"), a preposition or a question word; after do-support ("When did the Dublin
office open?") the word before that stop is the verb and is left out. The last answer gives the
person: the first two-word name it adds to its question.

A follow-up leans on the turn before it in one of these ways, tried in this order:

- another step of the same list: "And step 5?", "What about the next step?" after "What is
  step 4 of rolling back a deploy?" ask that question about step 5;
- a bare question word, alone or with an empty clause ("And when?", "Why was that?", "When
  did that happen?"): after "When was the tower built?" it swaps the question word ("Where was
  the tower built?"); with no auxiliary to swap ("Who deployed Project Falcon first?") it is
  added: "Who deployed Project Falcon first, and when?";
- a new subject for the same question ("What about Berlin?", "And for Berlin?", "How about
  the support plan?"): a bare name takes the place of the name inside the subject ("the
  Dublin office" becomes "the Berlin office"), a phrase takes the place of the whole subject;
- a pronoun: "Who manages it?" becomes "Who manages the Dublin office?"; "its" becomes "the
  Dublin office's"; "there" becomes "in the Dublin office" when the subject is a name or a
  place; he, she, him and her (and they after a who-question) name the person the last
  answer introduced, else the subject.

Anything else is already standalone and comes back unchanged.

`subjects` finds what a question is about; `rewrites` rewrites a follow-up with it.
"""

from __future__ import annotations

from queries.answering.extractive.followups.rewrites import (
    END,
    LEADING_AND,
    WHO_QUESTION,
    resolve_pronouns,
    with_context,
)
from queries.answering.extractive.followups.subjects import (
    SPACE,
    Subject,
    person_in,
    subject_in,
    subject_of,
)
from queries.answering.frame import NAME, ORGANISATION, frame_question
from queries.answering.sentences import CITATION
from queries.answering.values import values

__all__ = ["condense", "person_in", "subject_of"]


def condense(query: str, history: list[dict[str, str]]) -> str:
    """Return the follow-up rewritten to stand alone, or the question itself."""
    question = SPACE.sub(" ", (query or "").strip())
    if not history or not question:
        return question
    previous = _asked(history[-1])
    subject = next(
        (s for s in (subject_in(_asked(t)) for t in reversed(history)) if s.phrase), Subject()
    )
    frame = frame_question(previous) if previous else None
    if not subject.phrase and frame is not None and frame.asked:
        # "How many vendors do we have?" names no subject; what it asks for is one: "them"
        # in "And how many of them are in Portugal?" stands for the vendors.
        subject = Subject(f"the {frame.asked}", "", frame.asked.split()[-1])
    if previous:
        rewritten = with_context(question, previous, subject)
        if rewritten:
            return rewritten
    answered = _answered_thing(frame, history[-1].get("answer", "")) if frame else ""
    if answered:
        # "Which payment processor was chosen?" answered "Keystone Pay": "its contract" in
        # the follow-up is Keystone Pay's, not the subject's of the question.
        subject = Subject(answered, answered)
    person = person_in(history[-1].get("answer", ""), previous)
    who_asked = bool(WHO_QUESTION.match(previous))
    resolved = resolve_pronouns(question, subject, person, who_asked)
    if resolved != question and LEADING_AND.match(resolved):
        # "And when was that decided?" stands alone without its "And".
        body = LEADING_AND.sub("", resolved)
        return body[:1].upper() + body[1:]
    if resolved == question and LEADING_AND.match(question) and subject.phrase:
        # "And what is the new date?" names nothing: it goes on about the same subject.
        if subject.phrase.lower() not in question.lower():
            body = LEADING_AND.sub("", question)
            return f"{body[:1].upper()}{END.sub('', body[1:])} for {subject.whole}?"
    return resolved


def _asked(turn: dict[str, str]) -> str:
    return SPACE.sub(" ", (turn.get("standalone_query") or turn.get("query") or "").strip())


def _answered_thing(frame, answer: str) -> str:
    """Return the organisation or named thing the last answer gave to a question that asked
    for one ("Which payment processor ...?"), or ""."""
    kind = frame.answer_type
    if not kind and frame.wh == "which":
        # "Which payment processor ...?": one thing of a kind, named in the answer.
        kind = NAME
    if kind not in (ORGANISATION, NAME) or frame.plural:
        return ""
    found = values(CITATION.sub(" ", answer), kind, frame.text)
    named = list(
        dict.fromkeys(
            value.text.strip()
            for value in found
            if value.text[:1].isupper() and "@" not in value.text and len(value.text) > 2
        )
    )
    # Only an answer that names one thing says what "it" is: "Julia: start talks with
    # Keystone Pay" names two, and the tagger cannot tell the person from the company.
    return named[0] if len(named) == 1 else ""
