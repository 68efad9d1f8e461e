"""The offline table parser: from a question and a table, the program that answers it.

It proposes candidate programs (knowledge/tables/programs.py) from what the question says that
the table holds (read by knowledge/tables/question.py): cells it names (an anchor, or a condition that keeps rows), numbers it compares
against ("more than 5", "after 1990"), and every column as the one answered or computed on.
Each candidate is run; those that compute something are described by features (the question's
words paired with the program's operation, how well the columns' headers match the question,
what its result looks like) and ranked by a log-linear model, `score = weights · features`.

The weights are trained on WikiTableQuestions' training split only (`manage.py
train_table_parser`, knowledge/tables/training.py), by weak supervision: the candidates whose
result is the gold answer are the positives. They are small and versioned beside this file
(`parser_weights.json`: each feature's name is hashed to a bucket, and only the buckets
training gave a weight are kept). With no weights file the parser proposes nothing.
"""

from __future__ import annotations

import functools
import json
import math
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from knowledge.tables.cells import DATE
from knowledge.tables.programs import (
    Condition,
    Grid,
    Program,
    Result,
    fold,
    kept_rows,
    run,
)
from knowledge.tables.question import (
    Question,
    header_overlap,
    header_words,
    is_outcome,
    mentions,
    read_question,
    stem,
)

WEIGHTS_PATH = Path(__file__).with_name("parser_weights.json")
# Features are hashed into this many buckets: the weights file keeps only the trained ones.
HASH_BUCKETS = 1 << 20


@dataclass
class Candidate:
    program: Program
    result: Result
    features: dict[str, float]
    score: float = 0.0


def candidates(
    question: Question, grid: Grid, conditions: list[Condition]
) -> Iterator[tuple[Program, Result]]:
    """Yield every candidate program over the question's conditions that computes something,
    with its result."""
    seen: set[tuple] = set()
    for rows in _row_sets(conditions):
        yield from _over_rows(grid, rows, seen)
    yield from _anchored(grid, [c for c in conditions if _names_a_row(c, grid)])


def _names_a_row(condition: Condition, grid: Grid) -> bool:
    """Whether a condition names rows the way an anchor does: a cell the question says whole,
    or a word only one row holds ("who finished before Lakmali?" of "Nadeeka Lakmali")."""
    if condition.op == "eq":
        return True
    return (
        condition.op == "contains"
        and not is_outcome(condition)
        and len(kept_rows(grid, (condition,))) == 1
    )


def _row_sets(conditions: list[Condition]) -> list[tuple[Condition, ...]]:
    """Return the sets of conditions a program may keep rows by: none, each one, and each pair
    on two different columns, or on one column a month and a year ("in December 1955") or a
    range ("between 100 and 200", "after 1995 but before 2000")."""
    row_sets: list[tuple[Condition, ...]] = [()] + [(c,) for c in conditions]
    for i, first in enumerate(conditions):
        for second in conditions[i + 1 :]:
            if first.column != second.column or _one_column_pair(first, second):
                row_sets.append((first, second))
    return row_sets


def _one_column_pair(first: Condition, second: Condition) -> bool:
    """Whether two conditions on one column keep rows together: a month and a year, or a lower
    and an upper bound."""
    ops = {first.op, second.op}
    return ops == {"month", "year"} or (bool(ops & {"gt", "ge"}) and bool(ops & {"lt", "le"}))


def _computed(program: Program, grid: Grid) -> Iterator[tuple[Program, Result]]:
    """Yield a program with its result when it computes something."""
    result = run(program, grid)
    if result is None or result.empty:
        return
    yield program, result


def _over_rows(
    grid: Grid, rows: tuple[Condition, ...], seen: set[tuple]
) -> Iterator[tuple[Program, Result]]:
    """Yield the programs over the rows a set of conditions keeps that compute something: a
    count, a column's cells, and with one condition at most the first, last, most frequent
    and distinct values, then the aggregates and the rows ranked by each numeric column."""
    numeric = [i for i, column in enumerate(grid.columns) if column.numeric]
    columns = range(len(grid.columns))
    single = len(rows) <= 1
    yield from _computed(Program("count", conditions=rows), grid)
    for target in columns:
        if any(c.column == target and c.op == "eq" for c in rows):
            continue
        if rows:
            yield from _computed(Program("values", target=target, conditions=rows), grid)
        if single:
            yield from _computed(Program("first", target=target, conditions=rows), grid)
            yield from _computed(Program("last", target=target, conditions=rows), grid)
            if not grid.columns[target].numeric:
                yield from _computed(Program("mode", target=target, conditions=rows), grid)
                distinct = run(Program("distinct", target=target, conditions=rows), grid)
                # As many different values as rows: that is a count, proposed as one.
                if distinct is not None and distinct.values[0] < len(distinct.rows):
                    yield Program("distinct", target=target, conditions=rows), distinct
    for key in numeric:
        # Dates are ordered, never added up: no total nor average of a column of dates.
        ops = ("max", "min") if grid.columns[key].type == DATE else ("sum", "avg", "max", "min")
        for op in ops:
            yield from _computed(Program(op, key=key, conditions=rows), grid)
        if not single:
            continue
        for target in columns:
            if target == key:
                continue
            for op in ("argmax", "argmin"):
                program = Program(op, target=target, key=key, conditions=rows)
                signature = (op, target, key, rows)
                if signature not in seen:
                    seen.add(signature)
                    yield from _computed(program, grid)


