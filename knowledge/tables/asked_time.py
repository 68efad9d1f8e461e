"""Whether a program that takes rows in an order takes them in the order of time the question
asks: "the newest", "the oldest", what was done first ("which ferry leaves first?"), the first
of its kind ("who was the last coach of the club?") over a table with a column of dates or
years. A table with no column of times keeps its order.

Each rule was measured on the dev fifth of WikiTableQuestions' training split first
(`bench/table_parser.py`); knowledge/tables/follows.py holds the others.
"""

from __future__ import annotations

import re

from knowledge.tables.asked import holds_times, is_a_time
from knowledge.tables.cells import DATE, OPEN_ENDS, is_money
from knowledge.tables.parser import Candidate
from knowledge.tables.programs import Grid, fold, kept_rows
from knowledge.tables.question import RANK_WORDS, asked_direction, header_overlap, read_question

_DIRECTION = {"argmax": 1, "max": 1, "more": 1, "argmin": -1, "min": -1, "less": -1}


def program_direction(program) -> int:
    """Return 1 for a program that takes the larger amount, -1 the smaller, 0 neither."""
    if program.op == "top":
        return -1 if program.ascending else 1
    return _DIRECTION.get(program.op, 0)


# Words that order rows in time: 1 asks for the later, -1 for the earlier.
_TIME_ORDER = {"newest": 1, "latest": 1, "recent": 1, "earliest": -1, "oldest": -1}
# Words that order rows in time when the rows are ordered by a date or a year.
_PLACE_ORDER = {"first": -1, "last": 1}
# The programs that take a row by its place in the table.
_PLACES = ("first", "last")


def follows_the_asked_time(words: list[str], grid: Grid, candidate: Candidate) -> bool:
    """Whether a program that orders rows for "the newest", "the oldest", "the most recent"
    orders them by a date or a year, the way the question asks: "which plant is the newest?" is
    no argmin of Workers (on the dev part of WikiTableQuestions' training split: one more right,
    none fewer). The same for what was done first or last, and for the first or the last of its
    kind taken as the table's first or last row."""
    asked = {_TIME_ORDER[word] for word in words if word in _TIME_ORDER}
    program = candidate.program
    if len(asked) == 1 and program.op in _PLACES:
        return _holds_the_asked_time(next(iter(asked)), grid, candidate)
    in_time = _said_in_order(words, _done) or _said_in_order(words, _first_of_its_kind)
    if not asked and in_time and program.op in _PLACES:
        return _holds_the_asked_time(in_time, grid, candidate)
    direction = program_direction(program)
    if not direction or program.key is None:
        return True
    key = grid.columns[program.key]
    if not asked and in_time and not asked_direction(words) and not is_a_time(key):
        # "leaves first" or "the first patient to register" over a table with a column of
        # times is no least Tonnage or Weight ("the most points" asks for its own order).
        return not any(is_a_time(column) for column in grid.columns)
    placed = {_PLACE_ORDER[word] for word in words if word in _PLACE_ORDER}
    if not asked and len(placed) == 1 and not asked_direction(words) and is_a_time(key):
        return direction == placed.pop()  # "due first" is the earliest Due date
    if len(asked) != 1:
        return True
    if "age" in fold(key.name).split():
        return True  # "the oldest player" by Age is the largest
    if holds_times(key):
        return direction == asked.pop()
    return not any(holds_times(column) for column in grid.columns)


