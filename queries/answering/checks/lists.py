"""The items of a list passage, by number: what "step 3" or "the last step" reads."""

from __future__ import annotations

import re

_LIST_ITEM = re.compile(r"^(?P<number>\d{1,3})\.\s+(?P<text>.+)$|^-\s+(?P<bullet>.+)$")


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
