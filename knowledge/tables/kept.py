"""Which rows a program keeps, as a team asks for them: every category the question names
("how many free events were held?" counts the Free rows that were Held, not only one of the
two), none the question excludes ("not an ABC channel"), and no single row's amount for "how
many <amount>" when the question names no row, no place and no order; and no average the
question does not ask for.

The parser ranks programs by what WikiTableQuestions' training questions ask (one condition
more often than two); these rules read what a team's questions say of their own tables. Each
was measured on the dev fifth of WikiTableQuestions' training split (`bench/table_parser.py`)
and on the team-tables sets (`bench/team_tables.py`).
"""

from __future__ import annotations

import re

from knowledge.tables.asked import ASKS_ORDER
from knowledge.tables.cells import names_its_rows
from knowledge.tables.change import is_period
from knowledge.tables.counted import amount_asked
from knowledge.tables.flags import negated
from knowledge.tables.parser import Candidate
from knowledge.tables.periods import named_periods
from knowledge.tables.programs import Grid, fold, kept_rows
from knowledge.tables.question import STOPWORDS, asked_direction, stem
from knowledge.tables.said import says_a_superlative
from knowledge.tables.vocabulary import LOOKS_AFTER


def keeps_what_it_excludes(question: str, candidate: Candidate) -> bool:
    """Whether a program keeps the rows whose cell holds what the question excludes ("how many
    channels are not an ABC channel?" counts no rows that hold "abc"; "other than Porto"):
    the words a condition reads follow "not", "besides", "other than" within three words."""
    padded = f" {fold(question)} "
    return any(
        condition.op in ("eq", "contains")
        and isinstance(condition.value, str)
        and negated(padded, condition.value)
        for condition in candidate.program.conditions
    )


# Words that ask for an average: "how many hours do the volunteers give?" asks for their total.
_AVERAGED = frozenset("average averages averaged mean typical typically usually per avg".split())


