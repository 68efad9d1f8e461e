"""A question that offers its answers, "A or B?": which two things it offers, and the one the
row it names holds.

The answer to "did Alain Prost have McLaren-Honda or Ferrari as the constructor in 1988?" is one
of the two: the candidates that answer with one of them come first (`picks_an_offered_cell`),
and the one a row holds with every other name the question says is a program of its own
(`offered_row`), which the ranker seldom proposes or ranks high. Read from half a of the dev
fifth of WikiTableQuestions' training split, measured on both halves.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace

from knowledge.tables.asked import ASKS_ORDER, asked_column, holds_times
from knowledge.tables.parser import Candidate
from knowledge.tables.programs import Condition, Grid, Program, display, fold, kept_rows, run
from knowledge.tables.question import header_overlap, is_outcome, mentions, read_question
from knowledge.tables.said import NUMBER_WORDS, says_a_superlative

# Words that may stand between "or" and the second thing offered ("for Houston or for
# Jacksonville", "against Virginia Tech or Alabama").
_OPTION_LEADS = ("", "the ", "for ", "at ", "against ", "in ", "by ")


def offered_cells(question: str, grid: Grid) -> tuple[list[str], int | None]:
    """Return the two things of one column a question offers as its answers, said "A or B", and
    that column; ([], None) when it offers none. Each is a cell it says whole ("did Alain Prost
    have McLaren-Honda or Ferrari as the constructor in 1988?") or words that some of the
    column's cells hold ("did they play Virginia Tech or Alabama on September 8?" of "at #13
    Alabama")."""
    padded = f" {fold(question)} "
    # The words of each part of the question between commas (a list "1950, 1968, or 1969"
    # offers its last two, not "1950 1968").
    parts = [fold(part).split() for part in _PARTS.split(question)]
    said: dict[int, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    for condition in mentions(read_question(question), grid):
        if condition.op in ("eq", "contains") and not is_outcome(condition):
            said[condition.column][condition.op == "contains"].append(str(condition.value))
    for column, (cells, words) in said.items():
        phrases = [*cells, *(run for part in parts for run in _word_runs(part, set(words)))]
        for one in phrases:
            for other in phrases:
                if one != other and any(
                    f" {one} or {lead}{other} " in padded for lead in _OPTION_LEADS
                ):
                    return [one, other], column
    return [], None


# Where a question's parts end: a comma, a colon or a question mark.
_PARTS = re.compile(r"[,;:?]")


def _word_runs(words: list[str], held: set[str]) -> list[str]:
    """Return the runs of words all of which some cells hold, each said together ("virginia
    tech")."""
    runs, current = [], []
    for word in [*words, ""]:
        if word in held:
            current.append(word)
        elif current:
            runs.append(" ".join(current))
            current = []
    return runs


def _picked(values: list, options: list[str]) -> str:
    """Return the one offered thing a single result is or holds ("" for none, or for both)."""
    if len(values) != 1:
        return ""
    said = f" {fold(display(values[0]))} "
    held = [option for option in options if said.strip() and f" {option} " in said]
    return held[0] if len(held) == 1 else ""


def as_offered(text: str, option: str) -> str:
    """Return the offered thing as the cell writes it: the cell itself when it is that, else
    the words of it the cell holds ("Alabama" of "at #13 Alabama")."""
    if fold(text) == option:
        return text
    pattern = r"[\W_]+".join(re.escape(word) for word in option.split())
    found = re.search(rf"(?<!\w){pattern}(?!\w)", text, re.IGNORECASE)
    return found.group(0) if found else text


def picks_an_offered_cell(question: str, grid: Grid, found: list[Candidate]) -> list[Candidate]:
    """Return the candidates that answer with one of the two things the question offers first,
    when some do: the answer to "A or B?" is A or B. Those that read it from the row the
    question names by another cell come before those comparing A's row with B's ("did Jason
    Leffler race for Braun Racing or Michael Waltrip Racing?" is his row's Team)."""
    options, column = offered_cells(question, grid)
    if not options:
        return found

    def reads_its_row(candidate: Candidate) -> bool:
        program = candidate.program
        return (
            program.target == column
            and bool(program.conditions)
            and all(c.column != column for c in program.conditions)
        )

    picking = [c for c in found if _picked(c.result.values, options)]
    first = [c for c in picking if reads_its_row(c)] or picking
    return first + [c for c in found if c not in first]


# The probability that the one of two offered cells a row holds with the question's other names
# is right (`offered_row`): measured on the dev fifth of WikiTableQuestions' training split.
OFFERED_RIGHT = 0.8


def offered_row(question: str, grid: Grid, found: list[Candidate]) -> Candidate | None:
    """Return the one of the two things a question offers ("did Alain Prost have McLaren-Honda
    or Ferrari as the constructor in 1988?") that some row holds with every other name the
    question says ("Prost", "1988"), read from those rows, when only one does; else None. When
    none or both do, the names it says whole alone ("did Lantern come out in 1994 or 1997?":
    Lantern, not the word "come" some other title holds). The ranker proposes one condition or
    two, and reads "Prost" alone (his Ferrari year) as readily as "1988"; the offered things
    say which rows the question is about. The answer is the thing offered, as the cell writes
    it ("Alabama" of "at #13 Alabama")."""
    options, column = offered_cells(question, grid)
    if not options or column is None:
        return None
    groups: dict[str, list] = {}
    for condition in mentions(read_question(question), grid):
        value = fold(str(condition.value))
        if condition.column == column or any(value in o or o in value for o in options):
            continue
        groups.setdefault(f"{condition.op} {value}", []).append(condition)
    # A name inside a longer one ("prost" in "alain prost") is the same name; "19" is not in
    # "1975".
    said = {key: f" {key.split(' ', 1)[1]} " for key in groups}
    names = [n for n in groups if not any(n != m and said[n] in said[m] for m in groups)]
    whole = [n for n in names if n.startswith("eq ")]
    for chosen in (names, whole if whole != names else []):
        if chosen:
            made = _offered_from(grid, column, options, [groups[n] for n in chosen])
            if made is not None:
                return made
    return None


def _offered_from(
    grid: Grid, column: int, options: list[str], named: list[list[Condition]]
) -> Candidate | None:
    """Return the one offered thing the rows holding every name hold (each name one of its
    conditions), read from those rows; None when none or both are held."""
    cells = grid.columns[column]
    # A cell that is the thing (or lists it among its items), or holds its words together.
    offered = {option: (Condition(column, "eq", option), Condition(column, "contains", option))
               for option in options}  # fmt: skip
    kept = {
        option: [
            row
            for row in range(grid.size)
            if any(c.holds(grid, row) for c in offered[option])
            and all(any(c.holds(grid, row) for c in conditions) for conditions in named)
        ]
        for option in options
    }
    holding = [option for option in options if kept[option]]
    if len(holding) != 1:
        return None
    row = kept[holding[0]][0]
    conditions = tuple(next(c for c in group if c.holds(grid, row)) for group in named)
    program = Program("values", target=column, conditions=conditions)
    result = run(program, grid)
    if result is None or any(_picked([v], options) != holding[0] for v in result.values):
        return None
    # The thing offered once, however many rows hold it.
    result.values = [as_offered(cells.texts[row], holding[0])]
    return Candidate(program, result, {}, OFFERED_RIGHT)


# Words that add two named rows up, and words that compare them instead ("how many more …
# than … combined" compares).
_ADDS_UP = frozenset("combined together altogether total sum add added".split())
_COMPARES = frozenset("more less fewer than difference differ minus".split())


def added_pair(question: str, grid: Grid, found: list[Candidate]) -> Candidate | None:
    """Return the sum of the two rows the question names when it adds them up ("How many beds
    do Braga and Faro have combined?", "the total land area of Toronto and Hamilton"), or None.
    The ranker proposes those two rows compared on a column (their difference,
    the more or the less), never added; the sum reads the column of the likeliest comparison,
    and is as likely as the comparisons of those rows on that column together."""
    words = set(fold(question).split())
    if not words & _ADDS_UP or words & _COMPARES:
        return None
    pairs = [c for c in found if c.program.op in ("diff", "more", "less")]
    if not pairs:
        return None
    likeliest = max(pairs, key=lambda c: c.score).program
    program = Program("plus", key=likeliest.key, anchors=likeliest.anchors)
    result = run(program, grid)
    if result is None:
        return None
    score = sum(
        c.score for c in pairs
        if (c.program.key, c.program.anchors) == (program.key, program.anchors)
    )  # fmt: skip
    return Candidate(program, result, {}, score)


# Words that ask which of two named things has more, or fewer.
_MORE = frozenset("more most larger largest greater greatest".split())
_FEWER = frozenset("fewer fewest less least".split())


def counted_options(question: str, grid: Grid, found: list[Candidate]) -> Candidate | None:
    """Return which of two named cells more (or fewer) rows hold when the question compares them
    on no column ("are there more films in Tamil or Telugu?", "who had more drivers, Team Avanti
    or Motaworld Racing?"), or None. The ranker compares two named rows on a numeric column,
    the likeliest it can find even when the question names none; a cell that several rows hold
    is a group, and "more" of it is more rows."""
    words = set(fold(question).split())
    asks = "more" if words & _MORE else "less" if words & _FEWER else ""
    if not asks or words & _MORE and words & _FEWER:
        return None
    pairs = [c for c in found if c.program.op in ("more", "less") and c.program.key is not None]
    if not pairs:
        return None
    anchors = max(pairs, key=lambda c: c.score).program.anchors
    read = read_question(question)
    if any(column.numeric and header_overlap(column.name, read) >= 0.5 for column in grid.columns):
        return None  # it names the column to compare on
    if max(len(kept_rows(grid, (anchor,))) for anchor in anchors) < 2:
        return None  # two rows, not two groups
    program = Program(asks, anchors=anchors)
    result = run(program, grid)
    if result is None:
        return None
    score = sum(c.score for c in pairs if c.program.anchors == anchors)
    return Candidate(program, result, {}, score)


# Words that ask for what several named rows come to: "what are the two Castlebridge Council
# contracts worth between them?", "their fees combined".
_TOGETHER = frozenset("total altogether combined together".split())
# Header words of numbers that are no amounts to add: years, ranks, places, identifiers.
_NO_AMOUNT = frozenset("year years rank ranking position pos place peak no id number ref".split())


def summed_values(question: str, grid: Grid, found: list[Candidate]) -> Candidate | None:
    """Return the sum of the amounts the likeliest program reads of several kept rows (lists,
    or takes the first, the last, the least or the most of) when the question asks what they
    come to together (a word of totalling, or "between them"), or None: the ranker reads the
    first of the two contracts' Values where the question asks for their total."""
    folded = fold(question)
    words = set(folded.split())
    if not found or not (words & _TOGETHER or "between them" in folded):
        return None
    if "each" in words or words & ASKS_ORDER or says_a_superlative(folded.split()):
        return None  # "each one's total", "the larger of the two"
    program = found[0].program
    column = program.key if program.op in ("min", "max") else program.target
    kept = len(kept_rows(grid, program.conditions))
    # A program that reads one of the rows sums them only when the question says how many
    # they are ("the two … contracts", "both"): "the total number of events" is no sum.
    counted = kept == 2 and "both" in words or any(NUMBER_WORDS.get(w) == kept for w in words)
    if program.op != "values" and not (counted and program.op in ("first", "last", "min", "max")):
        return None
    if column is None or not grid.columns[column].numeric or kept < 2:
        return None
    if set(fold(grid.columns[column].name).split()) & _NO_AMOUNT or holds_times(
        grid.columns[column]
    ):
        return None
    made = Program("sum", key=column, conditions=program.conditions)
    result = run(made, grid)
    return None if result is None else Candidate(made, result, {}, found[0].score)


def compared_as_asked(question: str, grid: Grid, found: list[Candidate]) -> Candidate | None:
    """Return the likeliest comparison of two named rows answered with the column a "which"
    question names, when that is not the column that names them: "which building collected
    more rent in March: Colin Hart's or Mei Lin's?" is the Building of the one of the two with
    the more March, not the name; None otherwise."""
    if not found or found[0].program.op not in ("more", "less"):
        return None
    program = found[0].program
    asked = asked_column(question, grid)
    if program.key is None or program.target is not None or asked is None:
        return None
    if asked in {anchor.column for anchor in program.anchors}:
        return None
    program = replace(program, target=asked)
    result = run(program, grid)
    return None if result is None else Candidate(program, result, found[0].features, found[0].score)