def _anchored(grid: Grid, exact: list[Condition]) -> Iterator[tuple[Program, Result]]:
    """Yield the programs read from the rows the question names that compute something: the
    row after or before one, and two rows compared on a numeric column."""
    numeric = [i for i, column in enumerate(grid.columns) if column.numeric]
    for anchor in exact:
        for target in range(len(grid.columns)):
            if target == anchor.column:
                continue
            for op in ("next", "previous"):
                yield from _computed(Program(op, target=anchor.column, anchors=(anchor,)), grid)
                yield from _computed(Program(op, target=target, anchors=(anchor,)), grid)
    for i, first in enumerate(exact):
        for second in exact[i + 1 :]:
            if first.column != second.column:
                continue
            for key in numeric:
                if key == first.column:
                    continue
                for op in ("diff", "more", "less"):
                    yield from _computed(Program(op, key=key, anchors=(first, second)), grid)


def features(
    question: Question,
    grid: Grid,
    program: Program,
    result: Result,
    said_conditions: list[Condition],
) -> dict[str, float]:
    """Return a candidate's features: the question's cue words with the program's operation,
    how its columns match the question, what it keeps and what it returns."""
    op = program.op
    out: dict[str, float] = {f"op={op}": 1.0}
    for word in set(question.cues):
        out[f"w={word}|op={op}"] = 1.0
    for first, second in zip(question.cues, question.cues[1:]):
        out[f"w={first}_{second}|op={op}"] = 1.0
    lead = " ".join(question.cues[:2])
    out[f"lead={lead}|op={op}"] = 1.0
    if program.target is not None:
        out.update(_target_features(question, grid, program))
    if program.key is not None:
        out.update(_key_features(question, grid, program))
    out.update(_condition_features(question, grid, program, said_conditions))
    out.update(_result_features(question, grid, op, result))
    return out


def _target_features(question: Question, grid: Grid, program: Program) -> dict[str, float]:
    """Return how the column a program answers from matches the question."""
    op = program.op
    out: dict[str, float] = {}
    target = grid.columns[program.target]
    overlap = header_overlap(target.name, question)
    out[f"target-header|op={op}"] = overlap
    out["target-header"] = overlap
    out[f"target-first|op={op}"] = float(program.target == 0)
    out[f"target-numeric|op={op}"] = float(target.numeric)
    for word in question.cues[:3]:
        out[f"w={word}|target-type={target.type}{'#' if target.numeric else ''}"] = 1.0
    for header_word in header_words(target.name):
        out[f"target-word={header_word}|op={op}"] = 1.0
        for word in question.content:
            out[f"w={word}|target-word={header_word}"] = 1.0
    if question.head and question.head in {stem(w) for w in fold(target.name).split()}:
        # The question's first content word names the column: "who manages" Manager.
        out[f"target-head|op={op}"] = 1.0
    best = max(question.overlaps) if question.overlaps else 0.0
    if overlap > 0 and overlap >= best:
        out[f"target-best-header|op={op}"] = 1.0
    if any(c.column == program.target for c in program.conditions + program.anchors):
        out[f"target-is-condition|op={op}"] = 1.0
    return out


def _key_features(question: Question, grid: Grid, program: Program) -> dict[str, float]:
    """Return how the column a program orders on or adds up matches the question."""
    op = program.op
    out: dict[str, float] = {}
    columns = grid.columns
    key = columns[program.key]
    overlap = header_overlap(key.name, question)
    out[f"key-header|op={op}"] = overlap
    out["key-header"] = overlap
    for word in question.cues[:3]:
        out[f"w={word}|key-type={key.type}"] = 1.0
    numeric_best = max(
        (question.overlaps[i] for i, column in enumerate(columns) if column.numeric),
        default=0.0,
    )
    for header_word in header_words(key.name):
        for word in question.content:
            out[f"w={word}|key-word={header_word}"] = 1.0
    if overlap > 0 and overlap >= numeric_best:
        out[f"key-best-header|op={op}"] = 1.0
    key_stems = {stem(w) for w in fold(key.name).split()}
    if key_stems & question.after_cue:
        # "the clinic with the most beds": the column right after "most" is ordered on.
        out[f"key-after-cue|op={op}"] = 1.0
    elif numeric_best > 0:
        out[f"key-missed-header|op={op}"] = 1.0
    return out