# The words before "first" or "last" that say where a row stands, not when it happened ("listed
# first", "came last", "the first"): any other word before them is something done, in time.
_NOT_DONE = frozenset(
    "the a an its their his her our my your this that was is were are be been being in of at "
    "to and or on for place places placed listed list lists shown show appears appear appearing "
    "mentioned rank ranks ranked ranking came come comes coming went go goes finished finish "
    "finishes finishing placing got get gets took take takes started start starts qualified "
    "ending ended end ends who which what whose".split()
)
# The words that may follow "first" or "last" said of something done: none ("sails first?"), or
# those that begin another part ("built first, and who ..."); "first place" is a place.
_AFTER_DONE = frozenset(
    ["", *"and or in on at among of between during after before than from to with by".split()]
)
# "The first X" of a kind, where X is no place in an order ("the first place", "the first
# round", "the first one listed"), in a question that says nothing of where rows are listed.
_OWNERS = frozenset("the their his her its".split())
_PLACE_NOUNS = frozenset(
    "place places position positions rank round rounds heat heats leg legs half quarter "
    "period stage stages row rows column one ones time times name names priority priorities "
    "step steps tier tiers level levels grade grades division divisions".split()
)
_LISTED = frozenset("listed list chart table shown top bottom placed finished ranked came".split())


# Headers of a date that begins or ends something: the time since a beginning is longest at its
# earliest, the time to an end at its latest.
_BEGINS = frozenset(
    "start started starts since joined hired opened founded established began signed enrolled "
    "from".split()
)
_ENDS = frozenset("end ends ended ending until expiry expires expiring finish finished due".split())


# The words of a time that lasts: 1 asks for the longer, -1 for the shorter.
_ELAPSED = {"longest": 1, "longer": 1, "shortest": -1, "shorter": -1}


def elapsed_direction(words: list[str], column) -> int:
    """Return the direction "the longest" or "the shortest" asks of a column of times that
    begins or ends something: "which tenant has been with us the longest?" is the earliest
    Start, "whose contract runs the longest?" the latest Contract end; "the shortest" the other
    way; so do "longer" and "shorter" of a time up to now ("who has been volunteering longer,
    Gareth or Nia?" is the earlier Joined; not "which tunnel is longer?" of one Opened, nor "no
    longer"). 0 for any other column (a Left date says neither), or a question that says
    neither."""
    said = {
        _ELAPSED[word] for before, word in zip(["", *words], words)
        if word in _ELAPSED and before != "no" and (word.endswith("est") or "been" in words)
    }  # fmt: skip
    header = set(fold(column.name).split())
    if len(said) != 1 or not is_a_time(column) or not header & (_BEGINS | _ENDS):
        return 0
    return said.pop() * (1 if header & _ENDS else -1)


def measured_to_now(words: list[str], grid: Grid) -> bool:
    """Whether "the longest" asks for a time up to now: the question says "been" ("which
    tenant has been with us the longest?"), a column of times begins something, and some row
    has not ended (no column ends anything, or one holds an empty or open end such as
    "rolling"). When every row has ended, the longest is the end less the start, which a
    table listed by time in office gives in its order."""
    if "been" not in words:
        return False
    headers = [(column, set(fold(column.name).split())) for column in grid.columns]
    if not any(is_a_time(column) and header & _BEGINS for column, header in headers):
        return False
    ends = [column for column, header in headers if is_a_time(column) and header & _ENDS]
    return not ends or any(not text or text in OPEN_ENDS for c in ends for text in c.folded)


def cannot_be_the_longest(words: list[str], grid: Grid, column, op: str) -> bool:
    """Whether a column cannot be what "the longest" or "the shortest" orders by: an amount of
    money (for the row with the most or least), or, for a time up to now, a column of times
    that end something. "Which tenant has been with us the longest?" is the earliest Start,
    neither the largest Monthly rent nor the latest End (the lease that ends last may have
    begun last), nor the days from its Start to its End. Not when the table says the word itself ("The Longest Yard", "Longest
    drive")."""
    said = {"longest", "shortest"} & set(words)
    if not said or any(re.search(rf"\b{word}\b", grid.cell_text) for word in said):
        return False
    if any(said & set(fold(other.name).split()) for other in grid.columns):
        return False
    header = set(fold(column.name).split())
    if measured_to_now(words, grid) and (
        (is_a_time(column) and header & _ENDS) or getattr(column, "days_between", False)
    ):
        return True  # nor the days from a start to an end (knowledge/tables/between.py)
    return op in ("argmax", "argmin") and is_money(column)


