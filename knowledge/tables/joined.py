"""Two tables read as one where a column of the first names the rows of the second.

A team keeps its facts in several tables that name each other: a sheet of events says each
event's Venue, and a sheet of venues says each venue's Capacity, Rent and Manager; a CSV of bugs
says who each is Assigned to, and the team's table each person's Team and Day rate. "How many
attendees are we expecting at the events held in the venue Tiago Alves manages?", "which team
is the developer of LS-102 in?" and "the day rate of whoever has the most recent bug" need a
column of each. The store reads such a pair as one table: the first's rows, each with the
cells of the second's row its column names beside them (empty where it names none), so that
one program over one table (a sum of Attendees where Manager is Tiago Alves, a lookup of Team
where Bug is LS-102, the Day rate of the row with the latest Reported) answers. Two tables are
linked when a text column of the first holds, for at least LINKED_SHARE of its different cells
(and at least two of them, or its one), a cell of a column of the second whose every cell
differs from the others (the second's rows' names). The joined grid keeps the first table's
rows, row numbers and passages; an answer cites the rows it read of the first table and the
rows of the second they name (`Joined.chunks`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from knowledge.chunk_kinds import SECTION_SEPARATOR
from knowledge.tables.cells import DATE, MISSING, names_its_rows
from knowledge.tables.choice import Joined
from knowledge.tables.programs import Column, Grid, fold, kept_rows
from knowledge.tables.question import STOPWORDS, header_overlap, read_question, stem
from knowledge.tables.rules import asks_for_its_operation, unaccounted

# The share of a column's different cells the other table's rows must name.
LINKED_SHARE = 0.6
# How likely a program that reads both tables must be, against the parser's likeliest, to stand
# in its place (`reading_both`).
LIKELY_SHARE = 0.25
# Headers of a column that sorts rows into kinds: its cells name no row even where each row's
# differs (a fleet of one bike of each Type is no key the refurbished bikes' Type names), unless
# it leads its table (a sheet of service intervals by Type).
_CLASSES = frozenset(
    "type types kind category class status level grade size tier band group colour color "
    "gender priority stage".split()
)
# Shown between the two tables' labels in the joined grid's label.
JOINED = " + "


def links(first: Grid, second: Grid) -> list[tuple[int, int]]:
    """Return each (first's column, second's key column) that links the two: for each column of
    the first, the key whose rows it names most."""
    keys = [
        (index, {folded for folded in column.folded if folded})
        for index, column in enumerate(second.columns)
        if not column.numeric
        and column.type != DATE
        and names_its_rows(column)
        and (index == 0 or not set(fold(column.name).split()) & _CLASSES)
    ]
    found = []
    for index, column in enumerate(first.columns):
        if column.numeric or column.type == DATE or not keys:
            continue
        cells = {folded for folded in column.folded if folded and folded not in MISSING}
        matched, key = max((len(cells & names), key) for key, names in keys)
        if matched and matched >= min(2, len(cells)) and matched >= LINKED_SHARE * len(cells):
            found.append((index, key))
    return found


def _stems(text: str) -> set[str]:
    return {stem(word) for word in fold(text).split() if word not in STOPWORDS}


def names_the_link(question: str, first: Grid, second: Grid, column: int, key: int) -> int:
    """How the question names what links the two: 2 by the first's column ("the venue of the
    Spring Gala", "the nurse working the 13 June clinic", "requested by"), 1 only by the
    second's key or what its label names that the first's does not ("our Berlin-based agents"),
    0 not at all."""
    stems = read_question(question).stems
    theirs = " ".join(set(fold(second.label).split()) - set(fold(first.label).split()))
    if _said(_stems(first.columns[column].name), stems):
        return 2
    return int(_said(_stems(second.columns[key].name) | _stems(theirs), stems))


def _said(words: set[str], stems: set[str]) -> bool:
    """Whether the question says one of the words as it is or by its first five letters
    ("assigned" for an Assignee)."""
    return bool(words & stems or {word[:5] for word in words} & {word[:5] for word in stems})


def asks_of_the_second(question: str, first: Grid, second: Grid, key: int) -> bool:
    """Whether the question says a word of the second table's label or headers (but its key's)
    that the first's do not say, or a cell of it the first does not hold: "the venue
    Tiago Alves manages" of events beside venues (their Manager), "the day rate of whoever ..."
    of bugs beside the team (its Day rate)."""
    stems, text = read_question(question).stems, f" {fold(question)} "
    # The first's label words, but those the second's label says too (two sheets of one
    # workbook share its file's name).
    label = set(fold(first.label).split()) - set(fold(second.label).split())
    here = {stem(word) for word in label} | {
        stem(word) for column in first.columns for word in fold(column.name).split()
    }
    theirs = set(fold(second.label).split()) - set(fold(first.label).split())
    if ({stem(word) for word in theirs if word not in STOPWORDS} - here) & stems:
        return True  # "invoiced" of invoices.pdf
    for index, column in enumerate(second.columns):
        if index == key or getattr(column, "row_total", False):
            continue
        words = {stem(word) for word in fold(column.name).split() if word not in STOPWORDS}
        if (words - here) & stems:
            return True
        if not column.numeric and any(
            len(cell) > 2
            and f"|{cell}|" not in first.cell_text
            and re.search(rf"(?<!\w){re.escape(cell)}(?!\w)", text)
            for cell in set(column.folded)
        ):
            return True
    return False


def _matches(first: Grid, second: Grid, column: int, key: int) -> list[int | None]:
    """Return, for each row of the first, the second's row its `column` names (None for none)."""
    rows = {folded: row for row, folded in enumerate(second.columns[key].folded) if folded}
    return [rows.get(folded) if folded else None for folded in first.columns[column].folded]


