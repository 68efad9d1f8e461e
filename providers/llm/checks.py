"""The deterministic check every answer passes, whatever wrote it: support and sufficiency.

- **Support.** Each sentence of the answer (a claim) must be supported by a passage it cites:
  most of its words are in one sentence of that passage (the passage's section path and
  column headers count as its words), or it says the same in other words (embedding cosine)
  while sharing most of the passage's words; every number it states must be in the passage.
  A claim with no [n] gets the marker of the passage that supports it; a claim that no
  passage supports is flagged.
- **Sufficiency.** The answer must address the question: the question's words must be found
  in the passages that support the answer, each weighted by how rare it is in the searched
  knowledge bases. A word that no document of those knowledge bases holds, and that is not a
  common English word a document may well say otherwise (wordfreq's Zipf frequency), means
  the documents do not answer the question. An answer that itself says the documents do not
  hold the answer is taken at its word.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from providers.llm.base import SourceBlock
from providers.tokenize import STOP_WORDS, bm25_tokens, raw_tokens

# A claim is supported when this share of its words is in one sentence of its passage ...
SENTENCE_OVERLAP = 0.8
# ... or when this share is in the whole passage and the claim means the same as one of its
# sentences (a model's paraphrase).
PASSAGE_OVERLAP = 0.6
PARAPHRASE_COSINE = 0.6
# Below this share of the question's words (by weight) in the passages an answer rests on,
# the answer is left unverified: they may be about something else.
COVERAGE_MIN = 0.5
# Words at least this common in English (Zipf scale: 4.5 is once per 30,000 words) are often
# said in other words, so they weigh less and their absence proves nothing.
COMMON_ZIPF = 4.5
COMMON_WEIGHT = 0.3
MAX_EVIDENCE_WORDS = 400
MIN_CLAIM_TOKENS = 2

# Words that say what kind of answer is wanted, not what it is about.
QUESTION_WORDS = frozenset(
    {
        "who", "whom", "whose", "what", "when", "where", "which", "why", "how", "many",
        "much", "does", "do", "did", "is", "are", "was", "were", "can", "could", "should",
        "would", "will", "tell", "me", "us", "please", "explain", "describe", "list", "give",
        "show", "name", "know", "find", "say", "said", "says", "according", "documents",
        "document", "docs", "doc", "file", "files", "information", "info", "details",
        "detail", "exactly", "kind", "type", "thing", "things", "way", "ways", "main",
        "current", "currently", "policy", "policies", "process", "procedure", "rule", "rules",
        "guideline", "guidelines", "step", "steps", "item", "items", "happen", "happened",
        "mentioned", "mention", "need", "needs", "get", "got", "use", "used", "team's",
        "company", "company's", "our", "we", "i", "my", "there", "any", "ever", "about",
        "regarding", "concerning", "question", "questions", "someone", "somebody", "anyone",
        "per", "each", "every",
    }
)  # fmt: skip
# Words that name the same thing in a question and in a table or a passage. One group per
# meaning; matched on stems.
SYNONYM_GROUPS: tuple[frozenset[str], ...] = tuple(
    frozenset(bm25_tokens(" ".join(group)))
    for group in (
        ("people", "employees", "staff", "headcount", "head count", "persons", "personnel",
         "workers", "team members", "fte", "size"),
        ("manager", "manages", "managed", "runs", "run", "leads", "lead", "head", "heads",
         "owner", "owns", "responsible", "charge"),
        ("contact", "email", "address", "mail", "reach", "ask", "talk", "write", "handles",
         "handle", "deals"),
        ("cost", "costs", "price", "priced", "fee", "fees", "pay", "paid", "amount", "spend",
         "charge", "much", "budget", "allowance", "limit", "cap"),
        ("opened", "open", "founded", "started", "established", "since", "launched"),
        ("phone", "extension", "ext", "telephone", "call", "dial"),
        ("located", "location", "city", "country", "address", "based", "site"),
        ("date", "day", "deadline", "due", "when"),
        ("end", "ends", "expires", "expiry", "until", "renewal", "renews"),
        ("response", "respond", "reply", "replies", "sla"),
        ("chose", "choose", "chosen", "picked", "selected", "select", "decided", "went"),
        ("moved", "move", "postponed", "pushed", "delayed", "rescheduled", "shifted"),
        ("role", "title", "job", "position"),
    )
)  # fmt: skip

# Appended to an answer whose claims the check could not all verify.
CAVEAT = "Note: some claims in this answer may not be fully supported by the retrieved sources."

CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_CAVEAT = re.compile(r"^\s*note: some claims", re.IGNORECASE)
# An answer that says the documents do not hold the answer.
REFUSAL = re.compile(
    r"\b(?:could not|couldn't|cannot|can't|was unable to|am unable to) find\b|"
    r"\bnot (?:found|mentioned|specified|stated|provided|given|covered|included) in the "
    r"(?:provided |given |retrieved )?(?:documents?|context|sources?|passages?|text)\b|"
    r"\b(?:documents?|context|sources?|passages?|text)\s+(?:do|does|did)\s*(?:n't|not)\s+"
    r"(?:mention|contain|say|specify|state|include|provide|cover|describe|give)\b|"
    r"\bno (?:information|mention|details?) (?:about|on|of|regarding)\b",
    re.IGNORECASE,
)


@dataclass
class Claim:
    """One sentence of an answer, the passages it cites, and the one that supports it."""

    text: str
    cited: list[int]
    supported_by: int | None = None
    problem: str = ""


@dataclass
class AnswerCheck:
    """What the check found: each claim's support, and whether the question is answered."""

    answer: str
    claims: list[Claim] = field(default_factory=list)
    sufficient: bool = True
    coverage: float = 1.0
    # Question words the supporting passages lack; those no searched document holds at all.
    missing: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    # Names the question holds that the supporting passages lack.
    unnamed: list[str] = field(default_factory=list)
    # The answer holds no thing of the kind asked for (no number for "how many").
    unfitting: bool = False
    # Near misses: the question's "sabbatical leave" where the passages say "annual leave".
    contrasts: list[tuple[str, str]] = field(default_factory=list)
    # Each question word: (word, weight, covered), for the record.
    terms: list[tuple[str, float, bool]] = field(default_factory=list)
    refusal: bool = False
    markers_added: int = 0

    @property
    def unsupported(self) -> list[Claim]:
        return [claim for claim in self.claims if claim.problem]

    @property
    def supported_share(self) -> float:
        if not self.claims:
            return 0.0
        return (len(self.claims) - len(self.unsupported)) / len(self.claims)

    @property
    def supporting(self) -> list[int]:
        """Return the passages that support a claim, in the order the answer cites them."""
        return list(dict.fromkeys(c.supported_by for c in self.claims if c.supported_by))

    @property
    def doubtful(self) -> bool:
        """Return whether the answer may miss the question: a word of it no document uses, or
        the passages it rests on hold less than half of the question's words by weight."""
        return self.sufficient and (bool(self.absent) or self.coverage < COVERAGE_MIN)

    @property
    def issues(self) -> list[str]:
        """Return what a reader should know, one line each."""
        issues = [f'{claim.problem}: "{shorten(claim.text)}"' for claim in self.unsupported]
        for asked, found in self.contrasts:
            issues.append(f'The passages speak of "{found}", not "{asked}".')
        if self.absent:
            issues.append(
                "No document mentions " + ", ".join(f'"{word}"' for word in self.absent) + "."
            )
        elif self.unnamed:
            issues.append(
                "The cited passages are not about "
                + ", ".join(f'"{word}"' for word in self.unnamed)
                + "."
            )
        elif self.unfitting:
            issues.append("The answer does not hold what the question asks for.")
        elif self.doubtful and not self.absent:
            issues.append(
                "The cited passages do not mention "
                + ", ".join(f'"{word}"' for word in self.missing)
                + ": they may not answer the question."
            )
        elif not self.sufficient and self.missing and not self.refusal:
            issues.append(
                "The cited passages do not mention "
                + ", ".join(f'"{word}"' for word in self.missing)
                + "."
            )
        return issues


