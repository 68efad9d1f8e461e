"""What a question says in words that a table writes otherwise: numbers in words, the
comparison said with a number ("more than 50", "70 or more"), a quarter or a half of a year
("the second quarter" is the column Q2) and an amount of time compared against ("within two
days" is at most 172,800 seconds of a column of durations), and what is not done yet ("still
open" is an empty Fixed date)."""

from __future__ import annotations

import re

from knowledge.tables.cells import MONTHS, TEXT, says_yes_or_no, unit_seconds
from knowledge.tables.programs import Condition, Grid, fold, holds_a_value

# A comparison said before a number: the condition's operator.
COMPARE_CUES = [
    (re.compile(r"\b(?:more|greater|higher|larger|bigger|longer|over|above|exceed\w*|surpass\w*|beyond|past)\s+(?:than\s+)?(?:the\s+)?$"), "gt"),
    (re.compile(r"\b(?:after|since|later\s+than)\s+$"), "gt"),
    (re.compile(r"\b(?:less|fewer|lower|smaller|shorter|under|below)\s+(?:than\s+)?$"), "lt"),
    (re.compile(r"\b(?:before|prior\s+to|earlier\s+than)\s+$"), "lt"),
    (re.compile(r"\b(?:at\s+least|at\s+lease|minimum\s+of|no\s+less\s+than)\s+$"), "ge"),
    # "in the top 10", "the top three": placed 10th or better.
    (re.compile(r"\btop\s+$"), "le"),
    # "between 100 and 200": at least the first, at most the second.
    (re.compile(r"\bbetween\s+$"), "ge"),
    (re.compile(r"\bbetween\s+-?\d[\d,.]*\s+and\s+$"), "le"),
    (re.compile(r"\b(?:at\s+most|no\s+more\s+than|up\s+to|maximum\s+of)\s+$"), "le"),
    # Any other comparative said before "than": "taller than 2500", "heavier than 90".
    (re.compile(r"\b(?:lighter|slower|younger|cheaper|narrower|shallower|thinner|weaker)\s+than\s+$"), "lt"),
    (re.compile(r"\b\w{3,}er\s+than\s+$"), "gt"),
]  # fmt: skip
# What a whole table's amount is said to come to: "come to", "all told", "so far", and a
# whole period ("over the 2025-26 year", "across the whole season", "throughout the year").
WHOLE = re.compile(
    r"\b(?:come|comes|came) to\b|\ball told\b|\baltogether\b|\bin all\b|\bso far\b|\bto date\b"
    r"|\b(?:over|across|during|throughout) (?:the |our )?(?:whole |full |entire )?"
    r"(?:(?:19|20)\d\d ?[-/]|year\b|season\b|financial year\b|twelve months\b)"
)
CURRENCY_BEFORE = re.compile(r"\s*[$€£]\s*$")
# A comparison said after a number ("70 or more").
COMPARE_AFTER = [
    (
        re.compile(
            r"^\s*(?:\w+\s+)?(?:or|and)\s+(?:more|greater|higher|above|over|up|later|after)\b"
        ),
        "ge",
    ),
    (
        re.compile(
            r"^\s*(?:\w+\s+)?(?:or|and)\s+(?:less|fewer|lower|below|under|earlier|before)\b"
        ),
        "le",
    ),
    (re.compile(r"^\s*\+"), "ge"),
]
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
}  # fmt: skip
# A quarter or a half of a year said in words names its column: "the second quarter" is Q2.
_ORDINALS = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
}
_PERIOD_IN_WORDS = re.compile(r"\b(first|1st|second|2nd|third|3rd|fourth|4th) (quarter|half)\b")


def said_periods(folded: str) -> dict[str, str]:
    """Return the headers of the quarters and halves a question says in words, with the words
    ({"q2": "second quarter"})."""
    periods = {}
    for match in _PERIOD_IN_WORDS.finditer(folded):
        number = _ORDINALS[match.group(1)]
        if match.group(2) == "quarter" or number <= 2:
            periods[f"{match.group(2)[0]}{number}"] = match.group(0)
    return periods


# The months of each quarter and half, by their stems ("q1": Jan to Mar).
_PERIOD_MONTHS = {
    **{f"q{n}": MONTHS[3 * n - 3 : 3 * n] for n in range(1, 5)},
    "h1": MONTHS[:6],
    "h2": MONTHS[6:],
}
_PERIOD_SAID = re.compile(r"\b(q[1-4]|h[12])\b")


def said_months(folded: str) -> list[str]:
    """Return the stems of the months of the one quarter or half a question says, in words or
    as a header would ("the first quarter", "Q1": jan, feb, mar); none for any other question."""
    said = {*said_periods(folded), *_PERIOD_SAID.findall(folded)}
    return _PERIOD_MONTHS[said.pop()] if len(said) == 1 else []


