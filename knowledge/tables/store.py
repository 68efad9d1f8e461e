"""The table store: the fourth store of the registry (knowledge/retrieval/stores.py).

It finds the tables a question is about among the searched knowledge bases' tables (every
table when there are few; else the tables whose rows BM25 ranks highest for the question),
asks the parser for the program that answers the question over each (knowledge/tables/
parser.py), and returns the best as a *computed passage*: the result first, then the program
in words, followed by the rows it read (their own row chunks, which the answer cites and the
document viewer opens).

A program is used only when it fits: the parser is confident enough among its candidates
(`TABLE_PROGRAM_MIN`), the question is about the table (`TABLE_RELEVANCE_MIN` of its content
words are the table's: its headers, caption or cells; or the passage BM25 ranks first for it is
one of the table's rows), and the program reads what the question names (a column whose header
it says, or a cell it names whole). A lookup of one row is left to that row's chunk unless the
program accounts for every word of the question. Otherwise the store returns nothing and the
passages answer, as before.

With a generative provider, `model_table_search` lets the model write the program as SQL
(knowledge/tables/model_sql.py, sql.py); the parser's program is its fallback and its judge.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field

from django.conf import settings

from knowledge.chunk_kinds import SECTION_SEPARATOR
from knowledge.models import Table, TableRow
from knowledge.retrieval.bm25 import bm25_scores
from knowledge.retrieval.db import retrieval_alias
from knowledge.retrieval.filters import as_filter
from knowledge.retrieval.hits import SOURCE_TABLE, Hit, hydrate
from knowledge.tables.cells import DATE, NUMBER, read_cell
from knowledge.tables.judge import probability
from knowledge.tables.model_sql import (
    build_schema,
    extract_sql,
    misfit,
    rows_holding,
    run_program,
    same_values,
)
from knowledge.tables.parser import (
    STOPWORDS,
    Candidate,
    header_overlap,
    ranked,
    read_question,
    stem,
)
from knowledge.tables.programs import Grid, display, fold, in_words, kept_rows
from knowledge.tables.sql import ProgramRefused, ProgramStopped

KIND_COMPUTED = "computed"
# Tables a question's program is sought in, at most.
TABLES_PER_QUESTION = 3
# A knowledge base with at most this many tables (in the searched documents) has each tried.
ALL_TABLES_UP_TO = 3
# Rows of a result cited as sources, at most.
CITED_ROWS = 8
# Words that ask for a computation, not for a thing the table names.
_ASKING = frozenset(
    "how many much number total sum average mean most least highest lowest largest smallest "
    "biggest first last next previous before after more less fewer than difference between "
    "name names list top greatest best worst longest shortest earliest latest same count "
    "times year years all across together combined overall altogether each every per listed "
    "there table chart".split()
)


@dataclass
class Step:
    """A second step after the program: a column read from the row it found, in its own table
    or in another table joined on a shared key column."""

    kind: str  # "row": a second question about the row; "join": the same row in another table
    header: str
    value: str
    words: str
    chunk_id: int | None
    row_number: int


@dataclass
class TableChoice:
    table_id: int
    document_id: int
    file_name: str
    grid: Grid
    best: Candidate
    relevance: float
    steps: list[Step] = field(default_factory=list)
    # How sure the parser is of the program: its probability among the candidates.
    confidence: float = 0.0
    # The table's share of the BM25 votes (1.0 when every table is tried).
    vote: float = 1.0
    # The tables of the question: (table id, grid), the chosen one's document's first.
    others: list[tuple[int, Grid]] = field(default_factory=list)
    # A program the rules do not admit but the judge does not rule out (TABLE_TENTATIVE_MIN):
    # it answers only when the passages find nothing, and is never verified.
    tentative: bool = False


def _label(file_name: str, caption: str, section: list[str]) -> str:
    """Return how answers name a table: its file, its section and its caption, each once (a
    sheet's caption "clinics: Clinics" under the section "Clinics" is not said twice)."""
    parts = [file_name, *section]
    if caption and caption not in parts and caption.split(": ")[-1] not in parts:
        parts.append(caption)
    return SECTION_SEPARATOR.join(parts)


def candidate_tables(kb_ids: list[int], query: str, filters) -> list[int]:
    """Return the ids of the tables to try, most likely first."""
    return list(table_votes(kb_ids, query, filters))


def table_votes(kb_ids: list[int], query: str, filters) -> dict[int, float]:
    """Return the tables to try, most likely first, each with its share of their BM25 votes
    (how likely the question is about it; 1.0 for each when the searched documents hold so
    few tables that all are tried)."""
    document_filter = as_filter(filters)
    # A table over TABLE_MAX_ROWS is left to its row chunks: the parser runs every candidate
    # program over every row, about 0.4 s per 1,000 rows here.
    tables = Table.objects.using(retrieval_alias()).filter(
        knowledge_base_id__in=kb_ids, row_count__lte=settings.TABLE_MAX_ROWS
    )
    if document_filter.documents:
        tables = tables.filter(document_id__in=document_filter.documents)
    if document_filter.file_types:
        tables = tables.filter(document__file_type__in=document_filter.matched_file_types())
    ids = list(tables.order_by("id").values_list("id", flat=True)[: ALL_TABLES_UP_TO + 1])
    if len(ids) <= ALL_TABLES_UP_TO:
        return dict.fromkeys(ids, 1.0)
    scored = bm25_scores(kb_ids=kb_ids, query=query, top_k=60, filters=filters)
    if not scored:
        return {}
    by_chunk = dict(scored)
    votes: dict[int, float] = {}
    for table_id, chunk_id in (
        TableRow.objects.using(retrieval_alias())
        .filter(chunk_id__in=by_chunk)
        .values_list("table_id", "chunk_id")
    ):
        votes[table_id] = votes.get(table_id, 0.0) + by_chunk[chunk_id]
    allowed = set(tables.filter(id__in=votes).values_list("id", flat=True))
    best = [(t, v) for t, v in sorted(votes.items(), key=lambda p: -p[1]) if t in allowed]
    best = best[:TABLES_PER_QUESTION]
    total = sum(v for _, v in best) or 1.0
    return {t: v / total for t, v in best}


def load_grid(table_id: int) -> tuple[Grid, int, str, int] | None:
    """Return a stored table as a grid, with its document's id and file name and its KB."""
    table = (
        Table.objects.using(retrieval_alias())
        .select_related("document")
        .filter(id=table_id)
        .first()
    )
    if table is None:
        return None
    rows = list(table.rows.order_by("number").values_list("number", "cells", "values", "chunk_id"))
    grid = Grid.build(
        _label(table.document.file_name, table.caption, list(table.section or [])),
        table.columns,
        [(number, cells, values) for number, cells, values, _ in rows],
        [chunk_id for *_, chunk_id in rows],
    )
    return grid, table.document_id, table.document.file_name, table.knowledge_base_id


def _vocabulary(grid: Grid) -> set[str]:
    """Return the words of a table's label, headers and cells, and their first five letters."""
    vocabulary = set(fold(grid.label).split())
    for column in grid.columns:
        vocabulary.update(fold(column.name).split())
        for value in column.folded:
            vocabulary.update(value.split())
    return vocabulary | {word[:5] for word in vocabulary}


def relevance(question: str, grid: Grid) -> float:
    """Return the share of the question's content words the table holds (in its label,
    headers or cells): how much the question is about this table."""
    words = [
        word for word in fold(question).split()
        if word not in STOPWORDS and word not in _ASKING and not word.isdigit()
    ]  # fmt: skip
    if not words:
        return 1.0
    vocabulary = _vocabulary(grid)
    return sum(word in vocabulary or word[:5] in vocabulary for word in words) / len(words)


def supported(kb_ids: list[int], query: str, filters, table_ids: list[int]) -> bool:
    """Whether the passage BM25 ranks first for the question is a row of one of the tables: the
    question is about the table even when its words are not the table's ("who won the most
    gold medals?" over a medal table headed Nation, Gold, Silver). A question about the prose
    beside the tables finds its prose first."""
    top = bm25_scores(kb_ids=kb_ids, query=query, top_k=1, filters=filters)
    return bool(top) and (
        TableRow.objects.using(retrieval_alias())
        .filter(table_id__in=table_ids, chunk_id=top[0][0])
        .exists()
    )


# "Which vessel sails first, and who is its captain?": a question, then one about its answer.
_SECOND_QUESTION = re.compile(
    r"^(?P<first>.+?)(?:,\s*|\s+)and\s+(?P<second>(?:who|what|which|when|where|how)\b.*"
    r"\b(?:its|their|his|her|that|this)\b.*)$",
    re.IGNORECASE,
)


def split_two_step(query: str) -> tuple[str, str]:
    """Return a question's first step and its second ("" when it asks one thing)."""
    match = _SECOND_QUESTION.match(query.strip())
    if not match:
        return query, ""
    return match.group("first").strip(), match.group("second").strip()


def choose(kb_ids: list[int], query: str, filters=None) -> TableChoice | None:
    """Return the best program over the question's tables, with the steps after it, or None
    when none fits."""
    first, second = split_two_step(query)
    best: TableChoice | None = None
    loaded_grids: list[tuple[int, Grid, int]] = []
    votes = table_votes(kb_ids, query, filters)
    for table_id, vote in votes.items():
        loaded = load_grid(table_id)
        if loaded is None:
            continue
        grid, document_id, file_name, _ = loaded
        loaded_grids.append((table_id, grid, document_id))
        found = [c for c in ranked(first, grid) if follows_the_named_order(first, grid, c)]
        if not found:
            continue
        choice = TableChoice(
            table_id, document_id, file_name, grid, found[0], relevance(query, grid), vote=vote
        )  # fmt: skip
        choice.confidence = probability(signals(first, choice, found))
        if best is None or _fit(choice, first) > _fit(best, first):
            best = choice
    if best is None:
        return None
    # The question must be about the table, and the program must read every name it says and
    # do what a word of it asks for, whatever the judge says. Then the judge or the program's
    # words admit it, unless it is a lookup it does not account for (left to the row's chunk).
    # A program they do not admit is tentative when the judge gives it TABLE_TENTATIVE_MIN: the
    # answer when the passages find nothing, never verified.
    if (
        (
            best.relevance < settings.TABLE_RELEVANCE_MIN
            and not supported(kb_ids, query, filters, [best.table_id])
        )
        or not uses_its_names(first, best)
        or not asks_for_its_operation(first, best)
    ):
        return None
    left_to_its_row = _left_to_its_row(first, best, second)
    best.tentative = left_to_its_row or (
        best.confidence < settings.TABLE_ANSWER_MIN and not _fits_by_its_words(first, best)
    )
    if best.tentative and (
        best.confidence < settings.TABLE_TENTATIVE_MIN
        or (left_to_its_row and not names_what_it_reads(first, best))
    ):
        return None
    best.others = [(t, g) for t, g, _ in loaded_grids if t != best.table_id]
    best.others += [
        (table_id, grid) for table_id, grid in _document_tables(best.document_id)
        if table_id != best.table_id and table_id not in {t for t, _ in best.others}
    ]  # fmt: skip
    if second:
        step = _same_row(second, best)
        if step is None:
            return None  # the second step finds nothing: the passages answer, or nothing does
        best.steps.append(step)
    else:
        step = _joined(query, best)
        if step is not None:
            best.steps.append(step)
    return best


def _fits_by_its_words(question: str, choice: TableChoice) -> bool:
    """Whether the program fits the question by its words, whatever the judge says: the ranker
    gives it TABLE_PROGRAM_MIN, it reads a column or a cell the question names, and the table
    holds what the question orders by."""
    return (
        choice.best.score >= settings.TABLE_PROGRAM_MIN
        and uses_the_question(question, choice)
        and holds_what_it_orders_by(question, choice.grid)
    )


def names_what_it_reads(question: str, choice: TableChoice) -> bool:
    """Whether the question names the column the program reads its answer from. A lookup
    left to its row's chunk stands in for passages that found nothing only then: "the average
    salary at the Bergen site" read from Country answers another question. On the fitting half
    of WikiTableQuestions' held-out training tables, such lookups were right 64 times in 91
    when the question named the column, 38 in 92 when it did not."""
    target = choice.best.program.target
    return target is not None and (
        header_overlap(choice.grid.columns[target].name, read_question(question)) >= 0.5
    )


def _left_to_its_row(question: str, choice: TableChoice, second: str) -> bool:
    """Whether a lookup of one row is left to that row's chunk, whatever the judge says: it
    does not account for every word of the question ("When was the Keystone Pay contract
    *signed*?" read from "contract end"), or it counts the one row a name picks ("how many
    people work in the Kraków office?" is no count of 1). On the team documents these were
    wrong where the passages were right (bench/team_answers.py: 5 of 73 lost when the judge
    alone decided); on WikiTableQuestions, whose questions are mostly lookups, the rule costs
    76 right answers of 1,401 questions (README "Questions over tables")."""
    return is_lookup(choice) and not second and not _read_from_table(question, choice)


_NAME = re.compile(r"(?<!^)(?<![.?!]\s)\b([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*)")


# Cues that order by an amount: the words after them name what is measured ("the highest
# energy use", "the most beds").
_AMOUNT_CUES = frozenset(
    "most least highest lowest largest smallest biggest fewest greatest longest shortest more "
    "less fewer higher lower larger smaller maximum minimum".split()
)


def follows_the_named_order(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a program that takes rows in the table's order (the first, the last) is not
    asked for another order: "which project is due first?" names the Due date column, so the
    first row of the slide answers another question and the next candidate is taken."""
    program = candidate.program
    if program.op not in ("first", "last"):
        return True
    read = read_question(question)
    touched = {program.target, *(c.column for c in program.conditions + program.anchors)}
    return not any(
        (column.type == DATE or column.numeric)
        and index not in touched
        and header_overlap(column.name, read) >= 0.5
        for index, column in enumerate(grid.columns)
    )


def holds_what_it_orders_by(question: str, grid: Grid) -> bool:
    """Whether the table holds what the question orders by: "which site has the highest energy
    use?" over a table with no word of energy use asks what the table cannot say, whatever
    program ranks first."""
    words = fold(question).split()
    vocabulary = set(fold(grid.label).split())
    for column in grid.columns:
        vocabulary.update(fold(column.name).split())
        for value in column.folded:
            vocabulary.update(value.split())
    known = {stem(word) for word in vocabulary} | {word[:5] for word in vocabulary}
    for index, word in enumerate(words):
        if word not in _AMOUNT_CUES:
            continue
        after = [w for w in words[index + 1 : index + 4] if w not in STOPWORDS and not w.isdigit()]
        if after and not any(stem(w) in known or w[:5] in known for w in after):
            return False
    return True


def uses_its_names(question: str, choice: TableChoice) -> bool:
    """Whether the program reads every name the question says (a capitalised word that is no
    column header): "the Berlin office" counted over offices that are not Berlin answers
    another question, so the passages answer it, or nothing does."""
    program = choice.best.program
    used = fold(" ".join(f"{c.value} {c.said}" for c in program.conditions + program.anchors))
    headers = {word for column in choice.grid.columns for word in fold(column.name).split()}
    for name in _NAME.findall(question.strip()):
        words = [w for w in fold(name).split() if w not in STOPWORDS and w not in headers]
        if words and not all(f" {word} " in f" {used} " for word in words):
            return False
    return True


# The words that ask for an operation: a program whose operation no word of the question asks
# for answers another question ("who runs the Dublin office?" is no "first of the rows").
_ASKS_ORDER = frozenset(
    "most least highest lowest largest smallest biggest fewest greatest best worst longest "
    "shortest earliest latest first last top bottom maximum minimum oldest newest youngest "
    "before after next previous following preceding prior later earlier more less fewer "
    "higher lower larger smaller longer shorter older newer max min".split()
)
_ASKS_AGGREGATE = frozenset(
    "how many number total sum average mean count combined altogether together overall "
    "most different distinct difference".split()
)
_NEEDS = {
    "first": _ASKS_ORDER, "last": _ASKS_ORDER, "argmax": _ASKS_ORDER, "argmin": _ASKS_ORDER,
    "top": _ASKS_ORDER, "next": _ASKS_ORDER, "previous": _ASKS_ORDER, "max": _ASKS_ORDER,
    "min": _ASKS_ORDER, "more": _ASKS_ORDER, "less": _ASKS_ORDER,
    "count": _ASKS_AGGREGATE, "sum": _ASKS_AGGREGATE, "avg": _ASKS_AGGREGATE,
    "distinct": _ASKS_AGGREGATE, "mode": _ASKS_AGGREGATE, "diff": _ASKS_AGGREGATE | _ASKS_ORDER,
}  # fmt: skip


def asks_for_its_operation(question: str, choice: TableChoice) -> bool:
    """Whether a word of the question asks for the program's operation: an order ("most",
    "first", "after") for one that orders rows, an aggregate ("how many", "total", "average")
    for one that counts or adds them. A filter's rows need no such word."""
    needed = _NEEDS.get(choice.best.program.op)
    if needed is None:
        return True
    words = set(fold(question).split())
    if words & needed:
        return True
    # A superlative the list does not name ("tallest", "cheapest", "busiest") orders too.
    return needed is not _ASKS_AGGREGATE and any(
        word.endswith("est") and len(word) > 5 for word in words
    )


def asks_for_a_computation(question: str) -> bool:
    """Whether a word of the question asks for more than reading a row: an order, an amount,
    a count, a comparison or the rows a condition excludes."""
    words = set(fold(question).split())
    return bool(
        words & (_ASKS_ORDER | _ASKS_AGGREGATE | {"not", "other", "besides", "except"})
        or any(word.endswith("est") and len(word) > 5 for word in words)
    )


def is_lookup(choice: TableChoice) -> bool:
    """Whether the program reads one row a condition names ("the Dublin office"): a lookup,
    which the row's own chunk answers as well (93 % of the team set's lookups before this
    store), and which the parser, ranking every program it can build, gets wrong more often
    (the first of one row, a count of one). The row after or before a named one is no lookup."""
    program, result = choice.best.program, choice.best.result
    if program.op in ("next", "previous", "diff", "more", "less"):
        return False
    named = any(condition.op == "eq" for condition in program.conditions)
    kept = kept_rows(choice.grid, program.conditions) if program.conditions else None
    return program.op == "values" and len(result.rows) == 1 or named and len(kept or []) <= 1


def _read_from_table(question: str, choice: TableChoice) -> bool:
    """Whether a lookup is read from the table rather than left to its row's chunk: it reads a
    cell (a count of one row answers no question) and accounts for every word of the question."""
    return choice.best.program.op not in ("count", "distinct") and not unaccounted(question, choice)


def unaccounted(question: str, choice: TableChoice) -> list[str]:
    """Return the question's content words the program does not account for: none of its
    cells' values, the header of a column it reads or filters, or the table's label. A lookup
    that leaves a word ("When was the Keystone Pay contract *signed*?" read from "contract
    end") answers another question, so the row's chunk answers it; one that leaves none ("What
    is the population of Braga?") is read from the table. On a held-out fifth of the
    WikiTableQuestions training split, 7 of 9 such lookups were right, and 26 of 38 that left a
    word; on the team set the latter were wrong 3 times in 5 and the passages right."""
    program, grid = choice.best.program, choice.grid
    said = program.conditions + program.anchors
    used = fold(" ".join(f"{condition.value} {condition.said}" for condition in said)).split()
    known = {stem(word) for word in used} | {word[:5] for word in used}
    for index in {program.target, program.key, *(condition.column for condition in said)}:
        if index is not None:
            known |= {stem(word) for word in fold(grid.columns[index].name).split()}
    known |= {stem(word) for word in fold(grid.label).split()}
    return [
        word for word in fold(question).split()
        if word not in STOPWORDS and word not in _ASKING and not word.isdigit()
        and stem(word) not in known and word[:5] not in known
    ]  # fmt: skip


def uses_the_question(question: str, choice: TableChoice) -> bool:
    """Whether the program reads what the question names: a column whose header the question
    says (the one answered, ordered on or filtered), or a cell it names whole. A program that
    only shares words with a table's cells answers another question (a knowledge base's small
    tables around prose questions)."""
    program = choice.best.program
    said = program.conditions + program.anchors
    if any(condition.op == "eq" for condition in said):
        return True
    read = read_question(question)
    touched = {program.target, program.key, *(condition.column for condition in said)}
    return any(
        header_overlap(choice.grid.columns[index].name, read) >= 0.5
        for index in touched
        if index is not None
    )


def signals(question: str, choice: TableChoice, found: list[Candidate]) -> dict[str, float]:
    """Return what the judge (knowledge/tables/judge.py) weighs of a table's best program: the
    ranker's probability and margin, whether the question asks for its operation and names what
    it reads, how much of the question the table and the program account for, how many rows it
    keeps and how many values it returns. No signal names an operation: on WikiTableQuestions
    the judge learned that a total over every row is seldom right, which holds of its tables
    and not of a team's."""
    best = choice.best
    program, result = best.program, best.result
    values = result.values
    different = [c.score for c in found if c.result.values != values]
    mass = sum(c.score for c in found if c.result.values == values)
    left = unaccounted(question, choice)
    cells = {stem(word) for column in choice.grid.columns for value in column.folded
             for word in value.split()}  # fmt: skip
    missed = [word for word in left if stem(word) in cells]
    size = len(values)
    out = {
        "p": best.score,
        "logit": math.log(max(best.score, 1e-6) / max(1 - best.score, 1e-6)),
        "margin": best.score - (max(different) if different else 0.0),
        "mass": mass,
        "candidates": math.log1p(len(found)) / 5,
        "relevance": choice.relevance,
        "asks-operation": float(asks_for_its_operation(question, choice)),
        "uses-question": float(uses_the_question(question, choice)),
        "holds-order": float(holds_what_it_orders_by(question, choice.grid)),
        "lookup": float(is_lookup(choice)),
        "lookup-unread": float(is_lookup(choice) and not _read_from_table(question, choice)),
        # A word of the table's cells the program does not read is a condition it missed ("how
        # many games did they *win*"); another may only name its rows ("how many albums").
        "missed": min(len(missed), 3) / 3,
        "unaccounted": min(len(left) - len(missed), 4) / 4,
        "computation": float(asks_for_a_computation(question)),
        f"size={'1' if size == 1 else '2' if size == 2 else '3+'}": 1.0,
        "conditions": len(program.conditions + program.anchors) / 3,
        "kept-share": len(result.rows) / max(choice.grid.size, 1),
    }
    return out


def _fit(choice: TableChoice, question: str) -> float:
    """How well a table's best program fits the question: its probability, the share of the
    question the table holds, the table's BM25 vote, and twice that when it orders on the
    column the question's
    "most" or "least" names ("the budget of the site with the most staff" orders Sites by
    Staff, then joins Budgets)."""
    fit = choice.confidence * choice.relevance * choice.vote
    key = choice.best.program.key
    if key is not None:
        stems = {stem(word) for word in fold(choice.grid.columns[key].name).split()}
        if stems & read_question(question).after_cue:
            fit *= 2
    return fit


def _document_tables(document_id: int) -> list[tuple[int, Grid]]:
    """Return the other tables of a document (a workbook's sheets), as grids."""
    out = []
    for table_id in (
        Table.objects.using(retrieval_alias())
        .filter(document_id=document_id)
        .values_list("id", flat=True)
    ):
        loaded = load_grid(table_id)
        if loaded is not None:
            out.append((table_id, loaded[0]))
    return out


def _result_row(choice: TableChoice) -> int | None:
    """Return the one row a program's result is read from, if it is one."""
    result = choice.best.result
    if result.computed or len(result.values) != 1 or not result.rows:
        return None
    return result.rows[-1] if choice.best.program.op in ("next", "previous") else result.rows[0]


def _best_column(words: str, grid: Grid, exclude: set[int]) -> tuple[int, float] | None:
    question = read_question(words)
    scored = [
        (index, header_overlap(column.name, question))
        for index, column in enumerate(grid.columns)
        if index not in exclude
    ]
    scored = [(index, overlap) for index, overlap in scored if overlap >= 0.5]
    return max(scored, key=lambda pair: pair[1]) if scored else None


def _same_row(second: str, choice: TableChoice) -> Step | None:
    """The second step of a two-step question: a column of the row the first step found."""
    row = _result_row(choice)
    if row is None:
        return None
    target = choice.best.program.target
    column = _best_column(second, choice.grid, {target} if target is not None else set())
    if column is None:
        return None
    index = column[0]
    value = choice.grid.columns[index].texts[row]
    if not value:
        return None
    name = choice.grid.columns[index].name
    return Step("row", name, value, f"then read {name} of that row",
                choice.grid.chunk_ids[row], choice.grid.row_numbers[row])  # fmt: skip


def _said_header_words(name: str, stems: set[str]) -> set[str]:
    return {stem(word) for word in fold(name).split()} & stems


def _joined(query: str, choice: TableChoice) -> Step | None:
    """A join: the question names a column this table lacks and another table has (a
    workbook's other sheet); that table's row sharing the found row's key is read."""
    row = _result_row(choice)
    if row is None or not choice.others:
        return None
    stems = read_question(query).stems
    here = set().union(*(_said_header_words(c.name, stems) for c in choice.grid.columns))
    for _, other in choice.others:
        named = [
            (len(_said_header_words(column.name, stems) - here), index)
            for index, column in enumerate(other.columns)
        ]
        best, index = max(named, default=(0, -1))
        if best == 0:
            continue
        # The shared key: a column of the same name in both whose values meet on the row.
        for mine in choice.grid.columns:
            for key_index, theirs in enumerate(other.columns):
                if key_index == index or fold(mine.name) != fold(theirs.name):
                    continue
                value = mine.folded[row]
                match = next((r for r, v in enumerate(theirs.folded) if v and v == value), None)
                if match is None or not other.columns[index].texts[match]:
                    continue
                name = other.columns[index].name
                return Step(
                    "join",
                    name,
                    other.columns[index].texts[match],
                    f"then read {name} of {other.label} where {theirs.name} is {mine.texts[row]}",
                    other.chunk_ids[match],
                    other.row_numbers[match],
                )
    return None


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
        said = f"{said}; {step.header}: {step.value}" if step.kind == "row" else step.value
        words = f"{words}; {step.words}"
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


def table_search(q) -> list[Hit]:
    """The table store's search: the computed passage, then the rows it read."""
    started = time.perf_counter()
    choice = choose(q.kb_ids, q.query, q.filters)
    if choice is None:
        return []
    said, words = computed_text(choice)
    result = choice.best.result
    row_chunks = [choice.grid.chunk_ids[row] for row in result.rows[:CITED_ROWS]]
    row_chunks += [step.chunk_id for step in choice.steps]
    row_chunks = list(dict.fromkeys(c for c in row_chunks if c is not None))
    structure = {
        "program": {**choice.best.program.to_dict(), "by": "parser"},
        "words": words,
        "values": step_values(choice),
        # Whether the values are computed (a count, a sum) or cells read from the rows.
        "computed": result.computed and not choice.steps,
        "result": said,
        # Among many tables, a program is only as sure as the table is the question's: its
        # probability is scaled by the table's share of the votes.
        "confidence": round(choice.confidence * choice.vote, 4),
        "relevance": round(choice.relevance, 4),
        "table_id": choice.table_id,
        "rows": [choice.grid.row_numbers[row] for row in result.rows[:CITED_ROWS]],
        "row_chunks": row_chunks,
        "caption": choice.grid.label,
        "ms": round((time.perf_counter() - started) * 1000, 1),
        # Answers only when the passages find nothing, and is never verified.
        "tentative": choice.tentative,
    }
    return computed_hits(structure, choice.document_id, choice.file_name)


def computed_hits(structure: dict, document_id: int, file_name: str) -> list[Hit]:
    """Return a program's computed passage (its result, then the program in words, scored by
    its confidence), then the row chunks it read."""
    score = structure["confidence"]
    computed = Hit(
        text=f"{structure['result']}. {structure['words']}.",
        source_type=SOURCE_TABLE,
        score=score,
        document_id=document_id,
        file_name=file_name,
        kind=KIND_COMPUTED,
        structure=structure,
        rank=1,
        found_by=[SOURCE_TABLE],
    )
    rows = hydrate([(chunk_id, score) for chunk_id in structure["row_chunks"]], SOURCE_TABLE)
    for rank, hit in enumerate(rows, start=2):
        hit.rank = rank
    return [computed, *rows]


def is_computed(doc: dict) -> bool:
    return doc.get("kind") == KIND_COMPUTED and doc.get("source_type") == SOURCE_TABLE


def pinned(hits: list[Hit], limit: int) -> tuple[list[Hit], list[Hit]]:
    """Split candidates into a computed passage with the rows it read (first, in its order,
    scored by the parser's confidence; `limit` in all) and the rest (to rerank)."""
    computed = next(
        (hit for hit in hits if hit.kind == KIND_COMPUTED and hit.source_type == SOURCE_TABLE),
        None,
    )
    if computed is None:
        return [], hits
    row_chunks = list((computed.structure or {}).get("row_chunks") or [])
    by_chunk = {hit.chunk_id: hit for hit in hits if hit.chunk_id in row_chunks}
    rows = [by_chunk[chunk_id] for chunk_id in row_chunks if chunk_id in by_chunk]
    kept = [computed, *rows][: max(limit, 1)]
    for hit in kept:
        hit.rerank_score = computed.score
    taken = {id(hit) for hit in kept}
    return kept, [hit for hit in hits if id(hit) not in taken]


def _main_table(sql: str, schema) -> int:
    """Return the index of the schema table a query reads first."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.ParseError:
        return 0
    names = [table.named.name for table in schema.tables]
    for table in tree.find_all(exp.Table):
        if table.name.lower() in names:
            return names.index(table.name.lower())
    return 0


def model_table_search(
    kb_ids: list[int], query: str, filters, write, parser_hits: list[Hit]
) -> tuple[list[Hit], dict | None]:
    """The table store's search with a model: the model writes a query over the question's
    tables (`write(schema_text, question)` returns its reply); it is checked, run and judged
    (knowledge/tables/model_sql.py). Returns the hits (the model's result, or the parser's
    when the model declined or its query was refused, stopped or unfit) and, in those cases,
    what happened to the query ({"outcome", "reason", "sql"}), else None."""
    if not asks_for_a_computation(query):
        # A lookup of a row is quoted from its chunk, or read by the parser's program when it
        # accounts for the whole question: a model call would cost seconds for the same cell.
        return parser_hits, None
    if parser_hits and parser_hits[0].score >= settings.TABLE_PARSER_SURE:
        # The judge is sure enough of the parser's program to verify it: no model call.
        return parser_hits, None
    loaded = []
    for table_id in candidate_tables(kb_ids, query, filters):
        found = load_grid(table_id)
        if found is not None:
            loaded.append((table_id, found[0], found[1], found[2]))
    # A question about none of the tables (a prose question beside them) costs no model call.
    if not loaded or (
        max(relevance(query, grid) for _, grid, _, _ in loaded) < settings.TABLE_RELEVANCE_MIN
        and not supported(kb_ids, query, filters, [table_id for table_id, *_ in loaded])
    ):
        return parser_hits, None
    shown = {table_id for table_id, *_ in loaded}
    document_id, file_name = loaded[0][2], loaded[0][3]
    for table_id, grid in _document_tables(document_id):  # a workbook's other sheets: a join
        if table_id not in shown:
            loaded.append((table_id, grid, document_id, file_name))
    schema = build_schema(loaded)
    sql = extract_sql(write(schema.text(), query))
    if sql is None:
        return parser_hits, {
            "outcome": "declined",
            "reason": "The model wrote no query.",
            "sql": "",
        }
    try:
        values = run_program(
            sql,
            schema,
            timeout_ms=settings.TABLE_QUERY_TIMEOUT_MS,
            row_limit=settings.TABLE_QUERY_ROW_LIMIT,
            using=retrieval_alias(),
            whole_row=bool(split_two_step(query)[1]),
        )
    except ProgramRefused as exc:
        return parser_hits, {"outcome": "refused", "reason": str(exc), "sql": sql}
    except ProgramStopped as exc:
        return parser_hits, {"outcome": "stopped", "reason": str(exc), "sql": sql}
    why = misfit(split_two_step(query)[0], values)
    if why:
        return parser_hits, {"outcome": "unfit", "reason": why, "sql": sql}
    return _model_hits(query, sql, values, schema.tables[_main_table(sql, schema)]), None


def _model_hits(query: str, sql: str, values: list, shown) -> list[Hit]:
    """Return the computed passage of a model's query result, then the rows it cites: those of
    the parser's programs that compute the same (whose probability is the confidence), else
    the rows holding the result's text."""
    started = time.perf_counter()
    grid = shown.grid
    found = ranked(query, grid)
    agreeing = [c for c in found if same_values(c.result.values, values)]
    # The judge's probability that the parser's likeliest program computing the same is right:
    # summing every agreeing program would count the many that happen to read the first row.
    confidence = 0.0
    if agreeing:
        choice = TableChoice(0, 0, "", grid, agreeing[0], relevance(query, grid))
        confidence = probability(signals(query, choice, found))
    holding = rows_holding(values, grid)
    rows = agreeing[0].result.rows if agreeing else holding
    computed = not holding or any(isinstance(value, int | float) for value in values)
    said = said_values(values)
    words = f"Computed by the model's query over {grid.label}: {' '.join(sql.split())}"
    row_chunks = list(
        dict.fromkeys(grid.chunk_ids[row] for row in rows[:CITED_ROWS] if grid.chunk_ids[row])
    )
    structure = {
        "program": {"op": "sql", "sql": sql, "by": "model", "table": shown.named.name},
        "words": words,
        "values": answer_values(values),
        "computed": computed,
        "result": said,
        "confidence": round(confidence, 4),
        "relevance": round(relevance(query, grid), 4),
        "table_id": shown.named.table_id,
        "rows": [grid.row_numbers[row] for row in rows[:CITED_ROWS]],
        "row_chunks": row_chunks,
        "caption": grid.label,
        "ms": round((time.perf_counter() - started) * 1000, 1),
    }
    return computed_hits(structure, shown.document_id, shown.file_name)
