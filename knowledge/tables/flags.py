"""The yes/no columns a question says (a flag such as Vegetarian, Paid or Newsletter by post),
and the cells it says after a negation ("not", "other than"): knowledge/tables/question.py reads
them as conditions."""

from __future__ import annotations

import re

from knowledge.tables.cells import NO, YES, says_yes_or_no
from knowledge.tables.programs import Condition, Grid, fold

# Words before a cell the question says that ask for the other rows.
_NEGATED = re.compile(
    r"\b(?:not|never|no longer|besides|except|excluding|without|other than|apart from|aside "
    r"from)\b|n t\b"
)


def negated(padded: str, value: str) -> bool:
    """Whether the question (folded, a space at each end) says a cell's words after "not",
    "besides", "other than" (within three words): it asks for the other rows."""
    at = padded.find(f" {value} ")
    return at >= 0 and bool(_NEGATED.search(" ".join(padded[:at].split()[-3:])))


# A debt said ("still owe", "owing") keeps the rows a Paid or Settled flag says no of; not
# "outstanding" (also "excellent") nor "overdue" (a loan's Returned, an order's Delivered), nor
# "how much did they owe in January" (what was invoiced then).
_SETTLED = frozenset("paid settled".split())
OWED = re.compile(r"\b(?:still (?:owe|owes|owed)|owing)\b")


def flag_conditions(folded: str, grid: Grid, found: dict[tuple[int, str], Condition]) -> None:
    """Add the condition of a yes/no column whose header the question says as a word: "how many
    vegetarian dishes" keeps the rows whose Vegetarian cell says yes; "not vegetarian" (or
    "non-vegetarian", "unpaid" of Paid) keeps those that say no; "on all year round" of
    Year-round, those that say yes; "get the newsletter posted" of Newsletter by post, too."""
    padded = f" {folded} "
    for index, column in enumerate(grid.columns):
        if not says_yes_or_no(column):
            continue
        said = {value for value in column.folded if value}
        yes, no = said & YES, said & NO
        header = fold(column.name)
        un = r"\bun" if len(header) >= 4 else "(?!)"  # "unpaid" of Paid, not "under" of Der
        # A hyphen of the header is said as a hyphen or a space ("Year-round": "all year round").
        written = r"[- ]".join(re.escape(part) for part in header.split("-"))
        said_at = (
            re.search(rf"(?:(\bnon[- ]|{un})|(?<![\w-])){written}\b", padded) if header else None
        )
        owed = OWED.search(padded) if header in _SETTLED else None
        if said_at is None and owed and not negated(padded, owed.group(0)):
            # "How much does Banco Norte still owe us?" keeps the invoices not Paid.
            found.setdefault((index, min(no)), Condition(index, "eq", min(no), header))
        first = said_at.group(0).strip() if said_at else _said_by_its_words(header, padded)
        if not first:
            continue
        # "Not unpaid" is paid: a negation before the word said turns it back.
        denial = negated(padded, first) or (not said_at and _denied_by_words(header, padded, grid))
        denied = bool(said_at and said_at.group(1)) != denial
        value = min(no if denied else yes)
        found.setdefault((index, value), Condition(index, "eq", value, header))


def _said_at(header: str, padded: str) -> list[int]:
    """Return where the question says each word of a header of two words or more, in some form
    and order ("which members get the newsletter posted to them?" of Newsletter by post:
    "newsletter", "posted"), or nothing. A word said before a number is another's: "under 3
    years" says no Under warranty."""
    words = [word for word in header.split() if len(word) > 2 and word not in _LINKS]
    said = padded.split()
    found = [
        next((at for at, q in enumerate(said) if _same_word(word, q)
              and not "".join(said[at + 1 : at + 2])[:1].isdigit()), None)
        for word in words
    ]  # fmt: skip
    return [] if len(words) < 2 or None in found else found


def _said_by_its_words(header: str, padded: str) -> str:
    """Return the question's word that says a header by its words first, or ""."""
    found = _said_at(header, padded)
    return padded.split()[min(found)] if found else ""


def _denied_by_words(header: str, padded: str, grid: Grid) -> bool:
    """Whether a negation comes within four words before a word of a header said by its words,
    with no other header's word between ("don't get their payslip posted", "games that weren't
    at home", "away from home"; not "who haven't renewed get the newsletter posted")."""
    said = padded.split()
    others = {word for column in grid.columns for word in fold(column.name).split()}
    others -= set(header.split())
    for at in _said_at(header, padded):
        near = said[max(0, at - 4) : at]
        denials = [n for n, word in enumerate(near) if word in _DENIALS]
        if denials and not others & set(near[denials[-1] + 1 :]) - _LINKS:
            return True
    return False


# The words that link a header's: "Newsletter by post", "Paid in full"; those that are no
# header's word to say; the words that deny what follows them.
_LINKS = frozenset("the and for per with from into has own can are was did get".split())
_DENIALS = frozenset("t not never away out except without".split())


def _same_word(header_word: str, word: str) -> bool:
    """Whether a question's word is a header's word in another form ("posted" of post), or a
    short one said as it is ("Has car": "car")."""
    if len(header_word) == 3:
        return word in (header_word, header_word + "s")
    short, long = sorted((header_word, word), key=len)
    return len(short) >= 4 and long.startswith(short) and len(long) - len(short) <= 3
