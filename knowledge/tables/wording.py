"""A program in words, as the answer shows it: what it did ("Counted", "Took … of the row with
the most …"), over which rows of which table, with its conditions said ("Staff > 50"); and its
result as the answer says it ("Braga, Faro and Evora") and asserts it as data (`answer_values`)."""

from __future__ import annotations

from knowledge.tables.cells import NUMBER, read_cell
from knowledge.tables.choice import TableChoice
from knowledge.tables.programs import (
    AGAINST,
    ALONG_A_ROW,
    Condition,
    Grid,
    Program,
    Result,
    display,
    kept_rows,
)
from knowledge.tables.question import outcome_of


def _said_condition(grid: Grid, c: Condition) -> str:
    """Return a condition in words: "Status is not Done", "Staff > 50", "Result is a win (W)"."""
    outcome = outcome_of(c)
    if outcome:
        return f"{grid.columns[c.column].name} is a {outcome} ({str(c.value).upper()})"
    if c.op in AGAINST:  # "Achieved (%) < Target (%)"
        return f"{grid.columns[c.column].name} {AGAINST[c.op]} {c.said}"
    if c.op == "blank":
        return f"{grid.columns[c.column].name} is empty"
    if c.op in ("has", "lacks"):  # "Battery (kWh) has a value", "Battery (kWh) has none"
        return f"{grid.columns[c.column].name} has {'a value' if c.op == 'has' else 'none'}"
    if c.op == "months":  # "Month is in the first quarter"
        return f"{grid.columns[c.column].name} is in the {c.said}"
    symbol = {"eq": "is", "contains": "contains", "ne": "is not", "gt": ">", "lt": "<",
              "ge": "≥", "le": "≤", "month": "is in", "year": "is in", "day": "is on"}[c.op]  # fmt: skip
    if c.op in ("ne", "month", "year", "day") and c.said:
        value = c.said
    elif isinstance(c.value, str):
        value = c.said if c.op == "eq" and c.said else c.value
    else:
        value = f"{c.value:g}"
    return f"{grid.columns[c.column].name} {symbol} {value}"


def _rows_read(program: Program, grid: Grid, result: Result) -> str:
    """Return the rows a program read in words: "12 rows of sites.xlsx where Staff > 50"."""
    where = (
        " where " + " and ".join(_said_condition(grid, c) for c in program.conditions)
        if program.conditions
        else ""
    )
    # The rows the program read: those its conditions keep (all rows without one).
    n = (
        len(result.rows)
        if program.op in ("count", "values", "sum", "avg")
        else len(kept_rows(grid, program.conditions))
    )
    return f"{n} row{'s' if n != 1 else ''} of {grid.label}{where}"


def in_words(program: Program, grid: Grid, result: Result) -> str:
    """Return the program as a sentence: what it did, over which rows of which table."""
    columns = grid.columns

    def name(index: int | None) -> str:
        return columns[index].name if index is not None else ""

    rows = _rows_read(program, grid, result)
    op = program.op
    if op == "count":
        return f"Counted {rows}"
    if op == "streak":
        return f"Counted the longest run of consecutive rows among {rows}"
    if op == "values":
        return f"Read {name(program.target)} of {rows}"
    if op in ("sum", "avg", "max", "min"):
        verb = {"sum": "Added up", "avg": "Averaged", "max": "Took the largest",
                "min": "Took the smallest"}[op]  # fmt: skip
        return f"{verb} {name(program.key)} over {rows}"
    if op in ("argmax", "argmin"):
        most = "most" if op == "argmax" else "least"
        return f"Took {name(program.target)} of the row with the {most} {name(program.key)} among {rows}"
    if op in ("first", "last"):
        return f"Took {name(program.target)} of the {op} of {rows}"
    if op == "top":
        order = "least" if program.ascending else "most"
        return f"Took {name(program.target)} of the {program.k} rows with the {order} {name(program.key)} among {rows}"
    if op == "distinct":
        return f"Counted the different {name(program.target)} values among {rows}"
    if op == "mode":
        return f"Took the most frequent {name(program.target)} among {rows}"
    if op in ALONG_A_ROW:
        return _along_a_row(program, name(program.key), name(program.target), rows)
    anchors = " and ".join(_said_condition(grid, a) for a in program.anchors)
    if op in ("next", "previous"):
        side = "after" if op == "next" else "before"
        return (
            f"Took {name(program.target)} of the row {side} the one where {anchors} in {grid.label}"
        )
    if op == "diff":
        return f"Subtracted {name(program.key)} of the rows where {anchors} in {grid.label}"
    if op == "plus":
        return f"Added {name(program.key)} of the rows where {anchors} in {grid.label}"
    if op == "same":
        what = f"Took {name(program.target)} of" if program.target is not None else "Counted"
        return f"{what} the other rows with the same {name(program.key)} as the row where {anchors} in {grid.label}"
    more = "more" if op == "more" else "less"
    if program.key is None:
        return f"Counted the rows where {anchors} in {grid.label}: the {more}"
    its = "" if program.target is None else f", its {name(program.target)}"
    return (
        f"Compared {name(program.key)} of the rows where {anchors} in {grid.label}: the {more}{its}"
    )


