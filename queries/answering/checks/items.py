"""A "which <things>" question answered by a sentence that names none of the things.

"Which depots missed their staffing target?" asked of a page whose table lists depots, and
answered with the page's title and first sentence ("Depot staffing against target, May 2026.
Staffing per depot against its target."): the sentence restates the question and the passages
are about it, so no other rule minds; but the table the passages hold lists every depot there
is, and the answer names none. It is left unverified.
"""

from __future__ import annotations

import re

from knowledge.chunk_kinds import KIND_ROW, KIND_TABLE
from providers.tokenize import bm25_tokens
from queries.answering.checks.reading import Reading
from queries.answering.checks.result import DOUBT, Rule
from queries.answering.checks.subject import GENERIC_THINGS

_WHICH = re.compile(r"^\s*(?:which|what)\b", re.IGNORECASE)
_VALUES = frozenset({"number", "amount", "duration", "date"})


class ItemsAsked(Rule):
    """A "which <things>" answer that names none of the cells the passages' tables list under
    a header naming the things (a "Depot" column for "which depots")."""

    name = "items_asked"

    def apply(self, reading: Reading) -> None:
        result, frame = reading.result, reading.frame
        if result.refusal or not result.claims or not frame.asked:
            return
        if frame.answer_type in _VALUES:
            return  # an amount or a date is a cell of another column (AnswerValue's)
        if frame.asked in GENERIC_THINGS or not _WHICH.match(frame.text):
            return
        listed = listed_items(frame.asked, reading.blocks.values())
        if not listed:
            return  # no table among the passages lists the things: nothing to hold it to
        said = f" {' '.join(bm25_tokens(result.claims[0].text))} "
        if any(f" {item} " in said for item in listed):
            return
        self.find(
            reading,
            DOUBT,
            f"The answer names none of the {frame.asked} the tables list.",
            exclusive=True,
        )


def listed_items(asked: str, blocks) -> set[str]:
    """Return the cells (as BM25 tokens, joined) of the passages' table columns whose header
    shares a word with the thing asked."""
    wanted = set(bm25_tokens(asked))
    items: set[str] = set()
    for block in blocks:
        structure = block.structure or {}
        if block.kind not in (KIND_ROW, KIND_TABLE) or not structure.get("headers"):
            continue
        rows = [structure["cells"]] if structure.get("cells") else structure.get("rows") or []
        for index, header in enumerate(structure["headers"]):
            if not wanted & set(bm25_tokens(str(header))):
                continue
            for row in rows:
                tokens = bm25_tokens(str(row[index])) if index < len(row) else []
                if tokens:
                    items.add(" ".join(tokens))
    return items