def shorten(text: str, limit: int = 120) -> str:
    """Return text cut to `limit` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def check_answer(
    question: str,
    answer: str,
    blocks: list[SourceBlock],
    *,
    term_stats: dict | None = None,
    assign_markers: bool = True,
) -> AnswerCheck:
    """Check each claim's support and whether the answer addresses the question."""
    by_index = {block.index: block for block in blocks}
    result = AnswerCheck(answer=answer, refusal=bool(REFUSAL.search(answer or "")))
    lines = []
    for line in (answer or "").split("\n"):
        if _CAVEAT.match(line) or not line.strip() or _TABLE_RULE.match(line):
            lines.append(line)
            continue
        pieces = []
        for piece, claim in _line_claims(line):
            if claim is not None:
                _support(claim, by_index)
                if claim.supported_by and not claim.cited and not assign_markers:
                    # A critic that only reads (the extractive one) asks for the marker.
                    claim.problem = "No citation"
                elif claim.supported_by and not claim.cited:
                    piece = _with_marker(piece, claim.supported_by)
                    claim.cited = [claim.supported_by]
                    result.markers_added += 1
                result.claims.append(claim)
            pieces.append(piece)
        lines.append("".join(pieces))
    result.answer = "\n".join(lines)
    _sufficiency(question, result, by_index, term_stats or {})
    return result


