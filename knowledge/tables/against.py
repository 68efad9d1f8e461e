"""A comparison of two columns of each row: what was achieved against its target.

A team's tables keep a plan beside what happened ("Target (%) | Achieved (%)", "Budget |
Spent", "Quota | Sold"): "which services missed their availability target?", "how many
projects went over budget?", "which reps met their quota?" keep the rows where one column is
below, above or at least the other, which no condition on one column states. `against_column`
makes that program when the question says a verb of reaching (`_BELOW`, `_ABOVE`, `_REACHES`)
before a word naming a numeric column (the reference) and exactly one other numeric column
measures in the same unit (the header's parentheses: "(%)" is not "(min)"; the cells' unit or
currency: a price in pounds is no stock count).
"""

from __future__ import annotations

import re

from knowledge.tables.asked import asked_column
from knowledge.tables.cells import DATE, TEXT
from knowledge.tables.parser import Candidate
from knowledge.tables.programs import Condition, Grid, Program, fold, run
from knowledge.tables.question import STOPWORDS, mentions, read_question, stem
from knowledge.tables.said import NEGATIONS

_BELOW = frozenset("miss missed misses missing under below short fail failed fails".split())
_ABOVE = frozenset(
    "exceed exceeded exceeds beat beats over above surpass surpassed overshot overran".split()
)
_REACHES = frozenset("meet meets met reach reached reaches hit hits make made".split())
_UNIT = re.compile(r"\(([^)]*)\)")
# How likely the program is right when it is made: the parser builds no comparison of two
# columns to rank it against, and a question naming a reference column, a verb of reaching and
# rows asks for little else.
AGAINST_SCORE = 0.8


def against_column(question: str, grid: Grid) -> Candidate | None:
    """Return the rows (or their number, for "how many") whose amount is below, above or at
    least the amount of the column the question names against it, or None."""
    words = fold(question).split()
    if words[:2] == ["how", "much"] or "by" in words[:1]:
        return None  # "by how much did units sold exceed the target?" is a change (change.py)
    filled = _filled(words, grid)
    if filled is not None and _names_a_row(question, grid):
        return None  # "is Junior Drama fully booked?" asks of one row: its lookup answers
    found = _reaching(words) if filled is None else (filled[2], -1)
    if found is None:
        return None
    op, at = found
    if filled is not None:
        compared, reference, _ = filled
    else:
        if any(word[:1].isdigit() for word in words[at + 1 : at + 3]):
            return None  # "over 16%" compares with a number, not with a column
        reference = _named_after(words, at, grid)
        compared = None if reference is None else _compared_with(grid, reference)
        if compared is None:
            return None
    said = grid.columns[reference].name
    condition = Condition(compared, op, float(reference), said)
    if words[:2] == ["how", "many"]:
        program = Program("count", conditions=(condition,))
    else:
        target = asked_column(question, grid)
        if target is None and grid.columns and grid.columns[0].type == TEXT:
            target = 0
        if target is None:
            return None
        program = Program("values", target=target, conditions=(condition,))
    result = run(program, grid)
    return None if result is None else Candidate(program, result, {}, AGAINST_SCORE)


def _reaching(words: list[str]) -> tuple[str, int] | None:
    """Return the comparison a verb of reaching says (programs.AGAINST: "below", "above",
    "reaches"; a negation before it turns "met" into "below", "missed" into "reaches" and
    "exceeded" into "within") and where it is said."""
    for at, word in enumerate(words):
        op = (
            "below" if word in _BELOW else "above" if word in _ABOVE
            else "reaches" if word in _REACHES else ""
        )  # fmt: skip
        if not op:
            continue
        if NEGATIONS & set(words[max(0, at - 3) : at]):
            op = {"below": "reaches", "reaches": "below", "above": "within"}[op]
        return op, at
    return None


def _filled(words: list[str], grid: Grid) -> tuple[int, int, str] | None:
    """Return the column a question says is filled ("which workshops are fully booked?":
    Booked; "which invoices were paid in full?": Paid), the one of its unit it reaches (Places,
    Amount) and the comparison ("below" when it is not), or None."""
    for at, word in enumerate(words):
        if word == "fully" and at + 1 < len(words):
            said = words[at + 1]
        elif words[at : at + 2] == ["in", "full"] and at and not words[at + 2 : at + 3]:
            # The verb that is filled: "paid their rent in full" fills Paid, not Rent.
            verbs = [w for w in words[max(0, at - 4) : at] if w in _FILLING]
            if not verbs:
                return None
            said, at = verbs[-1], words.index(verbs[-1], max(0, at - 4))
        else:
            continue
        op = "below" if NEGATIONS & set(words[max(0, at - 3) : at]) else "reaches"
        named = _named_after([*words[: at + 1], said], at, grid)
        if named is None:
            return None
        reference = _compared_with(grid, named)
        if reference is None:  # of several, the one of what can be had (Places, Amount due)
            unit = _unit(grid.columns[named])
            full = [
                index for index, column in enumerate(grid.columns)
                if index != named and column.numeric and _unit(column) == unit
                and set(fold(_UNIT.sub(" ", column.name)).split()) & _WHOLE
            ]  # fmt: skip
            reference = full[0] if len(full) == 1 else None
        return None if reference is None else (named, reference, op)
    return None


# The verbs of what is done in full: "paid in full", "spent their budget in full".
_FILLING = frozenset("paid repaid settled spent booked funded used delivered staffed".split())
# The header words of what a column is filled up to: places to book, an amount to pay.
_WHOLE = frozenset(
    "places capacity seats spaces slots spots limit maximum max amount due total invoiced".split()
)


def _named_after(words: list[str], at: int, grid: Grid) -> int | None:
    """Return the numeric column a word after the verb names ("their availability target"
    names Target (%)), when one does."""
    after = [stem(word) for word in words[at + 1 :] if word not in STOPWORDS]
    named = [
        index
        for index, column in enumerate(grid.columns)
        if column.numeric and column.type != DATE
        and {stem(word) for word in fold(_UNIT.sub(" ", column.name)).split()} & set(after)
    ]  # fmt: skip
    return named[0] if len(named) == 1 else None


def _compared_with(grid: Grid, reference: int) -> int | None:
    """Return the one other numeric column measured in the reference's unit: its header's
    unit and its cells' (a price in GBP is no stock count), or, when none or several are, the
    one whose cells say no other unit ("52,000" beside a Quota of "$50,000")."""
    header, cells = _unit(grid.columns[reference])
    amounts = [
        (index, _unit(column))
        for index, column in enumerate(grid.columns)
        if index != reference and column.numeric and column.type != DATE
    ]
    same = [index for index, unit in amounts if unit == (header, cells)]
    near = [
        index for index, (h, c) in amounts if h == header and (not c or not cells or c == cells)
    ]
    return same[0] if len(same) == 1 else near[0] if len(near) == 1 else None


def _unit(column) -> tuple[str, str]:
    """Return what a column measures in: its header's parentheses, and its cells' unit or
    currency ("In stock" and "Reorder at" are counts, "Unit price" is in GBP)."""
    found = _UNIT.search(column.name)
    return (fold(found.group(1)) if found else "", column.unit)


def _names_a_row(question: str, grid: Grid) -> bool:
    """Whether the question names a row by a text cell of it."""
    return any(
        c.op == "eq" and grid.columns[c.column].type == TEXT
        for c in mentions(read_question(question), grid)
    )