def _along_a_row(program: Program, first: str, last: str, rows: str) -> str:
    """Return a program along a row's columns as a sentence."""
    op = program.op
    if op == "change":
        return f"Subtracted {last} from {first} of {rows}"
    if op in ("row_sum", "row_avg"):
        done = "Added" if op == "row_sum" else "Averaged"
        return f"{done} {first} to {last} of {rows}"
    if op in ("row_argmax", "row_argmin"):
        most = "most" if op == "row_argmax" else "least"
        return f"Compared {first} to {last} of {rows}: the column with the {most}"
    said = program.anchors[0]  # row_count: "Counted Apr 2025 to Mar 2026 of 1 row … > 1300"
    symbol = {"gt": ">", "lt": "<", "ge": "≥", "le": "≤"}[said.op]
    return f"Counted {first} to {last} of {rows} that are {symbol} {said.value:g}"


# Rows of a result cited as sources, at most.
CITED_ROWS = 8


def answer_values(values: list) -> list:
    """Return a result's values as data: numbers as numbers, the rest as text."""
    return [int(v) if isinstance(v, float) and v.is_integer() else v for v in values]


def said_values(values: list) -> str:
    """Return a result's values as the answer says them: "Braga, Faro and Evora"."""
    shown = [display(value) for value in values]
    return ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else shown[0]


def computed_text(choice: TableChoice) -> tuple[str, str]:
    """Return the computed passage's result sentence and its program in words."""
    result = choice.best.result
    said = said_values(result.values)
    words = in_words(choice.best.program, choice.grid, result)
    read = [choice.grid.columns[0].texts[row] for row in result.rows[:CITED_ROWS]]
    read = [text for text in read if text]
    if read and choice.best.program.op in ("count", "sum", "avg"):
        words += ": " + ", ".join(read) + (" …" if len(result.rows) > CITED_ROWS else "")
    for step in choice.steps:
        # A second question's answer follows the first's; a join's value is the answer.
        # A word that answers ("yes", "more") opens the sentence as a word does.
        said = (
            f"{said}; {step.header}: {step.value}" if step.kind == "row"
            else step.value[:1].upper() + step.value[1:] if step.kind == "word"
            else step.value
        )  # fmt: skip
        words = f"{words}; {step.words}"
    if choice.before is not None:
        # "Took Team of … where Service is Billing: Payments; then took Engineers of … where
        # Team is Payments" (knowledge/tables/nested.py).
        words = f"{choice.before.words}: {choice.before.value}; then {words[:1].lower()}{words[1:]}"
    return said, words


def step_values(choice: TableChoice) -> list:
    """Return the values the answer asserts: the program's, then each step's."""
    values = answer_values(choice.best.result.values)
    if not choice.steps:
        return values
    if choice.steps[-1].kind == "row":
        return values + [step.value for step in choice.steps]
    return answer_values([_typed(choice.steps[-1].value)])


def _typed(text: str):
    """Return a cell's text as a number when it is one ("4,250,000" 4250000.0)."""
    cell = read_cell(text)
    return cell.value if cell.type == NUMBER else text