def _line_claims(line: str) -> list[tuple[str, Claim | None]]:
    """Return the pieces of a line, each with its claim (None for what is not a claim)."""
    from providers.llm.extractive.sentences import BULLET, split_claims

    body = BULLET.sub("", line) if not line.lstrip().startswith("|") else line
    prefix = line[: len(line) - len(body)]
    pieces: list[tuple[str, Claim | None]] = [(prefix, None)] if prefix else []
    claims = [body.replace("|", " ")] if body.lstrip().startswith("|") else split_claims(body)
    position = 0
    for text in claims:
        # Keep the line's own spacing between claims, so the answer reads as written.
        found = body.find(text.strip(), position) if not body.lstrip().startswith("|") else -1
        start = found if found >= 0 else position
        end = start + len(text.strip()) if found >= 0 else len(body)
        pieces.append((body[position:start], None))
        claim_text = _plain_claim(text)
        tokens = bm25_tokens(claim_text)
        # "The documents do not say" is no claim about the documents' content.
        is_claim = (
            len(tokens) >= MIN_CLAIM_TOKENS
            and not claim_text.endswith(":")
            and not REFUSAL.search(claim_text)
        )
        cited = [int(n) for group in CITATION.findall(text) for n in re.split(r"[,;]", group)]
        piece = body[start:end] if found >= 0 else body[position:]
        pieces.append((piece, Claim(claim_text, cited) if is_claim else None))
        position = end
    if position < len(body):
        pieces.append((body[position:], None))
    return [(piece, claim) for piece, claim in pieces if piece or claim]


def _plain_claim(text: str) -> str:
    claim = re.sub(r"\s+", " ", CITATION.sub(" ", text)).strip()
    claim = re.sub(r"\s+([.,;:!?])", r"\1", claim)
    return re.sub(r"^(?:…|\.\.\.)\s*|\s*(?:…|\.\.\.)$|\*\*|__", "", claim).strip()


def _with_marker(piece: str, index: int) -> str:
    stripped = piece.rstrip()
    return f"{stripped} [{index}]{piece[len(stripped) :]}"


def _support(claim: Claim, blocks: dict[int, SourceBlock]) -> None:
    """Find the passage that supports a claim: a cited one, else (no citation) any."""
    missing = [n for n in claim.cited if n not in blocks]
    if missing:
        claim.problem = f"Cites a source that does not exist [{missing[0]}]"
        return
    candidates = claim.cited or list(blocks)
    for index in candidates:
        if supports(claim.text, blocks[index]):
            claim.supported_by = index
            return
    if claim.cited:
        claim.problem = f"Not supported by [{']['.join(str(n) for n in claim.cited)}]"
    else:
        claim.problem = "No source supports it"


def supports(claim: str, block: SourceBlock) -> bool:
    """Return whether a passage supports a claim (its words, its numbers, or its meaning).

    The passage's section path, caption and column headers frame each of its sentences, so
    "Step 3 of Rolling back: ..." or "42 is the head count for Porto" read against them.
    """
    from providers.llm.extractive.sentences import normalise, split_sentences

    context = block.context_text
    normalised = normalise(claim)
    if normalised and normalised in normalise(context):
        return True
    if any(number not in context for number in _NUMBER.findall(claim)):
        return False
    tokens = set(bm25_tokens(claim))
    if not tokens:
        return False
    frame = set(bm25_tokens(context[: max(len(context) - len(block.text), 0)]))
    sentences = split_sentences(block.text) or [block.text]
    best_overlap = max(_overlap(tokens, set(bm25_tokens(s)) | frame) for s in sentences)
    if best_overlap >= SENTENCE_OVERLAP:
        return True
    if _overlap(tokens, set(bm25_tokens(context))) < PASSAGE_OVERLAP:
        return False
    from providers import embedder

    vectors = embedder.embed_texts([claim, *sentences])
    return float(np.max(vectors[1:] @ vectors[0])) >= PARAPHRASE_COSINE