# An amount of time said with a comparison: "within two days", "in under a week", "more than
# 3 hours". "Within" is a comparison only of a time (or a distance nobody tables here).
_AMOUNT_OF_TIME = re.compile(
    r"\b(\d+(?:\.\d+)?|an?|" + "|".join(NUMBER_WORDS) + r") "
    r"(seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b"
)
_WITHIN = re.compile(r"\bwithin\s+(?:the\s+)?$")


def said_durations(folded: str) -> list[tuple[float, str, str]]:
    """Return the amounts of time a question compares against, in seconds, with the comparison
    ("le" for "within two days") and the words that say them."""
    durations = []
    for match in _AMOUNT_OF_TIME.finditer(folded):
        count = match.group(1)
        number = 1.0 if count in ("a", "an") else float(NUMBER_WORDS.get(count, 0) or count)
        before = folded[: match.start()][-30:]
        op = "le" if _WITHIN.search(before) else ""
        op = op or next((op for cue, op in COMPARE_CUES if cue.search(before)), "")
        if op:
            durations.append((number * unit_seconds(match.group(2)), op, match.group(0)))
    return durations


# A cell said with its column's name as one word: "high-priority" (Priority is High),
# "low-risk" (Risk is Low).
_COMPOUND = re.compile(r"\b([a-z0-9]+)-([a-z]+)\b")


def said_compounds(folded: str) -> list[tuple[str, str, str]]:
    """Return the (cell, header word, words) of each compound the question says of a cell and
    its column's name: "which high-priority repairs ..." says ("high", "priority",
    "high-priority")."""
    return [(m.group(1), m.group(2), m.group(0)) for m in _COMPOUND.finditer(folded)]


# Words a question says for the rows whose cell says the other: "open" on a day is any cell but
# "Closed".
_ANTONYMS = {"open": "closed", "available": "unavailable", "active": "inactive"}


def antonym_conditions(
    words: list[str], grid: Grid, found: dict, stopwords: frozenset[str]
) -> None:
    """Add the condition of a column the question names (by a word that is no stopword) whose
    cells say the opposite of a word it says: "which branches are open on Sundays?" keeps the
    rows whose Sunday is not Closed."""
    said = (set(words) | {word[:-1] for word in words if word.endswith("s")}) - stopwords
    for word in words:
        opposite = _ANTONYMS.get(word)
        for index, column in enumerate(grid.columns if opposite else ()):
            if opposite in column.folded and said & set(fold(column.name).split()):
                found.setdefault((index, f"!{opposite}"), Condition(index, "ne", opposite, word))


# Plurals that are words of their own: "the most times" is no Time, "sales" no Sale price.
_NO_PLURAL = frozenset("times sales others states terms makes goods means lines scores".split())


def plural(word: str) -> str:
    """Return a header word's plural, as a question says it: "sites" of Site (whose stem "sit"
    is not Site's), "batteries" of Battery; not of an abbreviation ("hrs" is no plural of HR).
    The word itself, not its stem: "named" stems as "names" does, and is no Name."""
    if len(word) < 4 or word + "s" in _NO_PLURAL:
        return word
    if word.endswith("y") and word[-2:-1] not in ("", *"aeiou"):
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


def says_a_superlative(words) -> bool:
    """Whether a word is a superlative no list names ("tallest", "cheapest", "busiest")."""
    return any(word.endswith("est") and len(word) > 5 for word in words)


# The words that deny what follows them ("haven't" folds to "haven t").
NEGATIONS = frozenset("not never yet t".split())
# Words that say a thing is not done yet: each with the header word of its being done ("unpaid"
# of Paid), or of the one column of it ("open", "outstanding").
_UNDONE = {
    "unpaid": "paid", "unresolved": "resolved", "unfixed": "fixed", "unfinished": "finished",
    "incomplete": "completed", "open": "", "outstanding": "",
    # A thing awaiting its answer: "which applications are we still waiting to hear back on?"
    # (empty Decision and Awarded cells), "pending", "undecided".
    "pending": "", "awaiting": "", "undecided": "decision", "waiting": "",
}  # fmt: skip
_DONE = frozenset("fixed resolved closed completed done finished repaired paid settled".split())
# Words of a thing awaiting its answer, and the headers of its answer (what "open" and
# "outstanding" never ask of: a Decision after Closed is no thing still open).
_AWAITING = frozenset("pending awaiting undecided waiting".split())
_DECIDED = frozenset("decision decided outcome awarded approved replied answered".split())


