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
"""

from __future__ import annotations

import re
from typing import NamedTuple

_SPACE = re.compile(r"\s+")
_WORDS = re.compile(r"[\w'’-]+")
_END = re.compile(r"[\s?.!]+$")
# Words (with version numbers such as "3.1" kept whole) and single punctuation marks.
_TOKEN = re.compile(r"[\w'’-]+(?:\.\d+)*|[^\w\s]")

# A run of capitalised words (with the particles names carry): "Project Falcon",
# "University of Chicago", "Guido van Rossum", "GPT-4".
_NAME_RUN = re.compile(
    r"\b[A-Z][\w'’-]*(?:\s+(?:(?:of|the|de|van|von|da|di|du|del|la|le)\s+){0,2}[A-Z][\w'’-]*)*"
)
_PARTICLES = frozenset({"of", "the", "de", "van", "von", "da", "di", "du", "del", "la", "le"})
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
        "your", "my", "ok", "okay", "thanks", "hi", "hello", "find", "check", "define",
        "outline", "identify", "provide", "look", "see", "remind",
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
        "sunday", "new", "san", "santa", "los", "las", "saint", "st", "hong", "north", "south",
        "east", "west", "port", "fort", "mount",
    }
)  # fmt: skip
_DETERMINERS = frozenset({"the", "a", "an", "our", "your", "their", "my"})
_PREPOSITIONS = frozenset(
    {
        "of", "in", "on", "at", "for", "from", "by", "with", "about", "to", "into", "after",
        "before", "during", "since", "under", "over", "between", "per", "via", "against",
        "near", "inside", "outside", "around", "through", "across", "within",
    }
)  # fmt: skip
# Where a noun phrase ends besides a preposition: pronouns, question words, adverbs.
_PHRASE_ENDS = _PREPOSITIONS | frozenset(
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
_PREDICATES = frozenset(
    {
        "open", "closed", "available", "ready", "late", "early", "free", "due", "valid",
        "mandatory", "optional", "required", "allowed", "responsible", "eligible", "live",
        "active", "public", "private", "compliant", "possible", "necessary", "covered",
    }
)  # fmt: skip
# Irregular participles: "When was the Eiffel Tower built?" (regular ones end in -ed).
_PARTICIPLES = frozenset(
    {
        "built", "chosen", "written", "done", "given", "held", "sent", "kept", "led", "found",
        "known", "seen", "shown", "begun", "drawn", "grown", "thrown", "paid", "sold", "told",
        "bought", "brought", "caught", "taught", "thought", "won", "spent", "lost", "met",
        "left", "broken", "spoken", "driven", "risen", "fallen", "forgotten", "hidden",
        "struck", "hung", "heard", "dealt", "lent", "upheld", "rebuilt", "rewritten",
        "withdrawn", "undertaken", "overseen", "understood", "stood", "laid", "made", "taken",
        "gone", "gotten", "got", "said", "meant", "become", "come", "set", "cut",
    }
)  # fmt: skip
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
_PLACES = frozenset(
    {
        "office", "offices", "site", "sites", "building", "campus", "city", "town", "country",
        "region", "warehouse", "branch", "store", "shop", "hub", "lab", "laboratory",
        "factory", "plant", "headquarters", "hq", "room", "floor", "centre", "center",
        "facility", "location", "depot", "studio", "school", "hospital", "airport",
        "station", "park", "tower", "team", "department", "clinic", "library",
    }
)  # fmt: skip
# After these "there" is where one goes ("to"), not where one is ("in").
_MOTION = frozenset(
    {
        "go", "goes", "went", "get", "gets", "got", "travel", "travels", "travelled",
        "traveled", "move", "moves", "moved", "relocate", "relocated", "fly", "flew", "drive",
        "drove", "commute", "commutes", "walk", "ship", "shipped", "send", "sent", "transfer",
        "transferred", "come", "comes", "came",
    }
)  # fmt: skip
_BE = frozenset({"is", "are", "was", "were", "be", "been", "'s", "will", "would", "could"})
_AUXILIARIES = (
    r"(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|may|might|must)"
)
_DO_SUPPORT = frozenset({"do", "does", "did", "can", "could", "will", "would", "should", "must"})
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
_WH_AUX = re.compile(r"^(?P<wh>" + _WH + r")\s+(?P<rest>" + _AUXILIARIES + r"\b.*)$", re.I)
_WHO_QUESTION = re.compile(_LEAD + r"who(?:m|se)?\b", re.I)
_LEADING_AND = re.compile(r"^(?:and|so|also|then)\b[\s,]*(?=\w)", re.I)

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
    + r")"
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
_AFTER_PRONOUN = frozenset(
    {
        "is", "was", "are", "were", "do", "does", "did", "has", "have", "had", "mean",
        "means", "meant", "work", "works", "happen", "happened", "cost", "costs", "run",
        "runs", "start", "started", "in", "on", "at", "for", "from", "to", "with", "by",
        "about", "first", "last", "again", "and", "or", "but",
    }
)  # fmt: skip
_PRONOUN = re.compile(
    r"\b(?:it|its|they|them|their|he|him|she|his|hers|her|this|that|these|those|there)\b", re.I
)
# A person who replaces "they" takes the singular auxiliary: "Are they" -> "Is Ines Duarte".
_SINGULAR = {
    "are": "is", "were": "was", "have": "has", "do": "does", "aren't": "isn't",
    "weren't": "wasn't", "haven't": "hasn't", "don't": "doesn't",
}  # fmt: skip


class _Subject(NamedTuple):
    """What a question is about: the phrase, the name inside it, and the noun that heads it."""

    phrase: str = ""
    name: str = ""
    head: str = ""

    def place_like(self) -> bool:
        """Return whether "there" can stand for this subject: a name, or a place noun."""
        if self.name and not self.head:
            words = self.name.split()
            return words[-1].lower() in _PLACES or not _looks_like_person(words)
        return self.head.lower() in _PLACES


def condense(query: str, history: list[dict[str, str]]) -> str:
    """Return the follow-up rewritten to stand alone, or the question itself."""
    question = _SPACE.sub(" ", (query or "").strip())
    if not history or not question:
        return question
    previous = _asked(history[-1])
    subject = next(
        (s for s in (_subject_in(_asked(t)) for t in reversed(history)) if s.phrase), _Subject()
    )
    if previous:
        rewritten = _with_context(question, previous, subject)
        if rewritten:
            return rewritten
    person = person_in(history[-1].get("answer", ""), previous)
    who_asked = bool(_WHO_QUESTION.match(previous))
    resolved = _resolve_pronouns(question, subject, person, who_asked)
    if resolved != question and _LEADING_AND.match(resolved):
        # "And when was that decided?" stands alone without its "And".
        body = _LEADING_AND.sub("", resolved)
        return body[:1].upper() + body[1:]
    if resolved == question and _LEADING_AND.match(question) and subject.phrase:
        # "And what is the new date?" names nothing: it goes on about the same subject.
        if subject.phrase.lower() not in question.lower():
            body = _LEADING_AND.sub("", question)
            return f"{body[:1].upper()}{_END.sub('', body[1:])} for {subject.phrase}?"
    return resolved


def subject_of(question: str) -> str:
    """Return what a question is about: the phrase its first name sits in, else a noun phrase."""
    return _subject_in(question).phrase


def person_in(answer: str, question: str) -> str:
    """Return the first person's name an answer adds to its question, or ""."""
    known = set(_WORDS.findall(question.lower()))
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


