"""Whether an answer addresses its question, from the passages it rests on.

Not found: a name or version the question asks about that no passage of the documents the
answer rests on mentions; a modifier no document uses where the passages put another
("sabbatical leave" asked, "annual leave" found); the thing asked for ("the salary range for
...") in no form in those passages, though the documents use its words elsewhere; a "how many"
answer without a quantity, a "how much does it cost" one without an amount of money, a "how
long does it take to X" one that says nothing of X taking time; an answer that says the
documents do not say. Doubtful (left unverified): a question word no
document uses that reads as a paraphrase, or passages holding under half of the question's
words, each weighted by how rare it is in the searched knowledge bases.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from providers.llm.base import SourceBlock
from providers.llm.checks.words import (
    NEAR_WORD_COSINE,
    NUMBER,
    QUESTION_WORDS,
    SYNONYM_GROUPS,
    evidence_words,
    is_common,
    is_common_name,
    near_in_meaning,
    question_terms,
    spelled_like,
)
from providers.tokenize import STOP_WORDS, bm25_tokens, raw_tokens

if TYPE_CHECKING:
    from providers.llm.checks import AnswerCheck

COMMON_WEIGHT = 0.3


_NAME_RUN = re.compile(
    r"(?<=\S\s)[A-Z][\w'’.-]*(?:\s+(?:(?:of|the|de|van|von|and)\s+)?[A-Z][\w'’.-]*)*"
    r"|\b[A-Z]{3,}\b"
)


VERSION = re.compile(r"\bv?(\d+(?:\.\d+)+)\b", re.IGNORECASE)


# Capitalised words that describe rather than name: "Brazilian", "Islamic", "French".
_DEMONYM = re.compile(
    r"(?:ian|ese|ish|ean|can|ic)$|^(?:french|dutch|czech|greek|swiss|thai|welsh|german|"
    r"iraqi|israeli|pakistani|saudi|arab|roman)$"
)


def question_names(question: str) -> list[str]:
    """Return the names a question asks about: runs of capitalised words after its first
    word, and acronyms, as written; and its versions ("3.4.0" of "v3.4.0")."""
    text = VERSION.sub(" ", question)
    names = [match.group(0).strip(".'’") for match in _NAME_RUN.finditer(text)]
    # Common words ("Earth", "United States") and demonyms ("French") name no particular
    # thing the passages must repeat.
    return [name for name in names if not _describes(name)] + [
        match.group(1) for match in VERSION.finditer(question)
    ]


def _describes(name: str) -> bool:
    """Return whether capitalised words describe rather than name: every word a demonym
    ("British") or a common word ("Earth's", "Prime", "United States")."""
    words = [re.sub(r"['’]s$", "", word).lower() for word in name.split()]
    words = [word for word in words if word not in ("of", "the", "de", "van", "von", "and")]
    return all(_DEMONYM.search(word) or is_common_name(word) for word in words)


def judge_sufficiency(
    question: str, result: AnswerCheck, blocks: dict[int, SourceBlock], term_stats: dict
) -> None:
    if result.refusal:
        result.sufficient, result.coverage = False, 0.0
        return
    # What the answer rests on: the passages that support it, else those it cites (a misquote
    # of the right passage still shows the documents address the question).
    cited = [n for claim in result.claims for n in claim.cited]
    evidence = [blocks[i] for i in result.supporting or dict.fromkeys(cited) if i in blocks]
    if not evidence:
        result.sufficient = False
        return
    evidence_text = "\n".join(block.context_text for block in evidence)
    frequencies = term_stats.get("df") or {}
    _coverage(question, result, evidence_text, frequencies, int(term_stats.get("chunks") or 0))
    found = evidence_words(evidence_text)
    result.absent = [
        word
        for word in result.missing
        if frequencies.get(bm25_tokens(word)[0]) == 0
        and not is_common(word)
        and not _resembles(word, found)
    ]
    # A name may sit in the document's own name ("Harvard_University-3.txt") or in another
    # passage of the same section (the paragraph goes on there), not elsewhere in the
    # document: a hotel rule is no answer about Munich because a list further down names it.
    places = {(block.file_name, tuple(block.section)) for block in evidence}
    nearby = [b.context_text for b in blocks.values() if (b.file_name, tuple(b.section)) in places]
    files = {re.sub(r"[_.-]+", " ", file_name) for file_name, _ in places}
    result.unnamed = _unnamed(question, "\n".join([*files, *nearby]))
    result.contrasts = _contrasts(question, result.absent, evidence_text)
    result.unfitting = not _fits_type(question, [claim.text for claim in result.claims])
    # Words no searched document uses are the question's own wording ("nickname"), the
    # documents' silence or not: they leave an answer unverified (`absent`), not unanswered.
    unasked = _unaddressed(question, evidence_text, found)
    result.unasked = [] if set(unasked) & set(result.absent) else unasked
    # A word no document uses may be the documents' silence or the question's own wording
    # ("surrender" for "gave up"): it leaves the answer unverified, not unanswered.
    result.sufficient = not (
        result.contrasts or result.unnamed or result.unfitting or result.unasked
    )


def _coverage(
    question: str, result: AnswerCheck, evidence_text: str, frequencies: dict, chunks: int
) -> None:
    """Record which question words the evidence holds, and their share by weight."""
    evidence_stems = set(bm25_tokens(evidence_text))
    total = covered_weight = 0.0
    for word, stem in question_terms(question):
        weight = _idf(frequencies.get(stem), chunks) * (COMMON_WEIGHT if is_common(word) else 1.0)
        total += weight
        covered = _covered(word, stem, evidence_stems, evidence_text)
        result.terms.append((word, round(weight, 3), covered))
        if covered:
            covered_weight += weight
        else:
            result.missing.append(word)
    result.coverage = round(covered_weight / total, 3) if total else 1.0


# Stricter than a paraphrase of any question word: "salary" is near "pay" (0.52) in "Keystone
# Pay", "population" near "inhabitants" (0.57).
ASKED_THING_COSINE = 0.56


# "What is the salary range for ...": the thing asked for, before its first preposition.
_ASKED_THING = re.compile(
    r"^\s*(?:and\s+)?(?:what|which)(?:'s|\s+(?:is|are|was|were))\s+(?:the|our|your|my|a|an)\s+"
    r"(?P<head>[\w'’-]+(?:\s+[\w'’-]+){0,3}?)\s+"
    r"(?:of|for|in|at|on|to|from|with|by|per|under|between|that|when|if)\b",
    re.IGNORECASE,
)


def _unaddressed(question: str, evidence_text: str, found: list[str]) -> list[str]:
    """Return the words of the thing a question asks for ("salary range") when the evidence
    holds none of them in any form, and one at least is not a common word: the passages are
    about its other words ("a software engineer in Porto"), not about what is asked."""
    match = _ASKED_THING.match(" ".join(question.split()))
    if not match:
        return []
    words = [
        word
        for word in raw_tokens(match.group("head"))
        if word not in STOP_WORDS and word not in QUESTION_WORDS and not NUMBER.fullmatch(word)
    ]
    if not words or all(is_common(word) for word in words):
        return []
    stems = set(bm25_tokens(evidence_text))
    for word in words:
        stem = (bm25_tokens(word) or [word])[0]
        if _covered(word, stem, stems, evidence_text) or (
            found and near_in_meaning(word, found, ASKED_THING_COSINE)
        ):
            return []
    return words


def _contrasts(question: str, absent: list[str], evidence_text: str) -> list[tuple[str, str]]:
    """Return (asked, found) pairs where the question's modifier of a noun is a word no
    document uses and the evidence puts another in its place: "sabbatical leave" asked,
    "annual leave" found. That is a near miss, not a paraphrase."""
    missing = set(absent)
    if not missing:
        return []
    asked_words = raw_tokens(question)
    asked_set = set(asked_words)
    said = raw_tokens(evidence_text)
    said_stems = [bm25_tokens(word)[:1] for word in said]
    found: list[tuple[str, str]] = []
    for modifier, head in zip(asked_words, asked_words[1:]):
        if modifier not in missing or head in STOP_WORDS:
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


def _unnamed(question: str, text: str) -> list[str]:
    """Return the question's names that the text never mentions (in any spelling close enough)."""
    versions = {match.group(1) for match in VERSION.finditer(text)}
    words = set(raw_tokens(text))
    spelled = [w for w in words if len(w) > 2 and not w.isdigit()]
    acronyms = _acronyms(text)
    missing = []
    for name in question_names(question):
        if VERSION.fullmatch(name):
            if name not in versions:
                missing.append(name)
            continue
        parts = [part for part in raw_tokens(name) if len(part) > 1 and part not in STOP_WORDS]
        if not parts:
            continue
        # "Thomas Davis" is named by "Davis", "Brazil" by "Brazilian", "ARPNET" by "ARPANET",
        # "United States" by "US", "ABC" by "American Broadcasting Company".
        named = any(p in words or (len(p) > 2 and spelled_like(p, spelled)) for p in parts)
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