def averages_as_asked(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a program is no average, or one a word of the question asks for; and no total
    when the question asks for an average no header says ("on average, how many hours does a
    refurb take?" adds up no Hours; "the highest average attendance" reads a column)."""
    words = set(fold(question).split())
    if candidate.program.op == "sum" and words & _AVERAGE:
        headers = {word for column in grid.columns for word in fold(column.name).split()}
        return bool(words & _AVERAGE & headers)
    return candidate.program.op != "avg" or bool(_AVERAGED & words)


_AVERAGE = frozenset("average mean".split())


def _named_cells(candidate: Candidate, grid: Grid) -> frozenset[tuple[int, str]]:
    """The cells a program's conditions name whole that keep some rows, not all."""
    return frozenset(
        (c.column, str(c.value)) for c in candidate.program.conditions
        if c.op == "eq" and len(kept_rows(grid, (c,))) < grid.size
    )  # fmt: skip


def keeps_every_named_cell(question: str, grid: Grid, found: list[Candidate]) -> list[Candidate]:
    """Return the candidates without the counts that keep fewer of the cells the question names
    whole than another count that keeps them all and some rows: "how many free events were
    held?" is no count of every held event. Only cells of different columns add up (two cells
    of one column are either one or the other), each said in words of its own ("did not
    qualify" found in two columns is said once), each keeping some rows but not all; not when
    the question offers either ("how many classes are free or running?")."""
    if {"or", "either"} & set(fold(question).split()):
        return found
    counts = [c for c in found if c.program.op == "count" and c.result.rows]
    most = max((_named_cells(c, grid) for c in counts), key=len, default=frozenset())
    words = [word for _, value in most for word in value.split()]
    if (
        len(most) < 2
        or len({column for column, _ in most}) < len(most)
        or len(set(words)) < len(words)
    ):
        return found  # one column twice, or one word said once read in two columns
    return [c for c in found if c.program.op != "count" or not _named_cells(c, grid) < most]


# Words that name a place among the rows: "how many came to the last game?" reads one row.
_PLACES = frozenset("first last top bottom final latest next previous earliest recent".split())
# The programs that answer with one row's amount.
_ONE_ROW = ("first", "last", "argmax", "argmin", "max", "min")


def reads_no_unasked_row(words: list[str], grid: Grid, candidate: Candidate) -> bool:
    """Whether a program answering "how many <amount>" with one row's amount has a row to read:
    a condition that names it, a place ("the last game") or an order ("the most"). "How many
    children took part in the reading challenge?" is no first (nor least) row's Children."""
    program = candidate.program
    if program.op not in _ONE_ROW or program.conditions or _PLACES & set(words):
        return True
    read = program.target if program.target is not None else program.key
    after = amount_asked(words)
    if asked_direction(words) or read is None or not after:
        return True
    return stem(after) not in {stem(w) for w in fold(grid.columns[read].name).split()}


# "Which suppliers ...": a plural noun right after "which" or "what" (not "status" nor "class").
_WHICH_PLURAL = re.compile(
    r"^(?:which|what) (?:(?:of (?:the|our|their) )(?:\w+ )??)?(\w+[^su\W]s)\b"
)
# Words that ask for one row of several by its place: "which teams played first?".
_PLACE_WORDS = frozenset("first last earliest latest next previous top bottom".split())


def names_every_kept_row(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a program answers "which <things> ...?", asked of no place in an order, with every
    row its conditions keep, not the first or the last of several: "which suppliers deliver
    within two days?" names the three that do."""
    program = candidate.program
    if program.op not in ("first", "last", "argmax", "argmin") or not program.conditions:
        return True
    folded = fold(question)
    match = _WHICH_PLURAL.match(folded)
    if not match or match.group(1) in STOPWORDS or set(folded.split()) & _PLACE_WORDS:
        return True
    words = folded.split()
    if program.op in ("argmax", "argmin") and (
        set(words) & ASKS_ORDER or says_a_superlative(words)
    ):
        return True
    return len(kept_rows(grid, program.conditions)) < 2


def asks_for_the_only_row(question: str, choice) -> bool:
    """Whether the question asks for the one row a condition keeps ("the only album released
    in 2001", "which racer only had 4 points?") and the program's condition keeps exactly one:
    that no other row holds it is what the table says, and no row's chunk alone. On the dev
    fifth of WikiTableQuestions' training tables, such lookups that the passages left
    unanswered were right 7 times in 10 on half a, 5 in 7 on half b (CHANGELOG, 2026-12-05)."""
    program = choice.best.program
    return (
        "only" in fold(question).split()
        and program.op == "values"
        and bool(program.conditions)
        and len(kept_rows(choice.grid, program.conditions)) == 1
    )


def counts_no_named_cell(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a count is no count of the one row a name keeps when the question names a
    column of a period too (a month's, a year's, a quarter's): "how many consultations did
    Millbrook see in October 2025?" of a sheet of sites by month asks for Millbrook's Oct 2025,
    not for the 1 row of Millbrook. The count keeps its row by names alone, each in a text
    column whose cells all differ (so it is 1 whatever is asked). Not any numeric column named: "how many other symbols than kr are extended to
    the 30th?" counts the rows of a 30th (on WikiTableQuestions' fit questions that cost one
    right count and gained none)."""
    program = candidate.program
    if program.op != "count" or len(candidate.result.rows) != 1 or not program.conditions:
        return True
    columns = [grid.columns[c.column] for c in program.conditions]
    if not all(c.op == "eq" for c in program.conditions) or not all(
        not column.numeric and names_its_rows(column) for column in columns
    ):
        return True
    periods = [index for index, column in enumerate(grid.columns) if is_period(column)]
    return not named_periods(fold(question).split(), grid, periods)


def reads_no_row_after(question: str, candidate: Candidate) -> bool:
    """Whether a program that reads the row after or before a named one is asked for it by a
    word of order other than the "after" of "looks after": "ring whoever looks after the raku
    kiln" asks for the kiln's own row."""
    if candidate.program.op not in ("next", "previous"):
        return True
    folded = fold(question)
    if not LOOKS_AFTER.search(folded):
        return True
    return bool(set(LOOKS_AFTER.sub(" ", folded).split()) & ASKS_ORDER)
