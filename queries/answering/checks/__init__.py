"""The deterministic check every answer passes, whatever wrote it: support, then the rules.

- **Support** (`claims.py`). Each sentence of the answer (a claim) must be supported by a
  passage it cites: most of its words are in one sentence of that passage (the passage's
  section path and column headers count as its words), or it says the same in other words
  (embedding cosine) while sharing most of the passage's words; every number it states must be
  in the passage. A claim with no [n] gets the marker of the passage that supports it; a claim
  that no passage supports is flagged.
- **The rules** (`rules.py`, one class each in one list): whether the answer addresses the
  question. Each finds the documents silent (`not_found`) or the answer doubtful (shown
  unverified): a step past the end of a list, a name or version the passages never mention,
  a near miss ("sabbatical leave" asked, "annual leave" found), the thing asked for in no
  form in the passages, no value of the type asked for ("who" a person, "when" a date, ...)
  from a passage about the question, a word no document uses, passages that hold under half
  of the question's words.

`subject.py` holds what a question is about and how much of it a passage holds, `lists.py`
the items of a list passage, `reading.py` what the rules read, `result.py` the check's result;
which words matter and which mean the same is `queries/answering/vocabulary.py`.
"""

from __future__ import annotations

import re

from knowledge.chunk_kinds import SECTION_SEPARATOR
from queries.answering.checks.claims import (
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
from queries.answering.checks.reading import Reading
from queries.answering.checks.result import AnswerCheck, Finding
from queries.answering.checks.rules import RULES
from queries.answering.frame import QuestionFrame, frame_question
from queries.answering.names import VERSION, question_names
from queries.answering.types import SourceBlock
from queries.answering.vocabulary import SYNONYM_GROUPS, is_common, question_terms

__all__ = [
    "CAVEAT",
    "CAVEAT_LINE",
    "CITATION",
    "REFUSAL",
    "SYNONYM_GROUPS",
    "VERSION",
    "AnswerCheck",
    "Claim",
    "Finding",
    "check_answer",
    "is_common",
    "not_found_answer",
    "question_names",
    "question_terms",
    "supports",
]


def check_answer(
    question: QuestionFrame | str,
    answer: str,
    blocks: list[SourceBlock],
    *,
    term_stats: dict | None = None,
    assign_markers: bool = True,
) -> AnswerCheck:
    """Check each claim's support, then pass the answer through every rule."""
    frame = question if isinstance(question, QuestionFrame) else frame_question(question)
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
    reading = Reading(frame=frame, result=result, blocks=by_index, term_stats=term_stats or {})
    for rule in RULES:
        rule.apply(reading)
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
