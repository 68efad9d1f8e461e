"""What a question says that a table may hold, read once for the table parser.

`read_question` folds the question into its words, the cues the parser pairs with operations,
its content words and their stems, and the numbers it says with the comparison said around
each ("more than 5", "70 or more"); `header_overlap` says how much of a column's header the
question says; `mentions` finds the conditions it names over a table: cells it says whole, words
it shares with cells, months of a date column, numbers it compares a numeric column against.
The parser (knowledge/tables/parser.py) builds its candidate programs from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from knowledge.tables.cells import DATE, DURATION, leading_number
from knowledge.tables.flags import flag_conditions, negated
from knowledge.tables.having import had_conditions
from knowledge.tables.partial import named_in_part
from knowledge.tables.programs import Condition, Grid, fold, holds_a_value, kept_rows
from knowledge.tables.said import (
    COMPARE_AFTER,
    COMPARE_CUES,
    CURRENCY_BEFORE,
    NEGATIONS,
    NUMBER_WORDS,
    antonym_conditions,
    plural,
    said_compounds,
    said_durations,
    said_periods,
    still_open,
    year_spans,
)
from knowledge.tables.vocabulary import IMPLIED_BY_PHRASE, IMPLIED_HEADERS

# Words the parser pairs with operations: anything else in a question is content, not a cue.
STOPWORDS = frozenset(
    "a an the of in on at to for by with from and or is are was were be been being this that "
    "these those it its as do does did has have had which what who whom whose when where how "
    "than then there their they he she his her".split()
)
_MONTH_NAMES = (
    "January February March April May June July August September October November December"
).split()
_MONTHS = {name.lower(): n for n, name in enumerate(_MONTH_NAMES, start=1)}
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:st|nd|rd|th)?(?![\w])")
MAX_CONDITIONS = 8
# Words that order rows: the column said after one is the one ordered on.
_ORDER_CUES = frozenset(
    "most least highest lowest largest smallest biggest fewest greatest best worst longest "
    "shortest earliest latest first last more less fewer higher lower larger smaller top "
    "bottom maximum minimum".split()
)
# First content words that name no column ("name the ...", "tell me ...", "total").
_GENERIC_HEADS = frozenset("name tell list give many much number total".split())


@dataclass
class Question:
    text: str
    folded: str
    words: list[str]  # folded tokens
    cues: list[str]  # the words paired with operations
    content: list[str]  # the words that are no stopwords (paired with header words)
    stems: set[str]
    numbers: list[tuple[float, str]]  # (value, comparison operator or "")
    header_words: set[str] = field(default_factory=set)  # the table's, once a table is read
    overlaps: list[float] = field(default_factory=list)  # each column header's overlap
    initials: set[str] = field(default_factory=set)  # "hr" for "home runs"
    head: str = ""  # the stem of its first content word ("manag" in "who manages ...")
    after_cue: set[str] = field(default_factory=set)  # stems just after "most", "least", ...
    direction: int = 0  # 1 asks for the larger amount, -1 the smaller, 0 neither (or both)


# A month said in full or shortened is one word: "February" names the column headed "Feb".
MONTH_STEMS = (
    {name.lower(): name[:3].lower() for name in _MONTH_NAMES}
    | {name[:3].lower(): name[:3].lower() for name in _MONTH_NAMES}
    | {"sept": "sep"}
)
# Each month's number by its stem ("feb": 2).
_MONTH_NUMBERS = {name[:3].lower(): n for n, name in enumerate(_MONTH_NAMES, start=1)}


def stem(word: str) -> str:
    if word in MONTH_STEMS:
        return MONTH_STEMS[word]
    for suffix in ("ies", "es", "s", "ed", "ing", "er", "est"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def said_as(word: str) -> set[str]:
    """Return the stems a word names a header by: its own, and those of the header words it
    implies ("kilo": kg, "tallest": height)."""
    return {stem(word)} | {stem(header) for header in IMPLIED_HEADERS.get(word, ())}


def said_by_phrase(folded: str) -> set[str]:
    """Return the stems of the headers a phrase of the question names ("the least time": hours)."""
    return {
        stem(header)
        for phrase, headers in IMPLIED_BY_PHRASE
        if phrase.search(folded)
        for header in headers
    }  # fmt: skip


def read_question(text: str) -> Question:
    folded = fold(text)
    words = folded.split()
    numbers = []
    spans = [(start, end) for start, end, _, _ in year_spans(folded)]
    for match in _NUMBER.finditer(folded):
        value = leading_number(match.group(0))
        within = [start for start, end in spans if start <= match.start() < end]
        if value is None or (within and within[0] != match.start()):
            continue  # the end of a span of years ("2025-26") is no number of its own
        if within:
            numbers.append((value, ""))  # "over the 2025-26 year" is no year over 2025
            continue
        # A currency sign between the comparison and the number: "more than €1,300".
        before = CURRENCY_BEFORE.sub(" ", folded[: match.start()])
        op = next((op for cue, op in COMPARE_CUES if cue.search(before[-30:])), "")
        if not op:
            after = folded[match.end() : match.end() + 30]
            op = next((op for cue, op in COMPARE_AFTER if cue.search(after)), "")
        numbers.append((value, op))
    for index, word in enumerate(words):
        if word in NUMBER_WORDS:
            before = " ".join(words[:index]) + " "
            op = next((op for cue, op in COMPARE_CUES if cue.search(before[-30:])), "")
            numbers.append((float(NUMBER_WORDS[word]), op))
    cues = [word for word in words if not _NUMBER.fullmatch(word)]
    initials = {
        "".join(word[0] for word in words[i : i + n])
        for n in (2, 3)
        for i in range(len(words) - n + 1)
        if all(word not in STOPWORDS for word in words[i : i + n])
    }
    head = next((stem(w) for w in cues if w not in STOPWORDS and w not in _GENERIC_HEADS), "")
    after_cue = {
        stem(word)
        for i, cue in enumerate(words)
        if cue in _ORDER_CUES
        for word in words[i + 1 : i + 4]
        if word not in STOPWORDS
    }
    return Question(
        text=text,
        initials=initials,
        head=head,
        after_cue=after_cue,
        folded=folded,
        words=words,
        cues=cues,
        content=list(dict.fromkeys(w for w in cues if w not in STOPWORDS))[:8],
        stems={said for word in words if word not in STOPWORDS for said in said_as(word)}
        | said_by_phrase(folded)
        | set(said_periods(folded)),
        numbers=numbers,
        direction=asked_direction(words),
    )


# Words that ask for the larger or the smaller amount; "more than 50" and "at least 3" are
# conditions, not an order.
_UPWARD = frozenset(
    "most more highest higher largest larger biggest bigger greatest greater longest longer "
    "maximum max tallest taller heaviest heavier deepest deeper widest wider richest richer "
    "wealthiest busiest busier strongest stronger dearer dearest costlier costliest".split()
)
_DOWNWARD = frozenset(
    "least fewest fewer less lowest lower smallest smaller shortest shorter minimum min "
    "lightest lighter quietest quieter weakest weaker cheaper cheapest".split()
)
# Headers of places or ranks, whose smallest value is the best: "the highest placed" is Rank 1.
RANK_WORDS = frozenset("rank ranking position pos place placing seed pick round standing".split())


def asked_direction(words: list[str]) -> int:
    """Return 1 when the question's words ask for the larger amount ("the longest downtime",
    "more staff"), -1 for the smaller, 0 when they ask for neither or both."""
    said = set()
    for index, word in enumerate(words):
        after = words[index + 1] if index + 1 < len(words) else ""
        if after == "than" or (index and words[index - 1] == "at"):
            continue
        said.add(1 if word in _UPWARD else -1 if word in _DOWNWARD else 0)
    said.discard(0)
    return said.pop() if len(said) == 1 else 0


def header_words(name: str) -> list[str]:
    return [w for w in fold(name).split() if w not in STOPWORDS and not w.isdigit()][:4]


def header_overlap(name: str, question: Question) -> float:
    """Return the share of a header's words the question says (a stem, its plural, or an
    abbreviation whose letters begin consecutive words of the question: "HR" for "home runs")."""
    words = [word for word in fold(name).split() if word not in STOPWORDS]
    if not words:
        return 0.0
    said = sum(
        stem(word) in question.stems or plural(word) in question.words or word in question.initials
        for word in words
    )
    return said / len(words)


# The outcomes a results column codes in a letter or a word ("W 21–7", "L", "Won", "Draw"),
# and the question's words that ask for each.
_OUTCOMES = {
    "win": (
        "win wins won winning victory victories beat beats beaten",
        ("w", "win", "won", "winner"),
    ),
    "loss": (
        "lose loses lost losing loss losses defeat defeats defeated",
        ("l", "loss", "lost", "runner-up"),  # a final's loser is its runner-up
    ),
    "draw": ("draw draws drawn tie ties tied", ("d", "t", "draw", "tie", "drawn", "tied")),
}
_OUTCOME_OF = {word: codes for words, codes in _OUTCOMES.values() for word in words.split()}
_ALL_CODES = frozenset(code for _, codes in _OUTCOMES.values() for code in codes)


def outcome_codes(word: str, grid: Grid) -> list[tuple[int, str]]:
    """Return the columns that code the outcome a word asks for ("how many games did they
    *lose*?" over a Result column of "W 21–7" and "L 3–10"), each with the code its cells
    open with: a column most of whose filled cells open with an outcome's letter or word."""
    codes = _OUTCOME_OF.get(word)
    if codes is None:
        return []
    found = []
    for index, column in enumerate(grid.columns):
        if column.numeric:
            continue
        firsts = [value.split()[0] for value in column.folded if value]
        coded = [first for first in firsts if first in _ALL_CODES]
        if not firsts or len(coded) < 0.6 * len(firsts):
            continue
        mine = [first for first in coded if first in codes]
        if mine and word not in {first for first in firsts}:
            found.append((index, max(set(mine), key=mine.count)))
    return found


def outcome_of(condition: Condition) -> str:
    """Return the outcome a condition keeps the rows of ("win", "loss", "draw"), or ""."""
    if not is_outcome(condition):
        return ""
    codes = _OUTCOME_OF[condition.said]
    return next(kind for kind, (_, kind_codes) in _OUTCOMES.items() if kind_codes == codes)


def is_outcome(condition: Condition) -> bool:
    """Whether a condition keeps the rows of an outcome a word asks for (`outcome_codes`): it
    names rows of a kind, never one row ("the game before the loss" is no anchor)."""
    return (
        condition.op == "contains"
        and condition.said in _OUTCOME_OF
        and condition.value != condition.said
    )


def _word_conditions(
    content: list[str], said: str, grid: Grid, found: dict[tuple[int, str], Condition]
) -> None:
    """Add the conditions of the content words the question shares with cells (contains) but
    not in a cell it says whole, and of the outcomes its words ask for (`outcome_codes`)."""
    for word in content:
        if f" {word} " in f" {said} ":
            continue
        for index, column in enumerate(grid.columns):
            if column.numeric:
                continue
            # "the managers" are the rows whose Role says "Manager": the cells' own form.
            form = _cell_form(word, column.folded)
            hits = sum(f" {form} " in f" {value} " for value in column.folded)
            if 0 < hits < max(2, grid.size):
                found.setdefault((index, form), Condition(index, "contains", form, word))
    for word in dict.fromkeys(content):
        for index, code in outcome_codes(word, grid):
            found.setdefault((index, code), Condition(index, "contains", code, word))


def _cell_form(word: str, values: list[str]) -> str:
    """Return the form in which a column's cells hold a question's word: the word itself, else
    its singular when that is a whole cell ("the managers" are the cells "Manager"; "bill" is
    no "Billing")."""
    if any(f" {word} " in f" {value} " for value in values):
        return word
    singulars = [
        singular
        for ending, singular in (("ies", word[:-3] + "y"), ("es", word[:-2]), ("s", word[:-1]))
        if word.endswith(ending)
    ]
    for singular in singulars:
        # A whole cell ("Manager"), as a category column holds it: a plural inside a longer
        # cell ("Team Penske" for "teams") more often names the rows counted than a filter.
        if len(singular) > 2 and singular in values:
            return singular
    return word


_MONTH_WORD = "|".join(MONTH_STEMS)
_DAY_MONTH = re.compile(
    rf"\b(?:(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? ({_MONTH_WORD})"
    rf"|({_MONTH_WORD}) (\d{{1,2}})(?:st|nd|rd|th)?)\b"
)


def said_days(folded: str) -> list[tuple[int, int, str]]:
    """Return the days of a month a question says ("20 april", "april 20th", "3rd of may") as
    (month, day, words); a month with a year ("april 2026") says no day."""
    days = []
    for match in _DAY_MONTH.finditer(folded):
        day = int(match.group(1) or match.group(4))
        number = _MONTH_NUMBERS[MONTH_STEMS[match.group(2) or match.group(3)]]
        if 1 <= day <= 31:
            days.append((number, day, match.group(0)))
    return days


# "Still waiting to be delivered", "awaiting payment for": a thing still to be done.
_AWAITED = re.compile(r"\ba?waiting (?:to be|for|on) (?:\w+ )?(\w+)")


def _said_undone(words: list[str], header: str) -> bool:
    """Whether the question says a header's word after "not", "never" or "yet" (within three
    words), or after "waiting to be", "for" or "on": "have not been resolved", "haven't
    shipped", "yet to be paid", "still waiting to be delivered" ask for its empty cells (not
    of a header that is itself about waiting: a Waiting list, a Waiting time)."""
    stems = {stem(word) for word in fold(header).split() if word not in STOPWORDS}
    waited = {stem(m.group(1)) for m in _AWAITED.finditer(" ".join(words))}
    if stems & waited and not stems & {"wait", "waiting", "awaiting"}:
        return True
    for at, word in enumerate(words):
        before = set(words[max(0, at - 3) : at])
        if stem(word) in stems and before & NEGATIONS:
            return True
    return False


def _blank_and_day_conditions(
    question: Question, grid: Grid, found: dict[tuple[int, str], Condition]
) -> None:
    """Add the conditions on a cell's emptiness and on a date's month or day the question says."""
    # "Which incidents have not been resolved yet?": the rows whose Resolved cell is empty;
    # "which jobs are still open?" those whose Fixed date is.
    open_column = still_open(question.words, grid)
    for index, column in enumerate(grid.columns):
        empty = sum(not holds_a_value(text) for text in column.texts)
        if 0 < empty < grid.size and (
            _said_undone(question.words, column.name) or index == open_column
        ):
            found[(index, "blank")] = Condition(index, "blank", "", f"no {column.name}")
    # "How many flights leave in March?": the rows of a date column in that month.
    # A month said with its day ("20 April") is that day's (below), not the whole month's.
    dated = {month for month, _, _ in said_days(question.folded)}
    months = [_MONTHS[word] for word in question.words if word in _MONTHS]
    months = [month for month in months if month not in dated]
    for index, column in enumerate(grid.columns):
        if column.type == DATE:
            for month in dict.fromkeys(months):
                found[(index, f"month{month}")] = Condition(
                    index, "month", month, _MONTH_NAMES[month - 1]
                )
    # "The week of 20 April", "on April 20th": the rows of a date column on that day, whatever
    # the year (a rota or a schedule says the day and leaves the year to its title).
    for month, day, said in said_days(question.folded):
        for index, column in enumerate(grid.columns):
            on_day = Condition(index, "day", month * 100 + day, said)
            if column.type == DATE and kept_rows(grid, (on_day,)):
                found.setdefault((index, f"day{month}-{day}"), on_day)


# Words that ask for what is not decided yet, and the cells of a status column that say so.
_WAITING = frozenset("waiting awaiting pending outstanding undecided".split())
_WAITING_CELLS = frozenset(
    {"pending", "awaiting", "waiting", "outstanding", "in progress", "tbd", "tbc"}
)


def _waiting_conditions(
    question: Question, grid: Grid, found: dict[tuple[int, str], Condition]
) -> None:
    """Add the condition of a status cell that says a thing is not decided yet, when the
    question asks for what is: "which restaurant is still waiting for its inspection result?"
    keeps the row whose Result says Pending."""
    if not _WAITING.intersection(question.words):
        return
    for index, column in enumerate(grid.columns):
        for value, text in zip(column.folded, column.texts, strict=True):
            if value in _WAITING_CELLS:
                found.setdefault((index, value), Condition(index, "eq", value, text))


def _compound_and_duration_conditions(question: Question, grid: Grid, found: dict) -> None:
    padded = f" {question.folded} "
    # "High-priority repairs": the rows whose Priority says High ("not high-priority": others).
    for cell, header, said in said_compounds(question.folded):
        for index, column in enumerate(grid.columns):
            if cell in column.folded and stem(header) in {
                stem(w) for w in header_words(column.name)
            }:
                op, mark = ("ne", "!") if negated(padded, said) else ("eq", "")
                found.setdefault((index, mark + cell), Condition(index, op, cell, said))
    # "Which suppliers deliver within two days?": a column of durations, compared in seconds.
    for seconds, op, said in said_durations(question.folded):
        for index, column in enumerate(grid.columns):
            if column.type == DURATION:
                found.setdefault((index, f"{op}{seconds}"), Condition(index, op, seconds, said))


def mentions(question: Question, grid: Grid) -> list[Condition]:
    """Return the conditions the question names: cells it says whole (eq), a content word or
    two it shares with cells (contains), numbers it compares a numeric column against."""
    padded = f" {question.folded} "
    found: dict[tuple[int, str], Condition] = {}
    spans: list[tuple[int, str]] = []
    for index, column in enumerate(grid.columns):
        for row, value in enumerate(column.folded):
            if not value or len(value) < 2 and not value.isdigit():
                continue
            if value in STOPWORDS or (index, value) in found:
                continue
            if f" {value} " in padded:
                found[(index, value)] = Condition(index, "eq", value, column.texts[row])
                spans.append((index, value))
    said = " ".join(value for _, value in spans)
    content = [w for w in question.words if w not in STOPWORDS and not w.isdigit() and len(w) > 2]
    _word_conditions(content, said, grid, found)
    # "Which orders are not shipped?", "other than Porto": the rows whose cell is not the one said.
    for index, value in spans:
        if negated(padded, value):
            said_text = found[(index, value)].said
            found[(index, f"!{value}")] = Condition(index, "ne", value, said_text)
    _blank_and_day_conditions(question, grid, found)
    flag_conditions(question.folded, grid, found)
    _waiting_conditions(question, grid, found)
    antonym_conditions(question.words, grid, found, STOPWORDS)
    had_conditions(question.words, grid, found)
    _compound_and_duration_conditions(question, grid, found)
    for value, op in question.numbers:
        if not op and value.is_integer() and 1000 <= value <= 2100:
            # "How many rebounds in 1978?": the rows of a date column in that year (when
            # that is some of its rows: a 2009 season's games are all of 2009).
            for index, column in enumerate(grid.columns):
                year = Condition(index, "year", int(value), f"{value:g}")
                if column.type == DATE and 0 < len(kept_rows(grid, (year,))) < grid.size:
                    found.setdefault((index, f"year{value:g}"), year)
        if not op:
            continue
        for index, column in enumerate(grid.columns):
            if column.numeric:
                key = (index, f"{op}{value}")
                found.setdefault(key, Condition(index, op, value, f"{op} {value:g}"))
    # "Abbey Fields" of the row "Abbey Fields Primary": a name said in part (tables/partial.py).
    in_part = named_in_part(question.text, grid)
    if in_part is not None:
        found.setdefault((in_part.column, str(in_part.value)), in_part)
    ranked = sorted(
        found.values(),
        key=lambda c: (c.op != "eq", -len(str(c.value)), c.column),
    )
    return ranked[:MAX_CONDITIONS]
