"""Numbered lists: which item a question asks for, and the items a list passage holds.

"Step 3", "the 3rd item", "the third step", "the last step": the structure-aware answer reads
that item, and the check holds any provider's answer to it, so "step 3" is never answered
with step 4 and step 9 of an eight-step list is not found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from providers.llm.base import KIND_LIST, SourceBlock
from providers.tokenize import bm25_tokens

if TYPE_CHECKING:
    from providers.llm.checks import AnswerCheck

ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
}  # fmt: skip
_UNITS = r"(?:step|item|point|stage|phase|task|thing|action|bullet|entry)"
ORDINAL = re.compile(
    rf"\b{_UNITS}\s*(?:#|no\.?|number)?\s*(?P<number>\d{{1,3}})\b|"
    rf"\b(?P<nth>\d{{1,3}})(?:st|nd|rd|th)\s+{_UNITS}\b|"
    rf"\b(?P<word>{'|'.join(ORDINAL_WORDS)}|last|final)\s+{_UNITS}\b",
    re.IGNORECASE,
)
_LIST_ITEM = re.compile(r"^(?P<number>\d{1,3})\.\s+(?P<text>.+)$|^-\s+(?P<bullet>.+)$")


@dataclass(frozen=True)
class AskedItem:
    """The item a question asks for: its number, or the list's last one."""

    number: int
    last: bool
    # Where the ordinal phrase sits in the question, to read the rest as its topic.
    start: int
    end: int

    def wanted(self, structure: dict | None) -> int:
        """Return the item's number in a list of this structure (the last one's, if asked)."""
        return int((structure or {}).get("last") or 0) if self.last else self.number


def asked_item(question: str) -> AskedItem | None:
    """Return the list item a question asks for ("step 3", "the last step"), or None."""
    match = ORDINAL.search(question or "")
    if not match:
        return None
    word = (match.group("word") or "").lower()
    number = int(match.group("number") or match.group("nth") or ORDINAL_WORDS.get(word, 0))
    return AskedItem(number, word in ("last", "final"), match.start(), match.end())


def list_items(text: str, structure: dict | None = None) -> dict[int, str]:
    """Return a list passage's top-level items by number.

    Bullets are numbered by position only when the passage holds the whole list (its
    structure says how many items the list has): the second chunk of a split list starts
    somewhere in the middle.
    """
    items: dict[int, str] = {}
    bullets: dict[int, str] = {}
    position = 0
    for line in text.split("\n"):
        if line[:1] in (" ", "\t"):
            continue
        match = _LIST_ITEM.match(line.strip())
        if not match:
            continue
        position += 1
        if match.group("number"):
            items.setdefault(int(match.group("number")), match.group("text").strip())
        else:
            bullets[position] = match.group("bullet").strip()
    whole = structure is None or int(structure.get("items") or 0) == position
    if bullets and whole:
        for number, text in bullets.items():
            items.setdefault(number, text)
    return items


def check_asked_item(question: str, result: AnswerCheck, blocks: dict[int, SourceBlock]) -> None:
    """Hold an answer to "step N" to item N of the list it cites.

    A claim that repeats another item of that list better than item N gets a problem; a list
    known to end before N makes the answer not found.
    """
    asked = asked_item(question)
    if asked is None:
        return
    for claim in result.claims:
        block = blocks.get(claim.supported_by or (claim.cited[0] if claim.cited else 0))
        if block is None or block.kind != KIND_LIST:
            continue
        structure = block.structure or {}
        items = list_items(block.text, structure)
        wanted = asked.wanted(structure)
        total = int(structure.get("last") or 0)
        if wanted not in items:
            if structure.get("numbered") and 0 < total < wanted:
                result.no_such_item = f"The list has {total} items: there is no item {wanted}."
            continue
        tokens = set(bm25_tokens(claim.text))
        overlaps = {
            number: len(tokens & set(bm25_tokens(text))) / max(len(set(bm25_tokens(text))), 1)
            for number, text in items.items()
        }
        said = max(overlaps, key=lambda number: overlaps[number])
        if said != wanted and overlaps[said] > overlaps[wanted]:
            claim.problem = f"Gives item {said} of the list, not item {wanted}"
