"""Rows that have a thing a header names, or lack it: "which sites have batteries?" keeps the rows
whose Battery (kWh) cell holds a value, in a column some of whose cells hold none ("n/a", empty,
"none", a 0 of an amount); "without a battery", "have no battery", "don't have a battery", "lack
a battery" and "a silver medal but no gold" keep the rows without one.

Said only of rows of a kind, never of a row the question names ("does the Park branch have a
generator?" reads its cell), never with an order or a comparison said ("the newest branch with a
generator", "a generator bigger than North's": the parser reads those as before), and never of a
thing two columns name, a column every row fills or a value said after the thing ("with a
battery of 27 kWh", "number 9"). Of a flag of yes and no, "no" is lacking: "which flats don't
have a garden?" keeps the Garden cells that say no or nothing.
"""

from __future__ import annotations

from knowledge.tables.cells import NO, YES
from knowledge.tables.programs import Condition, Grid, Program, fold
from knowledge.tables.said import says_a_superlative

# The words a thing had is said after (with "a", "an" or "any" between), and those it is denied
# after: "without a battery", "lacks a battery", "but no gold".
_HAVING = frozenset("have has had having with".split())
_LACKING = frozenset("without lack lacks lacking".split())
_SOME = frozenset("a an any".split())
# Words that compare the thing had with a value said after it.
_COMPARED = frozenset("over under above below between exceeding within".split())
# A question that asks about a row it names: "does the Park branch have a generator?".
_ASKS_OF_A_ROW = frozenset("does do did is are was were has have".split())
# Words that order or compare: the parser reads such a question as before.
_ORDERS = frozenset("most least fewest more less fewer than top first last".split())


def lacks(grid: Grid, column: int, row: int) -> bool:
    """Whether a row has none of a column's thing: no value, "none", or an amount of 0."""
    return Condition(column, "lacks", "").holds(grid, row)


def _things_said(words: list[str]) -> list[tuple[str, bool, int]]:
    """Return each thing said had or lacked, with whether it is denied and where it is said."""
    said = []
    for at, word in enumerate(words):
        after = words[at + 1 : at + 3]
        if word == "no" and at and words[at - 1] in ("but", "and"):
            said.append((after[:1], True, at + 1))  # "a silver medal but no gold"
            continue
        if word not in _HAVING | _LACKING:
            continue
        # "don't have", "doesn't have", "do not have": a negation just before the verb.
        denied = word in _LACKING or (
            word in ("have", "has") and words[at - 1 : at] in (["t"], ["not"])
        )
        if after and (after[0] == "no" or after[0] in _SOME):
            denied = denied or after[0] == "no"
            after = after[1:]
            at += 1
        said.append((after[:1], denied, at + 1))
    return [(thing[0], denied, at) for thing, denied, at in said if thing and len(thing[0]) >= 3]


def had_conditions(words: list[str], grid: Grid, found: dict[tuple[int, str], Condition]) -> None:
    """Add the rows that have (or lack) a thing a header names, as the module says."""
    if (words and words[0] in _ASKS_OF_A_ROW) or _ORDERS & set(words) or says_a_superlative(words):
        return
    for thing, denied, at in _things_said(words):
        after = words[at + 1 : at + 4]
        if set(after) & _COMPARED or any(ch.isdigit() for word in after for ch in word):
            continue  # a value said after it: "with a battery of 27 kWh", "a wait over 10 days"
        forms = {thing, thing[:-1] if thing.endswith("s") else thing}
        forms |= {thing[:-3] + "y"} if thing.endswith("ies") else set()
        named = [i for i, c in enumerate(grid.columns) if forms & set(fold(c.name).split())]
        if len(named) != 1:
            continue  # no column, or two ("a phone" of a Work phone and a Mobile phone)
        index = named[0]
        column = grid.columns[index]
        none = sum(lacks(grid, index, row) for row in range(grid.size))
        if not 0 < none < grid.size:
            continue  # every row has it, or none does
        op = "lacks" if denied else "has"
        # It stands for the column's flag ("don't have a garden" is no Garden's yes), its empty
        # cells and a "no" said: "have no parking" keeps the Parking cells that say no or nothing.
        for key, c in list(found.items()):
            flag = c.op in ("eq", "ne") and c.value in YES | NO
            if c.column == index and (c.op == "blank" or flag) or flag and words[at - 1] == "no":
                del found[key]  # (the "no" of "have no parking" is no cell of another flag)
        said_as = f"{'no' if denied else 'a'} {column.name}"
        found.setdefault((index, op), Condition(index, op, "", said_as))


def keeps_what_it_has(words: list[str], grid: Grid, program: Program) -> bool:
    """Whether a program keeps the rows that have (or lack) the thing the question says they
    have: "which sites have batteries?" is never the site with the smallest battery, nor "how
    many have no goals?" a total of goals. A condition of its own on the column keeps them too,
    as does reading the column itself."""
    had: dict[tuple[int, str], Condition] = {}
    had_conditions(words, grid, had)
    read = {c.column for c in program.conditions + program.anchors} | {program.target}
    return all(
        it.column in read
        and not (
            program.key == it.column and (it.op == "lacks" or program.op in ("argmax", "argmin"))
        )
        for it in had.values()
    )