def joined(first: Grid, second: Grid, column: int, key: int, matches=None) -> Grid:
    """Return the first grid with the second's columns (but its key) beside its rows, each row's
    cells those of the second's row that its `column` names (`matches`, when known)."""
    matches = _matches(first, second, column, key) if matches is None else matches
    names = {fold(c.name) for c in first.columns}
    added = [
        _beside(theirs, matches, first.columns[column].name, fold(theirs.name) in names)
        for index, theirs in enumerate(second.columns)
        if index != key and not getattr(theirs, "row_total", False)
    ]
    # "clinics.xlsx › Budgets + Clinics": a second sheet of the same file by its own name.
    mine, theirs = first.label.split(SECTION_SEPARATOR), second.label.split(SECTION_SEPARATOR)
    shared = len(theirs) > 1 and mine[0] == theirs[0]
    second_label = SECTION_SEPARATOR.join(theirs[1:]) if shared else second.label
    # The first's total over its months stays last, where the store reads it (totals.py).
    own = [c for c in first.columns if not getattr(c, "row_total", False)]
    total = [c for c in first.columns if getattr(c, "row_total", False)]
    return replace(
        first,
        label=f"{first.label}{JOINED}{second_label}",
        columns=[*own, *added, *total],
    )


def _beside(theirs: Column, matches: list[int | None], by: str, taken: bool) -> Column:
    """Return the second table's column as the first's rows read it."""

    def cells(values: list, empty):
        return [values[row] if row is not None else empty for row in matches]

    column = replace(
        theirs,
        # "Team of Assignee" where the first table has a Team of its own.
        name=f"{theirs.name} of {by}" if taken else theirs.name,
        texts=cells(theirs.texts, ""),
        folded=cells(theirs.folded, ""),
        numbers=cells(theirs.numbers, None),
        items=cells(theirs.items, frozenset()) if theirs.items else [],
        from_rows=matches,
    )
    # A column of days the second table added is read only when asked for, here too
    # (knowledge/tables/between.py).
    if getattr(theirs, "days_between", False):
        column.days_between = True
    return column