def still_open(words: list[str], grid: Grid) -> int | None:
    """Return the column of a thing's being done (Fixed, Resolved in, Paid) whose empty cells
    the question asks for, saying it is not done: "which jobs are still open?" (the last such
    column, Closed after Fixed), "unpaid" of Paid. None after a negation ("not outstanding"),
    for a word a cell says ("Open" is a status), or when no column fits."""
    cells = {value for column in grid.columns for value in column.folded}
    said = [
        word for at, word in enumerate(words)
        if word in _UNDONE and word not in cells and not NEGATIONS & set(words[max(0, at - 3) : at])
        and (word != "waiting" or words[at - 1 : at] == ["still"])  # no waiting time or list
    ]  # fmt: skip
    # Awaiting an answer: a column of the answer too, not a Yes/No flag (empty says No) nor
    # one of names ("Decision maker"); the column the question names after it first
    # ("pending delivery": Delivered).
    awaiting = bool(_AWAITING & set(said))
    kinds = _DONE | _DECIDED if awaiting else _DONE
    done = [
        index for index, column in enumerate(grid.columns)
        if set(fold(column.name).split()) & kinds
        and not (awaiting and (says_yes_or_no(column) or column.type == TEXT))
        and 0 < sum(not holds_a_value(text) for text in column.texts) < grid.size
    ]  # fmt: skip
    named = {_UNDONE[word] for word in said} - {""}
    if named:
        done = [i for i in done if named & set(fold(grid.columns[i].name).split())]
    if awaiting:
        done = _awaited(words, grid) or done
    return done[-1] if said and done else None


def _awaited(words: list[str], grid: Grid) -> list[int]:
    """Return the columns, partly empty, that the word after "pending" or "awaiting" names
    ("pending delivery": Delivered; "awaiting payment": Paid; "approval": Approved)."""
    after = [w for at, w in enumerate(words) if at and words[at - 1] in _AWAITING]
    after += [w for at, w in enumerate(words) if at > 1 and words[at - 2] in _AWAITING]
    said = {"paid" if w == "payment" else w[:5] for w in after if len(w) > 3}
    return [
        index for index, column in enumerate(grid.columns)
        if {word[:5] for word in fold(column.name).split()} & said
        and not says_yes_or_no(column) and column.type != TEXT
        and 0 < sum(not holds_a_value(text) for text in column.texts) < grid.size
    ]  # fmt: skip


# The words before a "number" that counts ("the number of wins", "the highest number").
_COUNTS_NUMBER = frozenset("total overall combined same average least top record".split())


def _counts(said: list[str], at: int, stopwords: frozenset[str]) -> bool:
    """Whether the "number" at `at` counts: first, after a stopword or a counting word, or
    before "of" ("number of keepers", "the Blues' number of goals"); not "the mobile number"."""
    before = said[at - 1] if at else ""
    after = said[at + 1] if at + 1 < len(said) else ""
    return (
        not before
        or before in stopwords
        or before in _COUNTS_NUMBER
        or before.endswith("est")
        or after == "of"
    )


def says_a_count(said: list[str], stopwords: frozenset[str]) -> bool:
    """Whether a question's words say "number" as a count somewhere."""
    return any(_counts(said, at, stopwords) for at, word in enumerate(said) if word == "number")


def without_periods(question: str, grid: Grid) -> str:
    """The question without the quarters and halves it says in words that the table does not
    name as a cell or a header ("first quarter" of a sheet by month, not of one by quarter)."""
    folded = fold(question)
    named = {word for column in grid.columns for word in fold(column.name).split()}
    named |= {word for column in grid.columns for value in column.folded for word in value.split()}
    for period, said in said_periods(folded).items():
        if period not in named:
            folded = folded.replace(said, " ")
    return folded


# A span of years said as one: a financial year or a season ("2025-26", "2025/26", "2025-2026");
# not a date ("2025-12-31") nor a month of a year ("2025-12": `year_spans` wants 26 after 2025).
_YEAR_SPAN = re.compile(r"(?<![\w.-])((?:19|20)\d\d) ?[-/] ?((?:19|20)\d\d|\d\d)(?![\w-])")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def year_spans(text: str) -> list[tuple[int, int, int, int]]:
    """Return where a text says a span of years, with its first and last year ("2025-26":
    2025 and 2026)."""
    found = []
    for match in _YEAR_SPAN.finditer(text):
        first, last = int(match.group(1)), match.group(2)
        end = int(last) if len(last) == 4 else first // 100 * 100 + int(last)
        if end > first if len(last) == 4 else int(last) == (first + 1) % 100:
            found.append((match.start(), match.end(), first, end))
    return found


def years_said(text: str) -> set[int]:
    """Return the years a text says, each span's last year too ("the 2025-26 year": 2025, 2026)."""
    return {int(year) for year in _YEAR.findall(text)} | {last for *_, last in year_spans(text)}


def says_a_year_it_lacks(question: str, grid: Grid) -> bool:
    """Whether the question says a year (or a span of years) that the table says nowhere, in
    its label, headers or cells: "what did Millbrook see in total in 2024?" of a sheet from
    April 2025 to March 2026 asks what it cannot answer, and no total of it answers."""
    said = years_said(fold(question))
    held = " ".join([grid.label, *(c.name for c in grid.columns), *grid.cell_text.split("|")])
    return bool(said) and not said <= years_said(fold(held))
