"""The question, read once: what kind of answer it wants, what it asks about, its constraints.

A `QuestionFrame` is computed once per question (the planner node, after a follow-up is made
to stand alone) and carried in the pipeline state as a dict, so every later reader (the
strategies, the checks) reads the same frame instead of re-reading the question with its own
patterns. It is read from spaCy's parse of the question (`language.py`):

- the answer type, from the question word and the noun it asks for: "who" a person (or an
  organisation), "when" a date, "where" a place, "how many" a number, "how much" an amount,
  "how long" a duration, "why" a reason, "how do I" a description, "is/does/can ..." yes or
  no, "summarize/describe" a description, "what/which <noun>" the noun's type (a list file);
  "which <noun>" of a noun the list does not type, a name;
- the thing asked ("shift pattern" in "What is the shift pattern for ..."), and whether several
  are asked for ("Which offices ...");
- the names it asks about (which the evidence must mention), and its content terms (what the
  evidence must be about);
- constraints: a list item ("step 3", "the last step"), an item next to a named one ("the step
  after X"), a comparison ("more than 50", "before 2015"), a superlative ("the largest").
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from queries.answering import language
from queries.answering.lexicon import mapping
from queries.answering.topics import content_terms, is_topic, question_entities
from queries.answering.vocabulary import QUESTION_WORDS

PERSON = "person"
ORGANISATION = "organisation"
PLACE = "place"
DATE = "date"
DURATION = "duration"
NUMBER = "number"
AMOUNT = "amount"
NAME = "name"
LIST = "list"
YES_NO = "yes_no"
REASON = "reason"
DESCRIPTION = "description"
# The types whose answer is a value that can be found in a passage (the rest: any sentence).
VALUE_TYPES = frozenset({PERSON, ORGANISATION, PLACE, DATE, DURATION, NUMBER, AMOUNT, NAME})
ANSWER_TYPES = (
    PERSON, ORGANISATION, PLACE, DATE, DURATION, NUMBER, AMOUNT, NAME, LIST, YES_NO, REASON,
    DESCRIPTION,
)  # fmt: skip

_WH_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})
# "how <word>": the adverb or adjective after "how" and the type it asks for.
_HOW_DEGREE = {"many": NUMBER, "much": AMOUNT, "long": DURATION, "often": ""}
# Verbs whose "what" asks for money: "What does the plan cost?".
_MONEY_VERBS = frozenset({"cost", "pay", "charge", "earn", "spend", "price", "fund", "bill"})
# Words that ask for a summary or an account rather than a value (verbs, and the nouns
# "give" or "show" takes: "Give an overview of ...").
_DESCRIBE_WORDS = frozenset(
    {"summarize", "summarise", "summary", "describe", "description", "explain", "explanation",
     "outline", "overview", "tell", "detail", "rundown"}
)  # fmt: skip
# Verbs that ask for items by name: "List the offices", "Name the vendors".
_LIST_VERBS = frozenset({"list", "name", "enumerate", "give", "show", "identify", "mention"})
# "step 3", "item #2", "the 3rd step", "the third point", "the last step".
ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
}  # fmt: skip
_UNITS = r"(?:step|item|point|stage|phase|task|thing|action|bullet|entry)"
_ORDINAL = re.compile(
    rf"\b{_UNITS}\s*(?:#|no\.?|number)?\s*(?P<number>\d{{1,3}})\b|"
    rf"\b(?P<nth>\d{{1,3}})(?:st|nd|rd|th)\s+{_UNITS}\b|"
    rf"\b(?P<word>{'|'.join(ORDINAL_WORDS)}|last|final)\s+{_UNITS}\b",
    re.IGNORECASE,
)
# "the step after X", "what comes before X", "the next step after X".
_RELATIVE = re.compile(
    rf"\b(?:{_UNITS}\s+|comes?\s+|do\s+(?:i|we|you)\s+do\s+)(?P<side>after|before|following|"
    rf"preceding)\s+(?P<anchor>.+?)[?.!]*$",
    re.IGNORECASE,
)
# "more than 50", "before 2015", "at least 3".
_COMPARISON = re.compile(
    r"\b(?P<op>before|after|earlier than|later than|since|more than|over|above|at least|"
    r"greater than|larger than|less than|under|below|fewer than|at most|up to)\s+"
    r"(?P<value>\d[\d,.]*)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class QuestionFrame:
    """One reading of a question (JSON-able through to_dict/from_dict)."""

    text: str
    # One of ANSWER_TYPES, or "" when any answer will do.
    answer_type: str = ""
    # The question word(s): "who", "how many", "which", "" (a yes/no or imperative question).
    wh: str = ""
    # The thing asked for, as the question words it: "shift pattern", "head count".
    asked: str = ""
    # Several things are asked for ("Which offices ...", "List the steps").
    plural: bool = False
    # The question asks for an attribute of something it names: "What is the <shift pattern>
    # for <the night nurses>?" (the thing asked, then a preposition).
    attribute: bool = False
    # Names and versions the question asks about: the evidence must mention them.
    entities: tuple[str, ...] = ()
    # Content words (lowercased lemmas) that say what the question is about.
    terms: tuple[str, ...] = ()
    # The question's proper names and numbers as written (lowercased): what it names.
    specifics: tuple[str, ...] = ()
    # What "how many/much" counts (a lemma): the sentence giving the number must speak of it,
    # in its words or others near in meaning ("inhabitants" for "people").
    counted: str = ""
    # What the sentence giving a date or a length of time must itself say (lemmas): the
    # question's own verbs ("migrate" in "How long does it take to migrate?").
    focus: tuple[str, ...] = ()
    # {"kind": "item", "number": 3, "last": False}, {"kind": "relative", "side": "after",
    # "anchor": "..."}, {"kind": "compare", "op": "more than", "value": "50"},
    # {"kind": "superlative", "word": "largest"}, {"kind": "limit"} (what someone may spend,
    # claim or take).
    constraints: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["entities"] = list(self.entities)
        data["terms"] = list(self.terms)
        data["focus"] = list(self.focus)
        data["specifics"] = list(self.specifics)
        data["constraints"] = [dict(c) for c in self.constraints]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> QuestionFrame:
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        for key in ("entities", "terms", "specifics", "focus", "constraints"):
            if key in values:
                values[key] = tuple(values[key])
        return cls(**values)

    @property
    def wants_value(self) -> bool:
        """Whether the answer is a value of a type a passage can hold (a name, a date, ...)."""
        return self.answer_type in VALUE_TYPES

    def constraint(self, kind: str) -> dict[str, Any] | None:
        """Return the first constraint of a kind, or None."""
        return next((c for c in self.constraints if c.get("kind") == kind), None)


def frame_question(text: str) -> QuestionFrame:
    """Return the frame of a question."""
    text = " ".join((text or "").split())
    if not text:
        return QuestionFrame(text="")
    # "Lisbon: what is its nightly cap?": a topic, then the question about it.
    topic, colon, rest = text.partition(": ")
    asked_part = rest if colon and rest and is_topic(topic) else text
    doc = language.parse(asked_part[:1].upper() + asked_part[1:])
    tokens = [token for token in doc if not token.is_space]
    wh_index = _wh_token(tokens)
    answer_type, wh, asked, plural = _answer(tokens, wh_index)
    asked_indices = set(asked)
    asked_text = " ".join(tokens[i].text for i in sorted(asked))
    head = doc[max(asked)] if asked else None
    attribute = (
        head is not None
        and head.head.lemma_.lower() == "be"
        and any(child.dep_ == "prep" for child in head.children)
    )
    return QuestionFrame(
        text=text,
        answer_type=answer_type,
        wh=wh,
        asked=asked_text.lower(),
        plural=plural,
        attribute=attribute,
        entities=tuple(question_entities(text, doc, topic if asked_part != text else "")),
        terms=tuple(
            content_terms(tokens, asked_indices, wh_index, topic if asked_part != text else "")
        ),
        specifics=tuple(
            dict.fromkeys(t.lower_ for t in tokens if t.pos_ in ("PROPN", "NUM") and not t.is_stop)
        ),
        counted=(doc[asked[-1]].lemma_.lower() if wh in ("how many", "how much") and asked else ""),
        focus=tuple(_focus(tokens, answer_type)),
        constraints=tuple(_constraints(text, tokens, answer_type)),
    )


def _wh_token(tokens) -> int | None:
    """Return the index of the question word; a "when"/"where" that opens a clause before the
    question proper ("When the war ended, what ...") gives way to the next one."""
    # A relative pronoun ("the vendors whose contracts ...") is no question word.
    found = [
        i
        for i, token in enumerate(tokens)
        if token.tag_ in _WH_TAGS
        and token.dep_ != "relcl"
        and not any(a.dep_ == "relcl" for a in token.ancestors)
    ]
    if not found:
        return None
    first = found[0]
    word = tokens[first].lower_
    if word in ("when", "where", "while") and len(found) > 1 and tokens[first].head.dep_ != "ROOT":
        return found[1]
    return first


def _answer(tokens, wh_index: int | None) -> tuple[str, str, list[int], bool]:
    """Return (answer type, question word, indices of the thing asked, plural)."""
    if wh_index is None:
        return _no_wh(tokens)
    wh = tokens[wh_index]
    word = wh.lower_
    if word in ("who", "whom", "whose"):
        return PERSON, word, [], False
    if word == "when":
        return DATE, word, [], False
    if word == "where":
        return PLACE, word, [], False
    if word == "why":
        return REASON, word, [], False
    if word == "how":
        return _how(tokens, wh_index)
    if word in ("what", "which"):
        return _what(tokens, wh_index)
    return "", word, [], False


def _no_wh(tokens) -> tuple[str, str, list[int], bool]:
    """A question without a question word: yes/no, or an imperative ("List ...", "Summarize")."""
    words = [t for t in tokens if t.lower_ not in ("and", "so", "but", "also", "ok", "okay", ",")]
    if not words:
        return "", "", [], False
    first = words[0]
    if first.tag_ in ("VBZ", "VBP", "VBD", "MD") and first.lemma_.lower() in (
        "be", "do", "have", "can", "will", "shall", "may", "must", "should", "could", "would",
        "might",
    ):  # fmt: skip
        return YES_NO, "", [], False
    root = next((t for t in tokens if t.dep_ == "ROOT"), first)
    verb = root.lemma_.lower()
    if verb in _DESCRIBE_WORDS or first.lemma_.lower() in _DESCRIBE_WORDS:
        return DESCRIPTION, "", [], False
    if verb in _LIST_VERBS or first.lemma_.lower() in _LIST_VERBS:
        noun = next((t for t in root.children if t.dep_ in ("dobj", "attr", "nsubj")), None)
        if noun is not None and noun.lemma_.lower() in _DESCRIBE_WORDS:
            # "Give an overview of ...", "Give me a summary of ...".
            return DESCRIPTION, "", [], False
        if noun is not None and noun.pos_ in ("NOUN", "PROPN"):
            plural = noun.tag_ in ("NNS", "NNPS")
            return (LIST if plural else phrase_type(noun)), "", _phrase(noun), plural
        return LIST, "", [], True
    return "", "", [], False


def _how(tokens, wh_index: int) -> tuple[str, str, list[int], bool]:
    following = tokens[wh_index + 1] if wh_index + 1 < len(tokens) else None
    if following is None or following.pos_ not in ("ADJ", "ADV"):
        return DESCRIPTION, "how", [], False
    degree = following.lower_
    wh = f"how {degree}"
    noun = following.head if following.head.pos_ in ("NOUN", "PROPN") else None
    if noun is None and wh_index + 2 < len(tokens) and tokens[wh_index + 2].pos_ == "NOUN":
        noun = tokens[wh_index + 2]
    asked = [i for i in _phrase(noun) if i > following.i] if noun is not None else []
    if degree == "long":
        verbs = {t.lemma_.lower() for t in tokens if t.pos_ in ("VERB", "AUX")}
        copula_only = verbs <= {"be"} and any(
            t.dep_ == "nsubj" and t.pos_ in ("NOUN", "PROPN") for t in tokens
        )
        timed = any(
            t.dep_ == "nsubj" and noun_type(t.lemma_.lower()) in (DATE, DURATION) for t in tokens
        )
        if (
            copula_only
            and not timed
            and not any(t.lemma_.lower() in ("ago", "take", "last") for t in tokens)
        ):
            # "How long is the Rhine?": a length; "how long is the response time?": a time.
            return NUMBER, wh, asked, False
        return DURATION, wh, asked, False
    if degree == "much" and asked:
        # "How much leave", "how much time": a quantity of the noun, not money.
        kind = noun_type(tokens[asked[-1]].lemma_.lower())
        return (kind if kind in (DURATION, AMOUNT) else NUMBER), wh, asked, False
    if degree in _HOW_DEGREE:
        return _HOW_DEGREE[degree], wh, asked, False
    return NUMBER, wh, asked, False


def _what(tokens, wh_index: int) -> tuple[str, str, list[int], bool]:
    wh = tokens[wh_index]
    word = wh.lower_
    noun = None
    if wh.dep_ == "det" and wh.head.pos_ in ("NOUN", "PROPN"):
        noun = wh.head
    elif wh_index + 1 < len(tokens) and tokens[wh_index + 1].pos_ == "NOUN":
        noun = tokens[wh_index + 1]
    # "What kind of X", "Which one of the X": the noun after "of" is the thing asked.
    noun = _of_noun(noun, ("kind", "type", "sort", "one"))
    if noun is None and wh.dep_ == "det":
        return "", word, [], False
    if noun is None:
        root = wh.head if wh.dep_ != "ROOT" else wh
        while root.dep_ not in ("ROOT",) and root.head is not root:
            root = root.head
        if root.lemma_.lower() in _MONEY_VERBS:
            return AMOUNT, word, [], False
        if root.lemma_.lower() in ("happen", "do", "mean", "involve", "include", "cover"):
            return DESCRIPTION, word, [], False
        if root.lemma_.lower() == "be":
            noun = next(
                (
                    t
                    for t in root.children
                    # "What was Tesla famous for?": a name is what it asks about, not for.
                    if t.dep_ in ("nsubj", "attr", "nsubjpass") and t.i != wh.i and t.pos_ == "NOUN"
                ),
                None,
            )
        if noun is None:
            return "", word, [], False
    named = _of_noun(noun, ("name",))
    if named is not noun and named is not None:
        # "What is the name of the stadium": a name of that kind of thing.
        kind = noun_type(named.lemma_.lower())
        if kind in (PERSON, ORGANISATION, PLACE):
            return kind, word, _phrase(named), False
    plural = noun.tag_ in ("NNS", "NNPS")
    kind = phrase_type(noun)
    if (
        kind == DATE
        and noun.lemma_.lower() == "time"
        and any(t.dep_ in ("compound", "amod") for t in noun.lefts)
    ):
        # "the response time", "the lead time": how long, not when.
        kind = DURATION
    if not kind and wh.dep_ == "det" and (word == "which" or noun.pos_ == "PROPN"):
        # "Which fort ...", "Which Beatles album ...": one of a kind, by its name.
        kind = NAME
    if plural and kind in ("", NAME, PERSON, ORGANISATION, PLACE):
        return LIST, word, _phrase(noun), True
    return kind, word, _phrase(noun), plural


def _of_noun(noun, heads: tuple[str, ...]):
    """Return the noun after "of" when the noun is one of `heads` ("kind of X"), else the noun;
    None when such a head has no "of" noun (a "name" without one stays itself)."""
    if noun is None or noun.lemma_.lower() not in heads:
        return noun
    of = next((t for t in noun.children if t.dep_ == "prep" and t.lower_ == "of"), None)
    inner = next((t for t in of.children if t.dep_ == "pobj"), None) if of is not None else None
    if inner is not None:
        return inner
    return noun if heads == ("name",) else None


def _phrase(noun) -> list[int]:
    """Return the indices of a noun with the words that make it a phrase ("shift pattern")."""
    if noun is None:
        return []
    parts = [t.i for t in noun.lefts if t.dep_ in ("compound", "amod", "nmod", "nummod")]
    return sorted([*parts, noun.i])


def phrase_type(noun) -> str:
    """Return the answer type a noun asks for, read with the noun before it when the list
    names the pair ("email address" is a name, an "address" a place)."""
    compound = next((t for t in noun.lefts if t.dep_ == "compound"), None)
    if compound is not None:
        listed = mapping("answer_type_nouns").get(f"{compound.lemma_} {noun.lemma_}".lower())
        if listed is not None:
            return listed
    return noun_type(noun.lemma_.lower())


def noun_type(lemma: str) -> str:
    """Return the answer type a noun asks for: the list file's, else "" (any).

    Nouns the list does not name are not guessed: the embedding of a lone word put "term" and
    "body" nearer to a person than "chemist" or "poet" (measured on this project's nouns), and
    a wrong type costs more than none ("which <noun>" still asks for a name)."""
    return mapping("answer_type_nouns").get(lemma, "")


# The answer types whose value a passage may hold of several things at once (dates, lengths
# of time): the value's own sentence must say the question's verbs.
_FOCUSED_TYPES = frozenset({DATE, DURATION})


def _focus(tokens, answer_type: str) -> list[str]:
    """Return what the sentence giving a date or a length of time must say: the question's
    own verbs (not the light ones spaCy counts as stop words: be, have, do, take, get, ...),
    else the event a light verb's subject names ("a data migration")."""
    focus: list[str] = []
    if answer_type in _FOCUSED_TYPES:
        verbs = [
            token.lemma_.lower()
            for token in tokens
            if token.pos_ == "VERB" and not token.is_stop and len(token.lemma_) > 2
        ]
        verbs = [verb for verb in verbs if verb not in QUESTION_WORDS]
        if not verbs:
            # "How long does a data migration take?", "When is the deadline?": the event is
            # the subject of a light verb.
            root = next((token for token in tokens if token.dep_ == "ROOT"), None)
            subjects = [
                t
                for t in (root.children if root is not None else [])
                if t.dep_ in ("nsubj", "nsubjpass") and t.pos_ == "NOUN"
            ]
            for noun in subjects:
                if noun_type(noun.lemma_.lower()) in VALUE_TYPES:
                    # "the probation period", "the new availability date": the noun names the
                    # type; the words before it name the event.
                    verbs += [t.lemma_.lower() for t in noun.lefts if t.dep_ == "compound"]
                else:
                    verbs.append(noun.lemma_.lower())
        focus += [verb for verb in dict.fromkeys(verbs) if verb not in focus]
    return focus


# The modals that ask what someone may do: "How much can I spend?", "How many days may we
# take?".
_PERMISSION_MODALS = frozenset({"can", "may", "could", "might"})
_PERMISSION_WORDS = frozenset({"allowed", "permitted", "entitled", "allow"})


def _asks_limit(tokens, answer_type: str) -> bool:
    """Return whether a question asks how much someone may spend, claim or take: a limit,
    not what was spent ("How much can I claim for a taxi?", "How many days may I work
    abroad?", "How long am I allowed to stay?")."""
    if answer_type not in (AMOUNT, NUMBER, DURATION):
        return False
    for token in tokens:
        if token.lower_ in _PERMISSION_WORDS:
            return True
        if token.lower_ in _PERMISSION_MODALS and token.dep_ == "aux":
            subject = next((t for t in token.head.children if t.dep_ == "nsubj"), None)
            if subject is not None and (
                subject.pos_ == "PRON" or noun_type(subject.lemma_.lower()) == PERSON
            ):
                return True
    return False


def _constraints(text: str, tokens, answer_type: str = "") -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if _asks_limit(tokens, answer_type):
        found.append({"kind": "limit"})
    item = _ORDINAL.search(text)
    if item:
        word = (item.group("word") or "").lower()
        number = int(item.group("number") or item.group("nth") or ORDINAL_WORDS.get(word, 0))
        found.append(
            {
                "kind": "item",
                "number": number,
                "last": word in ("last", "final"),
                "start": item.start(),
                "end": item.end(),
            }
        )
    relative = _RELATIVE.search(text)
    if relative:
        side = relative.group("side").lower()
        found.append(
            {
                "kind": "relative",
                "side": "after" if side in ("after", "following") else "before",
                "anchor": relative.group("anchor").strip(" \"'“”"),
            }
        )
    for comparison in _COMPARISON.finditer(text):
        found.append(
            {
                "kind": "compare",
                "op": comparison.group("op").lower(),
                "value": comparison.group("value"),
            }
        )
    for token in tokens:
        if (
            token.tag_ in ("JJS", "RBS")
            and token.lower_ not in ("least", "most")
            or (token.lower_ in ("most", "least") and token.head.pos_ in ("ADJ", "NOUN"))
        ):
            found.append({"kind": "superlative", "word": token.lower_})
    return found
