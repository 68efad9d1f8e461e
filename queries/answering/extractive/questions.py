"""The planner's rules, and the parts of a question to answer one by one.

The planner decides by rules whether a query needs the documents, the web, or neither.
`question_parts` splits a question into the parts to be answered one by one, each with the
type of answer its frame asks for (a person for "who", a date for "when", a number for "how
many"), so that the sentence which names it wins over one that merely repeats its words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils import timezone

from providers.tokenize import raw_tokens
from queries.answering.extractive.arithmetic import arithmetic_expression
from queries.answering.frame import DESCRIPTION, REASON, QuestionFrame, frame_question

_SPACE = re.compile(r"\s+")

# --- Planner rules -------------------------------------------------------------------------

_DOC_NOUNS = (
    r"(?:document|doc|file|report|pdf|upload|slide|deck|presentation|spreadsheet|sheet|memo|"
    r"manual|handbook|guide|policy|policies|contract|paper|notes?|minutes|transcript|email|"
    r"attachment|page|section|chapter|appendix|table|figure|spec|specification|readme|wiki)s?"
)
_DOC_REFERENCE = re.compile(
    r"\baccording to\b|\bupload(?:ed|s)?\b|\battached\b|\bknowledge ?base\b|\bour\b|"
    r"\bmy (?:files|documents|docs|notes)\b|\b(?:in|from) (?:the )?(?:text|corpus)\b|"
    r"\b(?:the|this|that|these|those|my|our|your|attached|uploaded) " + _DOC_NOUNS + r"\b|"
    r"\b(?:says?|mentions?|states?) (?:about|that)\b"
)
_GREETING_PART = re.compile(
    r"^(?:hi|hello|hey|hiya|howdy|greetings|yo|hola|bonjour|good (?:morning|afternoon|evening|day)|"
    r"thanks?(?: you)?(?: (?:so|very) much| a lot)?|thx|ty|cheers|much appreciated|"
    r"bye|goodbye|good ?night|see (?:you|ya)(?: later)?|ok(?:ay)?|cool|great|nice|awesome|"
    r"how are (?:you|things)(?: doing)?(?: today)?|how(?:'s| is) it going|what'?s up|sup|"
    r"who are you|what are you|what can you do|what do you do|nice to meet you|"
    r"good (?:job|bot|work))(?: (?:there|everyone|all|team|bot|again|friend|mate))?$"
)
THANKS = re.compile(r"\b(?:thanks?|thx|ty|cheers|appreciated)\b")
FAREWELL = re.compile(r"\b(?:bye|goodbye|good ?night|see (?:you|ya))\b")
_LANGUAGES = (
    r"(?:python|javascript|typescript|java|c\+\+|c#|golang|rust|ruby|php|kotlin|swift|scala|"
    r"bash|shell|powershell|sql|html|css|perl|haskell|elixir|lua|matlab|node(?:\.?js)?|react)"
)
_CODING = re.compile(
    r"\b(?:write|implement|generate|create)\b.{0,40}?\b(?:function|script|program|method|"
    r"snippet|regex|regular expression|algorithm|unit tests?|sql query|code (?:to|for|that))\b|"
    r"\bhow (?:do|can|would|should|to) (?:i |you |we |one )?.{0,80}\bin " + _LANGUAGES + r"\b|"
    r"\b" + _LANGUAGES + r" (?:code|function|script|snippet|example|syntax|program|one-liner)\b|"
    r"\bfix (?:this|my) (?:code|bug|error|function)\b|"
    r"\b(?:stack ?trace|traceback|syntax error|segfault|compile error)\b|```"
)
_GENERAL_KNOWLEDGE = (
    # "The capital of the company" is finance, not geography: a country never needs "the"
    # except in these few names.
    re.compile(
        r"^(?:what|which)(?: is|'s| was) the capital(?: city)? of (?:the (?:united states|"
        r"united kingdom|netherlands|philippines|czech republic|uk|usa|us)|(?!the\b)[a-z.'-]+"
        r"(?: [a-z.'-]+){0,2})$"
    ),
    re.compile(
        r"^who (?:is|was|'s) the (?:first|second|third|last|current|\d+(?:st|nd|rd|th)) "
        r"(?:president|prime minister|king|queen|emperor|chancellor|pope|man|woman|person) "
        r"(?:of|to walk on|in) [a-z .'-]+$"
    ),
    re.compile(
        r"^how many (?:days|hours|minutes|seconds|weeks|months|years) (?:are )?(?:there )?in "
        r"(?:a|an|one) (?:year|leap year|week|day|hour|minute|month|decade|century|millennium)$"
    ),
    re.compile(
        r"^how many (?:continents|planets|oceans|bones|chromosomes|teeth) "
        r"(?:are )?(?:there )?(?:in|on|does|do|in the|are in)?.{0,30}$"
    ),
    re.compile(
        r"^what(?: is|'s) the (?:speed of light|speed of sound|boiling point of water|"
        r"freezing point of water|melting point of ice|chemical symbol (?:of|for) [a-z]+|"
        r"chemical formula (?:of|for) [a-z]+)(?: in [a-z ]+)?$"
    ),
    re.compile(
        r"^what(?: is|'s) the (?:largest|smallest|biggest|tallest|longest|highest|deepest) "
        r"(?:planet|ocean|mountain|river|country|continent|desert|animal|lake|island)"
        r"(?: (?:in|on|of) (?:the world|earth|the solar system))?$"
    ),
)
_WORLD_LIVE = re.compile(
    r"\b(?:latest|breaking|today'?s|current|recent) (?:news|headlines)\b|"
    r"\bnews (?:today|this week)\b|\b(?:current|latest|live) (?:price|value) of\b|"
    r"\bprice of (?:bitcoin|ethereum|gold|oil|silver)\b|"
    r"\bweather\b|\b(?:stock|share) price\b|\bexchange rate\b|\bbitcoin price\b|"
    r"\blive score\b"
)
_LIVE = re.compile(
    r"\b(?:latest|breaking) (?:news|headlines|updates?|developments?)\b|\btoday(?:'s)?\b|"
    r"\btonight\b|\bright now\b|\byesterday\b|\bthis (?:week|weekend|month)\b|"
    r"\bcurrent (?:price|weather|temperature|stock|exchange rate|score|time|events?|"
    r"president|prime minister|ceo|leader)\b|\bnews\b"
)
_YEAR = re.compile(r"\b(20\d\d)\b")
_ANALYTICAL = re.compile(
    r"\bwhy\b|\bhow (?:does|do|did|is|are|was|were|can|could)\b|\bexplain\b|\bcompar|"
    r"\bdifferences?\b|\banaly[sz]|\bevaluat|\bassess|\bimplications?\b|\bimpact\b|\btrends?\b|"
    r"\bpros and cons\b|\badvantages?\b|\bdisadvantages?\b|\bsummar|\boverview\b|"
    r"\brelationship\b|\bcauses?\b|\beffects?\b|\bfactors?\b|\bstrengths?\b|\bweakness"
)


@dataclass(frozen=True)
class Plan:
    """What the planner decided for a query, and by which rule."""

    retrieve: bool
    use_external: bool
    query_type: str
    rule: str
    expression: str | None = None

    @property
    def reasoning(self) -> str:
        """Return the sentence that explains the rule."""
        return _RULES[self.rule]


_RULES = {
    "greeting": "Greeting or small talk: answered directly, without the documents.",
    "documents": "The question refers to documents or the team's own material: retrieve.",
    "arithmetic": "An arithmetic expression: computed directly, without the documents.",
    "coding": "A programming request: not a question about the documents.",
    "live_world": "Live world data (news, weather, prices): searched on the web only.",
    "live": "A recent or live question: the documents are searched, and the web as well.",
    "general": "A well-known general-knowledge question: not about the documents.",
    "default": "No direct-answer rule matched, so the documents are searched.",
}


def classify(frame: QuestionFrame) -> Plan:
    """Return the rule-based plan of a question; retrieval unless a clear rule says otherwise.

    A question its frame reads as asking for a reason or a description is analytical, as is
    one that compares, evaluates or summarises."""
    query = frame.text
    text = _SPACE.sub(" ", (query or "").strip().lower())
    analytical = frame.answer_type in (REASON, DESCRIPTION) or _ANALYTICAL.search(text)
    kind = "analytical" if analytical else "factual"
    parts = [part.strip() for part in re.split(r"[,.!?;:]+|\s+-\s+", text) if part.strip()]
    if all(_GREETING_PART.match(part) for part in parts):
        return Plan(False, False, "conversational", "greeting")
    # Checked before every direct-answer rule: a question about the team's material is
    # answered from it even when it looks like general knowledge or live data.
    if _DOC_REFERENCE.search(text):
        return Plan(True, False, kind, "documents")
    expression = arithmetic_expression(query)
    if expression:
        return Plan(False, False, "computational", "arithmetic", expression)
    if _CODING.search(text):
        return Plan(False, False, "coding", "coding")
    general = any(pattern.match(text.rstrip("?!. ")) for pattern in _GENERAL_KNOWLEDGE)
    # A year from last year on asks about recent events.
    recent = timezone.now().year - 1
    live = bool(_LIVE.search(text)) or any(int(year) >= recent for year in _YEAR.findall(text))
    if _WORLD_LIVE.search(text) or (general and live):
        return Plan(False, True, "current_events", "live_world")
    if live:
        return Plan(True, True, "current_events", "live")
    if general:
        return Plan(False, False, "general_knowledge", "general")
    return Plan(True, False, kind, "default")


@dataclass(frozen=True)
class QuestionPart:
    """One part of a question: what it asks, the text it is scored with, its answer type."""

    text: str
    scored_text: str
    answer_type: str


# "Who designed X and when was it released?": a second wh-word after "and" starts a new part.
_PART_BREAK = re.compile(
    r"\?\s+(?=\S)|;\s*|,?\s+and\s+(?=(?:who|whom|whose|when|where|what|which|why|how)\b)",
    re.IGNORECASE,
)
_NAME_WORD = re.compile(r"(?<!^)(?<![.?!]\s)\b[A-Z][\w'’-]*")
MAX_PARTS = 3


def question_parts(frame: QuestionFrame) -> list[QuestionPart]:
    """Return the parts of a question to answer one by one; most questions have one."""
    text = frame.text
    parts = [part.strip(" ,?") for part in _PART_BREAK.split(text) if len(raw_tokens(part)) >= 2]
    parts = parts[:MAX_PARTS]
    if len(parts) < 2:
        return [QuestionPart(text, text, frame.answer_type)]
    result = []
    for i, part in enumerate(parts):
        # A later part often says "it" for a name in an earlier one: carry the names over.
        others = [
            name
            for j, other in enumerate(parts)
            if j != i
            for name in _NAME_WORD.findall(other)
            if name.lower() not in raw_tokens(part)
        ]
        scored = f"{part} {' '.join(dict.fromkeys(others))}".strip()
        result.append(QuestionPart(part, scored, frame_question(part).answer_type))
    return result