def _asked(turn: dict[str, str]) -> str:
    return _SPACE.sub(" ", (turn.get("standalone_query") or turn.get("query") or "").strip())


def _with_context(question: str, previous: str, subject: _Subject) -> str:
    """Return the previous question re-asked as the follow-up asks, or "" if it asks anew."""
    match = _ORDINAL_FOLLOW_UP.match(question)
    rewritten = _with_ordinal(previous, match) if match else ""
    if rewritten:
        return rewritten
    match = _BARE_WH.match(question) or _WH_EMPTY_CLAUSE.match(question)
    if match:
        return _with_question_word(previous, match.group("wh").lower())
    new_subject = _new_subject(question)
    if new_subject:
        return _with_subject(previous, subject, new_subject)
    return ""


def _subject_in(question: str) -> _Subject:
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
            return _Subject(name, name)
        do_support = start > 1 and tokens[start - 2].lower() in _DO_SUPPORT
        nouns = _nouns_after(tokens, end, do_support, keep=0)
        phrase = " ".join([determiner.lower(), name, *nouns])
        return _Subject(phrase, name, nouns[-1] if nouns else "")
    return _noun_phrase(tokens)


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
    for token in tokens[start : start + 4]:
        if not token[0].isalnum() or token[0].isupper() or _is_phrase_end(token):
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


def _is_phrase_end(word: str) -> bool:
    lowered = word.lower()
    # An adverb ("originally", "currently") ends a noun phrase as a verb does.
    adverb = lowered.endswith("ly") and len(lowered) > 4
    return lowered in _PHRASE_ENDS or lowered in _PREDICATES or adverb or _is_verb(word)


def _is_verb(word: str) -> bool:
    return word.lower() in _VERBS or _is_participle(word)


def _is_participle(word: str) -> bool:
    lowered = word.lower()
    if lowered in _PARTICIPLES:
        return True
    return len(lowered) > 3 and lowered.endswith("ed") and lowered not in _ED_NOUNS


def _noun_phrase(tokens: list[str]) -> _Subject:
    """Return the first `the X Y` phrase, without the main verb a do-question ends with."""
    for i, token in enumerate(tokens):
        if token.lower() not in _DETERMINERS:
            continue
        do_support = i > 0 and tokens[i - 1].lower() in _DO_SUPPORT
        nouns = _nouns_after(tokens, i + 1, do_support, keep=1)
        if nouns:
            return _Subject(" ".join([token, *nouns]), "", nouns[-1])
    return _Subject()