def _overlap(claim_tokens: set[str], other: set[str]) -> float:
    return len(claim_tokens & other) / len(claim_tokens) if claim_tokens else 0.0


def question_terms(question: str) -> list[tuple[str, str]]:
    """Return the question's content words with their stems: what the answer must address."""
    terms: dict[str, str] = {}
    for word in raw_tokens(question):
        if word in STOP_WORDS or word in QUESTION_WORDS or len(word) < 2:
            continue
        stems = bm25_tokens(word)
        if stems and stems[0] not in terms.values():
            terms[word] = stems[0]
    return list(terms.items())


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
# A question word counts as found when an evidence word means nearly the same...
NEAR_WORD_COSINE = 0.45
# ... or is spelled nearly the same (a typo: "ARPNET" for "ARPANET", "Brazilian").
SHARED_PREFIX = 5


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
    return all(_DEMONYM.search(word) or _is_common_name(word) for word in words)


def _sufficiency(
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
    evidence_words = _words(evidence_text)
    result.absent = [
        word
        for word in result.missing
        if frequencies.get(bm25_tokens(word)[0]) == 0
        and not is_common(word)
        and not _resembles(word, evidence_words)
    ]
    # A name may sit in another passage of the same document (the paragraph goes on there),
    # or in the document's own name ("Harvard_University-3.txt").
    files = {block.file_name for block in evidence}
    document_text = "\n".join(
        [re.sub(r"[_.-]+", " ", name) for name in files]
        + [b.context_text for b in blocks.values() if b.file_name in files]
    )
    result.unnamed = _unnamed(question, document_text)
    result.contrasts = _contrasts(question, result.absent, evidence_text)
    result.unfitting = not _fits_type(question, [claim.text for claim in result.claims])
    # A word no document uses may be the documents' silence or the question's own wording
    # ("surrender" for "gave up"): it leaves the answer unverified, not unanswered.
    result.sufficient = not (result.contrasts or result.unnamed or result.unfitting)


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


def _contrasts(question: str, absent: list[str], evidence_text: str) -> list[tuple[str, str]]:
    """Return (asked, found) pairs where the question's modifier of a noun is a word no
    document uses and the evidence puts another in its place: "sabbatical leave" asked,
    "annual leave" found. That is a near miss, not a paraphrase."""
    missing = set(absent)
    if not missing:
        return []
    asked_words = raw_tokens(question)
    asked_set = set(asked_words)
    evidence_words = raw_tokens(evidence_text)
    evidence_stems = [bm25_tokens(word)[:1] for word in evidence_words]
    found: list[tuple[str, str]] = []
    for modifier, head in zip(asked_words, asked_words[1:]):
        if modifier not in missing or head in STOP_WORDS:
            continue
        head_stem = bm25_tokens(head)[:1]
        for index in range(1, len(evidence_words)):
            other = evidence_words[index - 1]
            if evidence_stems[index] != head_stem or not head_stem:
                continue
            if other in STOP_WORDS or other in asked_set or _NUMBER.fullmatch(other):
                continue
            if not _spelled_like(modifier, [other]):
                found.append((f"{modifier} {head}", f"{other} {evidence_words[index]}"))
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
        named = any(p in words or (len(p) > 2 and _spelled_like(p, spelled)) for p in parts)
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


def _words(text: str, limit: int | None = MAX_EVIDENCE_WORDS) -> list[str]:
    words = [
        w
        for w in dict.fromkeys(raw_tokens(text.replace("%", " percent ")))
        if w not in STOP_WORDS and len(w) > 2 and not _NUMBER.fullmatch(w)
    ]
    return words[:limit] if limit else words


def _spelled_like(word: str, words) -> bool:
    """Return whether a word shares its first five letters with one of the words, or differs
    from it by one edit or swap (two for long words): "Brazil" and "Brazilian", a typo."""
    for other in words:
        prefix = min(len(word), len(other), SHARED_PREFIX)
        if prefix >= SHARED_PREFIX and word[:prefix] == other[:prefix]:
            return True
        allowed = 1 if len(word) < 8 else 2
        if len(word) >= 5 and abs(len(other) - len(word)) <= allowed and other[:1] == word[:1]:
            if _edit_distance(word, other, allowed) <= allowed:
                return True
    return False


def _edit_distance(a: str, b: str, limit: int) -> int:
    """Return the optimal string alignment distance of two words (swaps count once)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def _resembles(word: str, words: list[str]) -> bool:
    """Return whether an evidence word means or is spelled nearly the same as the word."""
    if not words:
        return False
    return _spelled_like(word, words) or _near_in_meaning(word, words, NEAR_WORD_COSINE)


_HOW_MANY = re.compile(r"\bhow (?:many|much)\b", re.IGNORECASE)
_QUANTITY_WORDS = frozenset(
    {
        "none", "no", "zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
        "nine", "ten", "eleven", "twelve", "dozen", "dozens", "hundred", "hundreds",
        "thousand", "thousands", "million", "millions", "billion", "half", "single", "double",
        "twice", "once", "several", "few", "all", "both", "every", "free", "unlimited",
    }
)  # fmt: skip


def _fits_type(question: str, claims: list[str]) -> bool:
    """Return whether an answer to "how many" or "how much" holds a quantity.

    Only a quantity is told reliably: an answer to "when" or "who" may rightly be "after the
    war" or "the owner".
    """
    if not _HOW_MANY.search(question) or not claims:
        return True
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
    if _NUMBER.fullmatch(word):
        return False
    return _spelled_like(word, _words(evidence_text))


def _near_in_meaning(word: str, words: list[str], cosine: float) -> bool:
    if not words:
        return False
    vectors = _word_vectors([word, *words])
    return bool(np.max(vectors[1:] @ vectors[0]) >= cosine)


_word_cache: dict[str, np.ndarray] = {}
MAX_CACHED_WORDS = 50_000


def _word_vectors(words: list[str]) -> np.ndarray:
    """Return the embeddings of single words, computing the new ones in one batch."""
    from providers import embedder

    # A local copy: another run's thread may clear the shared cache meanwhile.
    known = {word: _word_cache.get(word) for word in dict.fromkeys(words)}
    new = [word for word, vector in known.items() if vector is None]
    if new:
        if len(_word_cache) + len(new) > MAX_CACHED_WORDS:
            _word_cache.clear()
        for word, vector in zip(new, embedder.embed_texts(new)):
            known[word] = _word_cache[word] = vector
    return np.stack([known[word] for word in words])


# A capitalised word this common ("Earth", "Prime", "States") is as often a plain word.
COMMON_NAME_ZIPF = 4.5


@lru_cache(maxsize=20_000)
def _is_common_name(word: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= COMMON_NAME_ZIPF


@lru_cache(maxsize=20_000)
def is_common(word: str) -> bool:
    """Return whether a word is common in English (said in other words as often as not)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= COMMON_ZIPF


_TOPIC = re.compile(
    r"^(?:and\s+)?(?:what|which|who|where)(?:'s|\s+(?:is|are|was|were))\s+"
    r"(?P<topic>(?:the|our|a|an|your|my)\s+[^?]+?)\s*\??$",
    re.IGNORECASE,
)


def not_found_answer(question: str, closest: list[tuple[str, list[str]]]) -> str:
    """Return the plain "not found" answer, naming what was asked and the closest passages.

    `closest` holds (file name, section path) of each passage, in [n] order.
    """
    match = _TOPIC.match(" ".join((question or "").split()))
    topic = match.group("topic") if match else f"an answer to “{' '.join(question.split())}”"
    if topic[:1].isupper() and topic.split()[0].lower() in ("the", "our", "a", "an", "your", "my"):
        topic = topic[0].lower() + topic[1:]
    text = f"I could not find {topic} in the selected knowledge bases."
    if not closest:
        return text
    lines = [
        f"- [{index}] " + " › ".join([file_name, *section])
        for index, (file_name, section) in enumerate(closest, start=1)
    ]
    return text + "\n\nThe closest passages, which do not answer it:\n" + "\n".join(lines)
