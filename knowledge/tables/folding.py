"""How a table's cells and a question's words are compared: folded (no accents, lower case,
punctuation as space), and a cell that lists several items read as its items.
"""

from __future__ import annotations

import functools
import re
import unicodedata

_PUNCTUATION = re.compile(r"[^\w\s.%$€£-]|(?<!\d)\.(?!\d)")
# A comma that groups a number's thousands ("2,000"): dropped, so that the number stays one.
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


@functools.lru_cache(maxsize=1 << 16)
def fold(text: str) -> str:
    """Return text as mentions are compared: no accents, lower case, punctuation as space.
    Memoised: a table's cells are folded each time it is read, a question's words often."""
    text = unicodedata.normalize("NFKD", str(text))
    text = "".join(char for char in text if unicodedata.category(char) != "Mn").lower()
    text = text.replace("–", "-").replace("—", "-").replace("’", "'").replace("'s ", " ")
    text = _THOUSANDS.sub("", text)
    return " ".join(_PUNCTUATION.sub(" ", text).replace("'", "").split())


# What separates the items of a cell that lists several.
_ITEM_SEPARATORS = re.compile(r"\s*(?:[,;/&\n]|\band\b)\s*")


def list_items(text: str) -> frozenset[str]:
    """Return the items of a cell that lists several ("Australian, English, American"), folded;
    none for a cell of one item."""
    items = [fold(item) for item in _ITEM_SEPARATORS.split(text or "")]
    items = [item for item in items if item]
    return frozenset(items) if len(items) > 1 else frozenset()