_HOW_MANY = re.compile(r"\bhow (?:many|much)\b", re.IGNORECASE)


_QUANTITY_WORDS = frozenset(
    {
        "none", "no", "zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
        "nine", "ten", "eleven", "twelve", "dozen", "dozens", "hundred", "hundreds",
        "thousand", "thousands", "million", "millions", "billion", "half", "single", "double",
        "twice", "once", "several", "few", "all", "both", "every", "free", "unlimited",
    }
)  # fmt: skip


# "How long does it take to restore ...?": a duration of that action.
_HOW_LONG_TAKES = re.compile(
    r"\bhow long (?:does|did|will|would|should|can|do) (?:it|[\w-]+(?:\s+[\w-]+){0,3}) take\b"
    r"(?:\s+(?:to|for)\s+(?:\w+\s+)?(?P<action>\w+))?",
    re.IGNORECASE,
)
# "How much does it cost / can I spend / is the fee": an amount of money, in a currency.
_MONEY_QUESTION = re.compile(
    r"\bhow much\b(?:\s+[\w'’-]+){0,6}?\s+(?:cost|costs|spend|pay|paid|charge|charged|"
    r"claim|reimbursed?|earn|earns|price|priced|fee|fees|budget|salary|afford|worth)\b",
    re.IGNORECASE,
)
_MONEY = re.compile(
    r"[$€£¥₹]|\b(?:eur|usd|gbp|cad|aud|chf|jpy|cny|dollars?|euros?|pounds?|yen|yuan|francs?|"
    r"marks?|rupees?|pesos?|crowns?|kronor|krona|cents?|pence|free|nothing|no charge)\b",
    re.IGNORECASE,
)
_TAKING = frozenset(bm25_tokens("take takes took taken taking last lasts lasted need needs within"))


def _fits_type(question: str, claims: list[str]) -> bool:
    """Return whether an answer to "how many" or "how much" holds a quantity, and one to
    "how long does it take to X" says how long X takes.

    Only a quantity is told reliably: an answer to "when" or "who" may rightly be "after the
    war" or "the owner". A duration alone is not enough for "how long does a restore take":
    "backups are kept for 35 days" is a duration of something else.
    """
    if not claims:
        return True
    takes = _HOW_LONG_TAKES.search(question)
    if takes:
        action = set(bm25_tokens(takes.group("action") or ""))
        said = {stem for claim in claims for stem in bm25_tokens(claim)}
        return bool(said & (_TAKING | action))
    if not _HOW_MANY.search(question):
        return True
    if _MONEY_QUESTION.search(question) and not any(_MONEY.search(claim) for claim in claims):
        # "How much can I spend?" is not answered by "within 7 days".
        return False
    asked = set(raw_tokens(question))
    for claim in claims:
        words = set(raw_tokens(claim)) - asked
        if any(any(ch.isdigit() for ch in word) for word in words) or words & _QUANTITY_WORDS:
            return True
    return False


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
        return False
    return spelled_like(word, evidence_words(evidence_text))
