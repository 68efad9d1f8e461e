"""The offline table parser: from a question and a table, the program that answers it.

It proposes candidate programs (knowledge/tables/programs.py) from what the question says that
the table holds: cells it names (an anchor, or a condition that keeps rows), numbers it compares
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
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from knowledge.tables.cells import DATE
from knowledge.tables.programs import (
    Condition,
    Grid,
    Program,
    Result,
    fold,
    leading_number,
    run,
)

WEIGHTS_PATH = Path(__file__).with_name("parser_weights.json")
# Words the parser pairs with operations: anything else in a question is content, not a cue.
STOPWORDS = frozenset(
    "a an the of in on at to for by with from and or is are was were be been being this that "
    "these those it its as do does did has have had which what who whom whose when where how "
    "than then there their they he she his her".split()
)
# Words before a cell the question says that ask for the other rows.
_NEGATED = re.compile(
    r"\b(?:not|besides|except|excluding|without|other than|apart from|aside "
    r"from)\b|n t\b"
)
_MONTH_NAMES = (
    "January February March April May June July August September October November December"
).split()
_MONTHS = {name.lower(): n for n, name in enumerate(_MONTH_NAMES, start=1)}
# A comparison said before a number: the condition's operator.
_COMPARE_CUES = [
    (re.compile(r"\b(?:more|greater|higher|larger|bigger|longer|over|above|exceed\w*|surpass\w*|beyond|past)\s+(?:than\s+)?(?:the\s+)?$"), "gt"),
    (re.compile(r"\b(?:after|since|later\s+than)\s+$"), "gt"),
    (re.compile(r"\b(?:less|fewer|lower|smaller|shorter|under|below)\s+(?:than\s+)?$"), "lt"),
    (re.compile(r"\b(?:before|prior\s+to|earlier\s+than)\s+$"), "lt"),
    (re.compile(r"\b(?:at\s+least|at\s+lease|minimum\s+of|no\s+less\s+than)\s+$"), "ge"),
    (re.compile(r"\b(?:at\s+most|no\s+more\s+than|up\s+to|maximum\s+of)\s+$"), "le"),
]  # fmt: skip
# A comparison said after a number ("70 or more").
_COMPARE_AFTER = [
    (
        re.compile(
            r"^\s*(?:\w+\s+)?(?:or|and)\s+(?:more|greater|higher|above|over|up|later|after)\b"
        ),
        "ge",
    ),
    (
        re.compile(
            r"^\s*(?:\w+\s+)?(?:or|and)\s+(?:less|fewer|lower|below|under|earlier|before)\b"
        ),
        "le",
    ),
    (re.compile(r"^\s*\+"), "ge"),
]
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
}  # fmt: skip
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
# Features are hashed into this many buckets: the weights file keeps only the trained ones.
HASH_BUCKETS = 1 << 20


@dataclass
class Candidate:
    program: Program
    result: Result
    features: dict[str, float]
    score: float = 0.0


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


def stem(word: str) -> str:
    for suffix in ("ies", "es", "s", "ed", "ing", "er", "est"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def read_question(text: str) -> Question:
    folded = fold(text)
    words = folded.split()
    numbers = []
    for match in _NUMBER.finditer(folded):
        value = leading_number(match.group(0))
        if value is None:
            continue
        before = folded[: match.start()]
        op = next((op for cue, op in _COMPARE_CUES if cue.search(before[-30:])), "")
        if not op:
            after = folded[match.end() : match.end() + 30]
            op = next((op for cue, op in _COMPARE_AFTER if cue.search(after)), "")
        numbers.append((value, op))
    for index, word in enumerate(words):
        if word in _NUMBER_WORDS:
            before = " ".join(words[:index]) + " "
            op = next((op for cue, op in _COMPARE_CUES if cue.search(before[-30:])), "")
            numbers.append((float(_NUMBER_WORDS[word]), op))
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
        stems={stem(word) for word in words if word not in STOPWORDS},
        numbers=numbers,
    )


def _header_words(name: str) -> list[str]:
    return [w for w in fold(name).split() if w not in STOPWORDS and not w.isdigit()][:4]


def header_overlap(name: str, question: Question) -> float:
    """Return the share of a header's words the question says (a stem, or an abbreviation
    whose letters begin consecutive words of the question: "HR" for "home runs")."""
    words = [word for word in fold(name).split() if word not in STOPWORDS]
    if not words:
        return 0.0
    said = sum(stem(word) in question.stems or word in question.initials for word in words)
    return said / len(words)


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
    for word in content:
        if f" {word} " in f" {said} ":
            continue
        for index, column in enumerate(grid.columns):
            if column.numeric:
                continue
            hits = sum(f" {word} " in f" {value} " for value in column.folded)
            if 0 < hits < max(2, grid.size):
                found.setdefault((index, word), Condition(index, "contains", word, word))
    # "Which projects are not done?", "other than Porto": the rows whose cell is not the one said.
    for index, value in spans:
        before = " ".join(padded[: padded.index(f" {value} ")].split()[-3:])
        if _NEGATED.search(before):
            said_text = found[(index, value)].said
            found[(index, f"!{value}")] = Condition(index, "ne", value, said_text)
    # "How many vessels depart in April?": the rows of a date column in that month.
    months = [_MONTHS[word] for word in question.words if word in _MONTHS]
    for index, column in enumerate(grid.columns):
        if column.type == DATE:
            for month in dict.fromkeys(months):
                found[(index, f"month{month}")] = Condition(
                    index, "month", month, _MONTH_NAMES[month - 1]
                )
    for value, op in question.numbers:
        if not op:
            continue
        for index, column in enumerate(grid.columns):
            if column.numeric:
                key = (index, f"{op}{value}")
                found.setdefault(key, Condition(index, op, value, f"{op} {value:g}"))
    ranked = sorted(
        found.values(),
        key=lambda c: (c.op != "eq", -len(str(c.value)), c.column),
    )
    return ranked[:MAX_CONDITIONS]


def candidates(
    question: Question, grid: Grid, conditions: list[Condition]
) -> Iterator[tuple[Program, Result]]:
    """Yield every candidate program over the question's conditions that computes something,
    with its result."""
    exact = [c for c in conditions if c.op == "eq"]
    numeric = [i for i, column in enumerate(grid.columns) if column.numeric]
    columns = range(len(grid.columns))
    row_sets: list[tuple[Condition, ...]] = [()] + [(c,) for c in conditions]
    for i, first in enumerate(conditions):
        for second in conditions[i + 1 :]:
            if first.column != second.column:
                row_sets.append((first, second))
    seen: set[tuple] = set()

    def emit(program: Program) -> Iterator[tuple[Program, Result]]:
        result = run(program, grid)
        if result is None or result.empty:
            return
        yield program, result

    for rows in row_sets:
        single = len(rows) <= 1
        yield from emit(Program("count", conditions=rows))
        for target in columns:
            if any(c.column == target and c.op == "eq" for c in rows):
                continue
            if rows:
                yield from emit(Program("values", target=target, conditions=rows))
            if single:
                yield from emit(Program("first", target=target, conditions=rows))
                yield from emit(Program("last", target=target, conditions=rows))
                if not grid.columns[target].numeric:
                    yield from emit(Program("mode", target=target, conditions=rows))
                    distinct = run(Program("distinct", target=target, conditions=rows), grid)
                    # As many different values as rows: that is a count, proposed as one.
                    if distinct is not None and distinct.values[0] < len(distinct.rows):
                        yield Program("distinct", target=target, conditions=rows), distinct
        for key in numeric:
            for op in ("sum", "avg", "max", "min"):
                yield from emit(Program(op, key=key, conditions=rows))
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
                        yield from emit(program)
    for anchor in exact:
        for target in columns:
            if target == anchor.column:
                continue
            for op in ("next", "previous"):
                yield from emit(Program(op, target=anchor.column, anchors=(anchor,)))
                yield from emit(Program(op, target=target, anchors=(anchor,)))
    for i, first in enumerate(exact):
        for second in exact[i + 1 :]:
            if first.column != second.column:
                continue
            for key in numeric:
                if key == first.column:
                    continue
                for op in ("diff", "more", "less"):
                    yield from emit(Program(op, key=key, anchors=(first, second)))


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
    columns = grid.columns
    if program.target is not None:
        target = columns[program.target]
        overlap = header_overlap(target.name, question)
        out[f"target-header|op={op}"] = overlap
        out["target-header"] = overlap
        out[f"target-first|op={op}"] = float(program.target == 0)
        out[f"target-numeric|op={op}"] = float(target.numeric)
        for word in question.cues[:3]:
            out[f"w={word}|target-type={target.type}{'#' if target.numeric else ''}"] = 1.0
        for header_word in _header_words(target.name):
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
    if program.key is not None:
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
        for header_word in _header_words(key.name):
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
    found = proposals(question, grid)
    if not found:
        return []
    logits = [score(candidate.features, weights) for candidate in found]
    top = max(logits)
    total = sum(math.exp(logit - top) for logit in logits)
    for candidate, logit in zip(found, logits, strict=True):
        candidate.score = math.exp(logit - top) / total
    return sorted(found, key=lambda candidate: -candidate.score)
