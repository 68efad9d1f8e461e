"""Answers read from a numbered list: "step 3 of rolling back a deploy", "the second item",
"the last step", "the step after Y".

The list under the heading that best matches the rest of the question is read at that number
(queries/answering/extractive/structured.py asks it first, then the tables).
"""

from __future__ import annotations

from knowledge.chunk_kinds import KIND_LIST
from providers.tokenize import bm25_tokens, raw_tokens
from queries.answering.checks.lists import list_items
from queries.answering.frame import QuestionFrame
from queries.answering.types import SourceBlock, StructuredAnswer

# The words that ask ("what is the ... of"), as stems: no topic of a list.
_QUESTION_STEMS = frozenset(bm25_tokens("what which who how is are was were the step item of"))


def ordinal_answer(frame: QuestionFrame, blocks: list[SourceBlock]) -> StructuredAnswer | None:
    """Answer "step N of X" with item N of the numbered list whose heading best matches X,
    and "the step after Y" with the item after the one Y repeats.

    When that list is known to end before N, the answer is an empty StructuredAnswer: the
    documents hold no such step.
    """
    asked = frame.constraint("item")
    if asked is None:
        relative = frame.constraint("relative")
        return next_item_answer(frame, relative, blocks) if relative else None
    query = frame.text
    topic = (query[: asked["start"]] + " " + query[asked["end"] :]).strip()
    # Every word of the topic, "first" of "your first day" included.
    topic_stems = set(bm25_tokens(topic)) - _QUESTION_STEMS
    ranked = []
    for rank, block in enumerate(blocks):
        if block.kind != KIND_LIST:
            continue
        heading_stems = set(bm25_tokens(block.section[-1])) if block.section else set()
        section_stems = set(bm25_tokens(" ".join(block.section)))
        text_stems = set(bm25_tokens(block.text))
        score = 2.0 * len(topic_stems & section_stems) + 0.5 * len(topic_stems & text_stems)
        if heading_stems and heading_stems <= topic_stems:
            # "the first step of your first day": the list under "Your first day", not the one
            # under "Before your first day", which holds the same words and one more.
            score += 1.0
        ranked.append((score - 0.01 * rank, block))
    ranked.sort(key=lambda pair: -pair[0])
    if not ranked or (topic_stems and ranked[0][0] <= 0):
        return None
    best_score = ranked[0][0]
    for score, block in ranked:
        if score < best_score - 1.0:
            break
        wanted = _wanted(asked, block.structure)
        item = list_items(block.text, block.structure or {}).get(wanted)
        if item:
            return _step(block, wanted, item)
    structure = ranked[0][1].structure or {}
    if structure.get("numbered") and asked["number"] > int(structure.get("last") or 0) > 0:
        return StructuredAnswer("", [], confidence=0.0)
    return None


def _step(block: SourceBlock, wanted: int, item: str) -> StructuredAnswer:
    """Return a list's item as the answer: "Step 3 of “Onboarding”: Book the safety course. [2]"."""
    heading = block.section[-1] if block.section else "the list"
    item = item if item.rstrip().endswith((".", "!", "?")) else item.rstrip() + "."
    return StructuredAnswer(
        f"Step {wanted} of “{heading}”: {item} [{block.index}]", [block.index], [item]
    )


def _wanted(asked: dict, structure: dict | None) -> int:
    """Return the item's number in a list of this structure (the last one's, if asked)."""
    if asked.get("last"):
        return int((structure or {}).get("last") or 0)
    return int(asked.get("number") or 0)


# An item repeats the anchor when it holds this share of the anchor's words.
ANCHOR_OVERLAP = 0.6


def next_item_answer(
    frame: QuestionFrame, relative: dict, blocks: list[SourceBlock]
) -> StructuredAnswer | None:
    """Answer "what comes after Y" with the list item after the one that repeats Y (before it,
    for "what comes before Y"), from the same list, in this passage or the next of it."""
    anchor = set(bm25_tokens(relative["anchor"]))
    if not anchor:
        return None
    step = 1 if relative["side"] == "after" else -1
    lists = [block for block in blocks if block.kind == KIND_LIST]
    opening = " ".join(raw_tokens(relative["anchor"]))
    for block in lists:
        items = list_items(block.text, block.structure or {})
        # An item the anchor opens ("In Helmsman, open ...") beats one that only holds its
        # words ("Check the calendar in Helmsman").
        overlaps = {
            number: len(anchor & set(bm25_tokens(text))) / len(anchor)
            + (0.5 if " ".join(raw_tokens(text)).startswith(opening) else 0.0)
            for number, text in items.items()
        }
        if not overlaps:
            continue
        found = max(overlaps, key=lambda number: overlaps[number])
        if overlaps[found] < ANCHOR_OVERLAP:
            continue
        wanted = found + step
        for other in [block, *(b for b in lists if b.section == block.section and b is not block)]:
            item = list_items(other.text, other.structure or {}).get(wanted)
            if item:
                return _step(other, wanted, item)
    return None
