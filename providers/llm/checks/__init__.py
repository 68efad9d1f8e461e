"""The deterministic check every answer passes, whatever wrote it: support and sufficiency.

- **Support.** Each sentence of the answer (a claim) must be supported by a passage it cites:
  most of its words are in one sentence of that passage (the passage's section path and
  column headers count as its words), or it says the same in other words (embedding cosine)
  while sharing most of the passage's words; every number it states must be in the passage.
  A claim with no [n] gets the marker of the passage that supports it; a claim that no
  passage supports is flagged.
- **Sufficiency.** The answer must address the question (`sufficiency`): a name or version
  the question asks about must be in the documents the answer rests on, a modifier no
  document uses must not stand where the passages put another ("sabbatical leave" asked,
  "annual leave" found), the thing asked for ("salary range") must be what the passages speak
  of, a "how many" answer must hold a quantity (a "how much does it cost" one an amount of
  money, a "how long does it take to X" one the time X takes), and an answer that says the
  documents do not say is taken at its word. Weaker signs (a word no document uses that reads
  as a paraphrase, passages holding under half of the question's words by rarity) leave the
  answer unverified rather than unanswered.

One module per concern: `claims` (sentences and their support), `sufficiency` (whether the
question is answered), `lists` (which list item a question asks for), `words` (which words
matter and which mean the same).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from providers.llm.base import SECTION_SEPARATOR, SourceBlock
from providers.llm.checks.claims import (
    CAVEAT,
    CAVEAT_LINE,
    CITATION,
    REFUSAL,
    TABLE_RULE,
    Claim,
    find_support,
    line_claims,
    supports,
    with_marker,
)
from providers.llm.checks.lists import check_asked_item
from providers.llm.checks.sufficiency import VERSION, judge_sufficiency, question_names
from providers.llm.checks.words import SYNONYM_GROUPS, is_common, question_terms

__all__ = [
    "CAVEAT",
    "CITATION",
    "REFUSAL",
    "SYNONYM_GROUPS",
    "VERSION",
    "AnswerCheck",
    "Claim",
    "check_answer",
    "is_common",
    "not_found_answer",
    "question_names",
    "question_terms",
    "supports",
]


# Below this share of the question's words (by weight) in the passages an answer rests on,
# the answer is left unverified: they may be about something else.
COVERAGE_MIN = 0.5


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
    # The words of the thing asked for ("salary range") that the evidence never mentions.
    unasked: list[str] = field(default_factory=list)
    # Near misses: the question's "sabbatical leave" where the passages say "annual leave".
    contrasts: list[tuple[str, str]] = field(default_factory=list)
    # Each question word: (word, weight, covered), for the record.
    terms: list[tuple[str, float, bool]] = field(default_factory=list)
    refusal: bool = False
    markers_added: int = 0
    # "The list has 8 items: there is no item 9." when the question asks for one past the end.
    no_such_item: str = ""

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
        if self.no_such_item:
            issues.append(self.no_such_item)
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
        elif self.unasked:
            issues.append(
                "The cited passages do not speak of "
                + " ".join(f'"{word}"' for word in self.unasked)
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
        if CAVEAT_LINE.match(line) or not line.strip() or TABLE_RULE.match(line):
            lines.append(line)
            continue
        pieces = []
        for piece, claim in line_claims(line):
            if claim is not None:
                find_support(claim, by_index)
                if claim.supported_by and not claim.cited and not assign_markers:
                    # A critic that only reads (the extractive one) asks for the marker.
                    claim.problem = "No citation"
                elif claim.supported_by and not claim.cited:
                    piece = with_marker(piece, claim.supported_by)
                    claim.cited = [claim.supported_by]
                    result.markers_added += 1
                result.claims.append(claim)
            pieces.append(piece)
        lines.append("".join(pieces))
    result.answer = "\n".join(lines)
    check_asked_item(question, result, by_index)
    judge_sufficiency(question, result, by_index, term_stats or {})
    if result.no_such_item:
        result.sufficient = False
    return result


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
        f"- [{index}] " + SECTION_SEPARATOR.join([file_name, *section])
        for index, (file_name, section) in enumerate(closest, start=1)
    ]
    return text + "\n\nThe closest passages, which do not answer it:\n" + "\n".join(lines)
