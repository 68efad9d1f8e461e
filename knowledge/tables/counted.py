"""Whether "how many <word>" names a column: then the question counts what the column holds.

"How many rooms do we have in total?" over a Rooms column asks for their total, not for the
number of rows; the table store's ranking (knowledge/tables/rules.py) and the check of a
model's query (knowledge/tables/model_sql.py) both read it here. A count of rows follows "how
many <amount>" only when the amount names no numeric column (`reads_the_counted_amount`).
"""

from __future__ import annotations

import re

from knowledge.tables.asked import AMOUNT_FILLERS, IDENTIFIER_HEADER, holds_times
from knowledge.tables.parser import Candidate
from knowledge.tables.programs import Grid, fold
from knowledge.tables.question import header_words, stem

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


def _last_noun(name: str) -> str:
    """Return the stem of a header's last word that is no number, before "per": what it
    measures ("Number of electorates (2009)" measures electorates, "Season tickets" tickets,
    "Hours per month" hours)."""
    words = [w for w in fold(name).split(" per ")[0].split() if not w.isdigit()]
    return stem(words[-1]) if words else ""


def reads_the_counted_amount(words: list[str], grid: Grid, candidate: Candidate) -> bool:
    """Whether a program answering "how many <amount> ..." reads the column that amount names,
    when it names one numeric column (not one of years): "how many deaths were there in 2012?"
    is the Deaths cell of 2012's row, "how many electorates are in Chhatarpur district?" its
    Number of electorates; a count of rows answers "how many years", not "how many deaths"."""
    program = candidate.program
    after = amount_asked(words)
    if program.op not in ("count", "distinct") or not after or after in AMOUNT_FILLERS:
        return True
    at = words.index(after, words.index("how"))
    named = [
        number for number, column in enumerate(grid.columns)
        if column.numeric and not holds_times(column) and not IDENTIFIER_HEADER.search(column.name)
        and _names_the_amount(words[at : at + 3], column.name)
    ]  # fmt: skip
    return len(named) != 1 or any(c.column == named[0] for c in program.conditions)


def amount_asked(words: list[str]) -> str:
    """Return the word after the question's first "how many" or "how much" ("" without one)."""
    for index, word in enumerate(words[:-1]):
        if word in ("many", "much") and index and words[index - 1] == "how":
            return words[index + 1]
    return ""


def _names_the_amount(phrase: list[str], header: str) -> bool:
    """Whether the words after "how many" name what a header measures: their first ends with its
    last noun ("how many deaths" and Deaths), or their first few are its words, the last of
    them its last noun ("how many pallet spaces" and Pallet spaces; not "how many insurance
    claims" and Claimed)."""
    words = {stem(word) for word in fold(header).split()}
    return any(
        stem(phrase[end - 1]) == _last_noun(header)
        and (end == 1 or {stem(word) for word in phrase[:end]} <= words)
        for end in range(1, len(phrase) + 1)
    )