def _condition_features(
    question: Question, grid: Grid, program: Program, said_conditions: list[Condition]
) -> dict[str, float]:
    """Return what a program's conditions are, and what the question says that it leaves
    unused: headers, names and comparisons."""
    op = program.op
    out: dict[str, float] = {}
    columns = grid.columns
    used = program.conditions + program.anchors
    out[f"conditions={len(used)}|op={op}"] = 1.0
    for c in used:
        out[f"cond={c.op}|op={op}"] = 1.0
        out[f"cond={c.op}|len"] = min(len(str(c.value).split()), 4) / 4
        out[f"cond-header|op={op}"] = out.get(f"cond-header|op={op}", 0.0) + header_overlap(
            columns[c.column].name, question
        )
    touched = {program.target, program.key, *(c.column for c in used)}
    unused_headers = sum(
        1 for i, overlap in enumerate(question.overlaps) if overlap >= 0.5 and i not in touched
    )
    out["unused-headers"] = float(unused_headers)
    if any(
        overlap >= 0.5 and columns[i].numeric and i not in touched
        for i, overlap in enumerate(question.overlaps)
    ):
        out[f"numeric-header-unused|op={op}"] = 1.0
    out[f"unused-headers|op={op}"] = float(unused_headers)
    said = {c.value for c in used}
    all_exact = said_conditions
    unused = [c for c in all_exact if c.op == "eq" and c.value not in said]
    out["unused-exact"] = float(len(unused))
    out[f"unused-exact|op={op}"] = float(len(unused))
    unused_words = [
        c for c in all_exact
        if c.op == "contains" and c.value not in said and c.value not in question.header_words
    ]  # fmt: skip
    out["unused-contains"] = float(len(unused_words))
    unused_numbers = [c for c in all_exact if c.op in ("gt", "lt", "ge", "le") and c not in used]
    out["unused-comparison"] = float(bool(unused_numbers))
    return out


def _result_features(question: Question, grid: Grid, op: str, result: Result) -> dict[str, float]:
    """Return what a program returns: how many values, whether the question says one, and
    the share of the rows it keeps."""
    out: dict[str, float] = {}
    size = len(result.values)
    bucket = "1" if size == 1 else "2" if size == 2 else "3-5" if size <= 5 else "6+"
    out[f"size={bucket}|op={op}"] = 1.0
    for word in question.cues[:3]:
        out[f"w={word}|size={bucket}"] = 1.0
    if any(isinstance(value, str) and f" {fold(value)} " in f" {question.folded} "
           for value in result.values):  # fmt: skip
        out[f"answer-in-question|op={op}"] = 1.0
    kept = len(result.rows) / max(grid.size, 1)
    out[f"kept-share|op={op}"] = kept
    return out


def proposals(question: Question, grid: Grid) -> list[Candidate]:
    """Return the candidates with their features, unscored."""
    conditions = mentions(question, grid)
    question.header_words = {w for column in grid.columns for w in fold(column.name).split()}
    question.overlaps = [header_overlap(column.name, question) for column in grid.columns]
    return [
        Candidate(program, result, features(question, grid, program, result, conditions))
        for program, result in candidates(question, grid, conditions)
    ]


def feature_index(name: str) -> int:
    """Return a feature's bucket: its name hashed (CRC-32, the same on every machine)."""
    return zlib.crc32(name.encode()) & (HASH_BUCKETS - 1)


@functools.cache
def load_weights(path: Path = WEIGHTS_PATH) -> dict[int, float]:
    """Return the trained weight of each feature bucket (an empty dict without a file)."""
    if not path.exists():
        return {}
    stored = json.loads(path.read_text(encoding="utf-8"))
    return {int(index): float(weight) for index, weight in stored["weights"].items()}


def score(found: dict[str, float], weights: dict[int, float]) -> float:
    return sum(weights.get(feature_index(name), 0.0) * value for name, value in found.items())


def ranked(
    question_text: str, grid: Grid, weights: dict[int, float] | None = None
) -> list[Candidate]:
    """Return the candidates for a question over a grid, best first, with their probability
    among the candidates as `score`."""
    weights = load_weights() if weights is None else weights
    if not weights:
        return []
    question = read_question(question_text)
    # A row total the grid adds over its months (tables/totals.py) is read by a rule, not ranked.
    columns = [column for column in grid.columns if not getattr(column, "row_total", False)]
    seen = grid if len(columns) == len(grid.columns) else replace(grid, columns=columns)
    found = proposals(question, seen)
    if not found:
        return []
    logits = [score(candidate.features, weights) for candidate in found]
    top = max(logits)
    total = sum(math.exp(logit - top) for logit in logits)
    for candidate, logit in zip(found, logits, strict=True):
        candidate.score = math.exp(logit - top) / total
    return sorted(found, key=lambda candidate: -candidate.score)