def joined_tables(question: str, tables: list[tuple[int, float, tuple]]) -> list[tuple]:
    """Return, for the tables tried (id, vote, (grid, document, file name, KB)), each link of two
    that the question names and asks of both, as one table: (the first's id, the two tables'
    votes together, (the joined grid, the first's document, file name and KB), (the first's
    number of columns, the second's id and the second's row chunk for each row: `Joined`)).
    An answer cites both tables' rows."""
    found = []
    for table_id, vote, (first, *rest) in tables:
        for other_id, other_vote, (second, *_) in tables:
            if other_id == table_id:
                continue
            named = {
                link: names_the_link(question, first, second, *link)
                for link in links(first, second)
            }
            for column, key in named:
                # Of two links to the same table ("Requested by", "Approved by"), those the
                # question names by the first's column, when it names any so.
                if not (
                    named[column, key] == max(named.values())
                    and named[column, key]
                    and asks_of_the_second(question, first, second, key)
                    and asks_of_the_second(question, second, first, column)
                ):
                    continue
                matches = _matches(first, second, column, key)
                grid = joined(first, second, column, key, matches)
                chunks = tuple(None if row is None else second.chunk_ids[row] for row in matches)
                joined_as = Joined(
                    sum(not _total(first, i) for i in range(len(first.columns))), other_id, chunks
                )
                found.append((table_id, min(1.0, vote + other_vote), (grid, *rest), joined_as))
    return found


def reads_both(choice, question: str) -> bool:
    """Whether a program over two tables read as one reads, of each, a column the question
    names: a condition on a cell it says (of the second, one the first does not hold: "the
    2026 budget" is the first's Budget 2026), a header it says as the answer or the key, or of
    the first the amount a total adds ("how much have we invoiced"). "The events held in the
    venue Tiago Alves manages": their Attendees where the venues' Manager is Tiago Alves. An
    order over one row reads no key."""
    if choice.joined is None:
        return False
    program, read, grid = choice.best.program, read_question(question), choice.grid
    # The first's columns: those before the second's, and its total over its months, last.
    mine = {*range(choice.joined.columns), *(i for i in [len(grid.columns) - 1] if _total(grid, i))}
    named = program.conditions + program.anchors
    # The first's cells and headers: what a condition on the second must not be said of.
    held = "|".join(
        text
        for i in mine
        for text in (*grid.columns[i].folded, *fold(grid.columns[i].name).split())
    )
    held = f"|{held}|"
    key = program.key
    if program.op in _ORDERS and len(kept_rows(grid, tuple(program.conditions))) <= 1:
        key = None
    said = {
        index
        for index in (program.target, key)
        if index is not None and header_overlap(grid.columns[index].name, read) >= 0.5
    }
    if program.op in ("sum", "avg") and key in mine:
        said.add(key)
    said |= {c.column for c in named if c.column in mine}
    said |= {
        c.column for c in named if c.column not in mine and f"|{fold(str(c.value))}|" not in held
    }
    return bool(said & mine) and bool(said - mine)


def _total(grid, index: int) -> bool:
    return getattr(grid.columns[index], "row_total", False)


def reading_both(question: str, choice, found: list) -> object | None:
    """Return, of the parser's programs over two tables read as one (its likeliest first), the
    first that reads both (`reads_both`) with an operation a word asks for; None when none does.
    "Who hosts the rooms of the talks with an audience over 70?" lists the hosts of those talks'
    rooms, not the host of the first such talk's room, which no word asks for."""
    likeliest = max(candidate.score for candidate in found)
    for candidate in found:
        if candidate.score < LIKELY_SHARE * likeliest:
            continue
        trial = replace(choice, best=candidate)
        if reads_both(trial, question) and asks_for_its_operation(question, trial):
            return candidate
    return None


# The operations that order rows by a key.
_ORDERS = frozenset("argmax argmin top max min first last".split())


def before_either(tried: list[tuple], question: str) -> list[tuple]:
    """Return the tried programs with a program over two tables read as one in place of those
    over either alone when it reads both (`reads_both`), a word asks for its operation, and it
    leaves no more of the question's words than theirs do (rules.unaccounted): "the events held
    in the venue Tiago Alves manages" counts no venues, and "which of our productions did the
    associate director direct?" asks for Productions, not the director. A program over two that
    does not is dropped: the question asks of one."""
    kept = [(c, standing) for c, standing in tried if c.joined is None]
    for choice, standing in tried:
        if not reads_both(choice, question) or not asks_for_its_operation(question, choice):
            continue
        left = len(unaccounted(question, choice))
        alone = [
            pair for pair in kept if pair[0].table_id in (choice.table_id, choice.joined.second)
        ]
        if all(left <= len(unaccounted(question, c)) for c, _ in alone):
            kept = [pair for pair in kept if not any(pair is other for other in alone)]
            kept.append((choice, standing))
    return kept