def _with_ordinal(previous: str, match: re.Match[str]) -> str:
    """Ask the previous question about another numbered step, or return ""."""
    noun = match.group("noun") or match.group("noun_after") or match.group("noun_before")
    found = re.search(rf"\b{noun}\s+(\d+)\b", previous, re.I)
    if not found:
        return ""
    direction = (match.group("direction") or "").lower()
    if direction in ("last", "final", "first"):
        # "the last step" is no number; the previous question is asked about it by name.
        the = "" if re.search(r"\bthe\s+$", previous[: found.start()], re.I) else "the "
        return previous[: found.start()] + f"{the}{direction} {noun}" + previous[found.end() :]
    if match.group("number"):
        number = int(match.group("number"))
    else:
        direction = (match.group("direction") or match.group("side")).lower()
        number = int(found.group(1)) + (1 if direction in _FORWARD else -1)
    # Lists start at 1: "the previous step" of step 1 asks about step 1 again.
    number = max(number, 1)
    return previous[: found.start(1)] + str(number) + previous[found.end(1) :]


def _new_subject(question: str) -> str:
    """Return the subject "What about X?" or "And X?" brings in, or ""."""
    match = _WHAT_ABOUT.match(question)
    if match:
        subject = match.group("subject").strip()
        return "" if _PRONOUN.fullmatch(subject) else subject
    match = _AND_SUBJECT.match(question)
    if match and _is_short_noun_phrase(match.group("subject")):
        return match.group("subject").strip()
    return ""


def _is_short_noun_phrase(text: str) -> bool:
    """Return whether the text is a name or a determiner's phrase, with no verb or pronoun."""
    tokens = _TOKEN.findall(text)
    if not 1 <= len(tokens) <= 5 or not all(t[0].isalnum() for t in tokens):
        return False
    first = tokens[0].lower()
    if first not in _DETERMINERS and not _starts_name(tokens[0]):
        return False
    return not any(_is_phrase_end(t) and t.lower() not in _PARTICLES for t in tokens[1:])


def _is_bare_name(text: str) -> bool:
    """Return whether the text is a name alone: "Berlin", "Lumen v3", not "the Berlin office"."""
    tokens = _TOKEN.findall(text)
    return bool(tokens) and _starts_name(tokens[0]) and _name_end(tokens, 0) == len(tokens)


def _with_subject(previous: str, subject: _Subject, new_subject: str) -> str:
    """Ask the previous question again about a new subject."""
    old = subject.phrase
    start = previous.lower().find(old.lower()) if old else -1
    if start < 0:
        return f"{_END.sub('', previous)}: {new_subject}?"
    new = new_subject
    article = re.search(r"\b(?:a|an)\s+[\w'’-]+(?:\s+[\w'’-]+)?(?=[\s?.!,]*$)", previous, re.I)
    if new_subject.lower().startswith(("a ", "an ")) and article:
        # "What about a software engineer?" after "... budget for a data analyst?": the role.
        return previous[: article.start()] + new_subject + previous[article.end() :]
    # "What about Berlin?" after "the Dublin office": Berlin is another office, not the office.
    if subject.name and subject.head and _is_bare_name(new_subject):
        new = previous[start : start + len(old)].replace(subject.name, new_subject, 1)
    return previous[:start] + new + previous[start + len(old) :]


def _with_question_word(previous: str, wh: str) -> str:
    """Ask the previous question with another question word."""
    match = _WH_AUX.match(previous)
    if match:
        return f"{wh.capitalize()} {match.group('rest')}"
    return f"{_END.sub('', previous)}, and {wh}?"


def _resolve_pronouns(question: str, subject: _Subject, person: str, who_asked: bool) -> str:
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
    word: str, before: str, after: str, subject: _Subject, person: str, they_person: str
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
        if ends or next_word in _AFTER_PRONOUN or _is_participle(next_word):
            return subject.phrase, subject.phrase
        return "", ""
    referent = person or subject.phrase
    if word == "her":
        # "her" before a noun is a possessive ("her role"), else an object ("ask her").
        object_form = not next_word or not next_word[0].isalnum() or next_word in _AFTER_PRONOUN
        return referent, referent + ("" if object_form else _possessive(referent, "'s"))
    return referent, referent + _possessive(referent, _PERSON[word])


def _there(before: str, next_word: str, subject: _Subject) -> tuple[str, str]:
    """Return the place "there" stands for and its text ("in the Dublin office"), or ("", "")."""
    previous_word = (_WORDS.findall(before)[-1:] or [""])[0].lower()
    # "Is there a canteen?", "there's": existential, it stands for no place.
    if next_word in _BE or previous_word in _BE or not subject.place_like():
        return "", ""
    if previous_word in _PREPOSITIONS:
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
