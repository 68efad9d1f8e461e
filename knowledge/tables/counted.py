"""Whether "how many <word>" names a column: then the question counts what the column holds.

"How many rooms do we have in total?" over a Rooms column asks for their total, not for the
number of rows; the table store's ranking (knowledge/tables/rules.py) and the check of a
model's query (knowledge/tables/model_sql.py) both read it here.
"""

from __future__ import annotations

import re

from knowledge.tables.programs import fold
from knowledge.tables.question import header_words

_HOW_MANY = re.compile(r"\bhow many ([a-z][a-z'-]*)", re.IGNORECASE)
# Headers of columns that number or code their rows: "how many trains" is no total of Train No.
_IDENTIFIER_WORDS = frozenset("no number num id code rank round pick zip".split())


def counted_by_header(question: str, header: str) -> str:
    """Return the word when the question's "how many <word>" names the header: its first word,
    and every other word of it (a unit in brackets aside) said in the question ("how many rooms"
    and Rooms, "how many books were lent" and Books lent, not "how many seasons" and Season
    tickets), else "": the question counts what that column holds, not the rows. A header that
    numbers the rows (#, No., Rank) holds no amount."""
    match = _HOW_MANY.search(question)
    words = header_words(re.sub(r"\([^()]*\)", " ", header))
    if not match or not words or set(fold(header).split()) & _IDENTIFIER_WORDS or "#" in header:
        return ""
    said = {_singular(word) for word in fold(question).split()}
    if (
        _singular(fold(match.group(1))) == _singular(words[0])
        and {_singular(word) for word in words[1:]} <= said
    ):
        return match.group(1)
    return ""


def _singular(word: str) -> str:
    """A word without its plural ending ("games" and "game", "classes" and "class")."""
    for ending in ("ies", "ses", "s"):
        if word.endswith(ending) and len(word) > len(ending) + 2:
            return word[: -len(ending)] + (
                "y" if ending == "ies" else "s" if ending == "ses" else ""
            )
    return word
