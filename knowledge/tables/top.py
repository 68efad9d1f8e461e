"""The rows with the most or the least of an amount, as many as the question asks: "which two
trucks have the highest mileage?", "the three heaviest shipments", "the 2 suppliers with the
longest lead time".

The parser ranks programs that answer with one row's cell (`argmax`, `argmin`); a question that
asks for a number of rows wants that many. `top_rows` turns the likeliest program, when it takes
the row with the most or least of a column, into `top` over the same rows and columns, taking as
many rows as the question says ("which two", "the three", "top 5"). A number said after "of
the", "in the" or "between the" names a group to compare within or a rank ("which of the two
...", "in the top 10"), not how many to take.
"""

from __future__ import annotations

import re

from knowledge.tables.parser import Candidate
from knowledge.tables.programs import Grid, Program, fold, kept_rows, run
from knowledge.tables.said import NUMBER_WORDS

_COUNT = r"(\d{1,2}|" + "|".join(NUMBER_WORDS) + r")"
# "which two ...", "what three ...", "the three heaviest", "our three biggest", "top 5": not
# "of the two", "in the top 10" (a condition on a rank), "between the two".
_ASKED = re.compile(
    rf"(?:\b(?:which|what|name|list)\s+(?:are\s+)?(?:the\s+)?|(?<!\bof )(?<!\bin )"
    rf"(?<!\bbetween )\bthe\s+(?:top\s+)?|^top\s+|\bwhich\s+top\s+){_COUNT}\b"
    # "Which are our three biggest sites?": after "our", only before an order said (not "our
    # two-week promo", "across our three regions").
    rf"|(?:^|\b(?:which|what)\s+(?:are\s+)?)(?:our|my|your|their)\s+{_COUNT}\s+"
    rf"(?=\w+est\b|most\b|least\b|top\b|best\b|worst\b)"
)


def asked_rows(question: str) -> int:
    """Return how many rows the question asks for when it asks for more than one ("which two",
    "the three heaviest", "top 5"), else 0."""
    match = _ASKED.search(fold(question))
    if match is None:
        return 0
    said = match.group(1) or match.group(2)
    count = int(said) if said.isdigit() else NUMBER_WORDS[said]
    return count if count >= 2 else 0


def top_rows(question: str, grid: Grid, found: list[Candidate]) -> Candidate | None:
    """Return the likeliest program taken for as many rows as the question asks, when it takes
    the row with the most or the least of a column and the question asks for two or more
    (fewer than the rows it keeps), or takes the most or the least itself and a program the
    parser ranks below takes its row ("which two partners took the most orders?" names them,
    not the most orders); None otherwise."""
    lead = _taking_a_row(grid, found)
    if lead is None:
        return None
    count = asked_rows(question)
    best = lead.program
    if not count or count >= len(kept_rows(grid, best.conditions)):
        return None
    program = Program(
        "top",
        target=best.target,
        key=best.key,
        conditions=best.conditions,
        k=count,
        ascending=best.op == "argmin",
    )
    result = run(program, grid)
    if result is None or len(result.values) < count:
        return None
    return Candidate(program, result, lead.features, lead.score)


def _taking_a_row(grid: Grid, found: list[Candidate]) -> Candidate | None:
    """Return the likeliest program when it takes the row with the most or least of a column,
    or when it takes the most or least itself, the first program that takes its row and names
    it by a text column."""
    if not found:
        return None
    program = found[0].program
    if program.op in ("argmax", "argmin"):
        return found[0]
    if program.op not in ("max", "min"):
        return None
    op = "argmax" if program.op == "max" else "argmin"
    return next(
        (
            c for c in found
            if c.program.op == op and c.program.key == program.key
            and c.program.conditions == program.conditions
            and not grid.columns[c.program.target].numeric
        ),
        None,
    )  # fmt: skip