def follows_the_named_order(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a program that takes rows in the table's order (the first, the last) is not
    asked for another order: "which project is due first?" names the Due date column, so the
    first row of the slide answers another question and the next candidate is taken. So does
    "the longest" of a time up to now (`measured_to_now`: "which tenant has been with us the
    longest?" orders by Start)."""
    program = candidate.program
    if program.op not in ("first", "last"):
        return True
    read = read_question(question)
    touched = {program.target, *(c.column for c in program.conditions + program.anchors)}
    to_now = measured_to_now(read.words, grid)
    return not any(
        (column.type == DATE or column.numeric)
        and index not in touched
        and (
            header_overlap(column.name, read) >= 0.5
            or (to_now and elapsed_direction(read.words, column))
        )
        for index, column in enumerate(grid.columns)
    )


def _done(before: str, after: str, words: list[str]) -> bool:
    """ "Which ferry leaves first?", "which bridge was built last, and by whom?" ("how long did
    the strike last?" is the verb)."""
    return before not in _NOT_DONE and after in _AFTER_DONE and "long" not in words


def _first_of_its_kind(before: str, after: str, words: list[str]) -> bool:
    """ "Who was the last coach of the club?", "which was the first ship she commanded?", "the
    first patient to register" ("the first pick" is a rank)."""
    return (
        before in _OWNERS
        and after not in _PLACE_NOUNS
        and after not in RANK_WORDS  # "the first seed" is a rank
        and after not in _AFTER_DONE
        and not _LISTED.intersection(words)
    )


def _said_in_order(words: list[str], fits) -> int:
    """Return -1 when the question asks for the first in time the way `fits` tells, 1 for the
    last, 0 otherwise. On the dev part of WikiTableQuestions' training split, what is done
    first changes one program (wrong before and after): a verb is no sure sign there, where
    "placed first" is a place and "built first" a time; the first of its kind read as the
    earliest (with a first or last row only) gains 6 and loses 2 (half a 788 -> 790, b 760 ->
    761)."""
    said = {
        _PLACE_ORDER[word]
        for before, word, after in zip(words, words[1:], [*words[2:], ""])
        if word in _PLACE_ORDER and fits(before, after, words)
    }
    return said.pop() if len(said) == 1 else 0


def _holds_the_asked_time(asked: int, grid: Grid, candidate: Candidate) -> bool:
    """Whether the first or the last row a program takes for "the newest" or "the oldest" (or
    for what was done first or last) holds the latest (earliest) time of the rows it keeps in
    a column of times: "which site is the newest?" is not the first row of Sites when the sites
    are not listed in the order they opened. A table with no column of times keeps its
    order."""
    rows = kept_rows(grid, candidate.program.conditions)
    if len(candidate.result.rows) != 1 or not rows:
        return True
    row, timed = candidate.result.rows[0], False
    for column in grid.columns:
        times = [column.numbers[r] for r in rows if column.numbers[r] is not None]
        if is_a_time(column) and times and column.numbers[row] is not None:
            timed = True
            if column.numbers[row] == (max(times) if asked > 0 else min(times)):
                return True
    return not timed


# The words that ask for a time: a date is the answer to them.
_TIME_NOUNS = frozenset(
    "when date dates day days year years month months time week weeks weekend weekends".split()
)


def answers_which_with_a_date(words: list[str], grid: Grid, candidate: Candidate) -> bool:
    """Whether a "which <noun>" question that asks for no time is answered with the date of that
    noun done: "which release had the most bug fixes?" is the Version, not its Released date.
    A table whose rows are named by their dates (the date is its first column) answers with them
    ("which game had the most people in attendance?" is its Date)."""
    target = candidate.program.target
    if words[:1] != ["which"] or len(words) < 2 or len(words[1]) < 4 or not target:
        return False
    column = grid.columns[target]
    said = any(word[:5] == words[1][:5] for word in fold(column.name).split())
    return column.type == DATE and said and not _TIME_NOUNS.intersection(words)
