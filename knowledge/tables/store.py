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
one of the table's rows, or a run of them), and the program reads what the question names (a
column whose header it says, or a cell it names whole). A lookup of one row is left to that
row's chunk unless the program accounts for every word of the question, and a program no word
of the question asks for is held back: either answers only when the passages find nothing.
Otherwise the store returns nothing and the passages answer, as before.

With a generative provider, the model may write the program as SQL instead
(knowledge/tables/model_search.py); the parser's program is its fallback and its judge.
"""

from __future__ import annotations

import logging
import math
import time

from django.conf import settings
from django.db import DatabaseError

from knowledge.chunk_kinds import KIND_TABLE, SECTION_SEPARATOR
from knowledge.models import Chunk, Table, TableRow
from knowledge.retrieval.bm25 import bm25_scores, corpus_stats, term_idfs
from knowledge.retrieval.db import retrieval_alias
from knowledge.retrieval.filters import as_filter
from knowledge.retrieval.hits import SOURCE_TABLE, Hit, hydrate
from knowledge.tables import finding
from knowledge.tables.asked import asked_of_another_table
from knowledge.tables.between import derived
from knowledge.tables.choice import TableChoice, stands_highest
from knowledge.tables.content import content_words
from knowledge.tables.finding import Votes
from knowledge.tables.nested import nested_choice
from knowledge.tables.programs import Grid, fold
from knowledge.tables.question import stem
from knowledge.tables.rules import (
    asks_for_its_operation,
    fits_by_its_words,
    left_to_its_row,
    names_what_it_reads,
    relevance,
    uses_its_names,
)
from knowledge.tables.steps import (
    joined_step,
    offered_word_step,
    one_of_them_step,
    same_row_step,
    same_yes_or_no_step,
    split_two_step,
    threshold_question,
    threshold_step,
    years_apart_step,
    yes_or_no_step,
)
from knowledge.tables.trying import tried
from knowledge.tables.votes import dense_votes, lexical_votes
from knowledge.tables.wording import CITED_ROWS, computed_text, step_values
from providers.tokenize import bm25_tokens

logger = logging.getLogger(__name__)

KIND_COMPUTED = "computed"
# Tables a question's program is sought in, at most (on the dev fifth's 340 tables in one
# knowledge base, the best program of the best-fitting of 3 was right for 78 of 300 questions,
# of 4 for 83, of 5 or 6 for 83).
TABLES_PER_QUESTION = 4
# A knowledge base with at most this many tables (in the searched documents) has each tried.
ALL_TABLES_UP_TO = 3
# Else the tables their rows' votes put first are shortlisted (knowledge/tables/votes.py).
TABLES_SHORTLISTED = 10


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


def _searched_tables(kb_ids: list[int], filters):
    """The tables the store computes on: the searched documents' tables of at most
    TABLE_MAX_ROWS rows (a longer one is left to its row chunks: the parser runs every
    candidate program over every row, about 0.4 s per 1,000 rows here)."""
    document_filter = as_filter(filters)
    tables = Table.objects.using(retrieval_alias()).filter(
        knowledge_base_id__in=kb_ids, row_count__lte=settings.TABLE_MAX_ROWS
    )
    if document_filter.documents:
        tables = tables.filter(document_id__in=document_filter.documents)
    if document_filter.file_types:
        tables = tables.filter(document__file_type__in=document_filter.matched_file_types())
    return tables


def the_only_table(kb_ids: list[int], filters) -> bool:
    """Whether the searched documents hold one table the store computes on."""
    return _searched_tables(kb_ids, filters).count() == 1


def table_votes(
    kb_ids: list[int], query: str, filters, loaded_grids: dict | None = None
) -> dict[int, float]:
    """Return the tables to try, most likely first, each with its share of their votes (how
    likely the question is about it; 1.0 for each when the searched documents hold so few
    tables that all are tried). The tables it reads are kept in `loaded_grids`."""
    tables = _searched_tables(kb_ids, filters)
    ids = list(tables.order_by("id").values_list("id", flat=True)[: ALL_TABLES_UP_TO + 1])
    if len(ids) <= ALL_TABLES_UP_TO:
        return dict.fromkeys(ids, 1.0)
    votes, grids, by_votes = shortlisted(kb_ids, query, filters, tables, loaded_grids)
    return _found(kb_ids, query, votes, grids, by_votes) or by_votes


def shortlisted(
    kb_ids: list[int], query: str, filters, tables, loaded_grids: dict | None = None
) -> tuple[Votes, dict[int, Grid], dict[int, float]]:
    """Return the tables' row votes, the shortlisted tables' grids, and the tables to try by
    votes: the best TABLES_PER_QUESTION of the shortlist, each with its share."""
    votes = Votes(lexical_votes(kb_ids, query, filters, tables) or label_votes(query, tables))
    # The tables BM25's rows vote for most, then those the embedder's do that it left out
    # ("which country won the most medals?" names no cell, and its rows are near a medal
    # table's): on the dev fifth's 340 tables in one knowledge base, the question's table was
    # among BM25's ten for 75 % of 900 questions, among either's ten for 87 %.
    if not votes.lexical:
        # No row holds a word of the question: the embedder alone finds some table near any
        # question, and that is no sign the question is about one.
        return votes, {}, {}
    votes.dense = dense_votes(kb_ids, query, filters, tables)
    lexical, dense = votes.lexical, votes.dense
    shortlist = sorted(lexical, key=lexical.get, reverse=True)[:TABLES_SHORTLISTED]
    shortlist += [
        table_id
        for table_id in sorted(dense, key=dense.get, reverse=True)[:TABLES_SHORTLISTED]
        if table_id not in shortlist
    ]
    top = max(lexical.values()) or 1.0
    keyed, grids = {}, {}
    # Among the tables their rows put first, those that hold more of the question lead ("who
    # won the most gold medals?" is about a table headed Gold as much as about its rows).
    for table_id in shortlist:
        loaded = load_grid(table_id, loaded_grids)
        if loaded is not None:
            grids[table_id] = loaded[0]
            share = lexical.get(table_id, 0.0) / top
            keyed[table_id] = share * math.sqrt(relevance(query, loaded[0]))
    best = sorted(keyed.items(), key=lambda pair: -pair[1])[:TABLES_PER_QUESTION]
    total = sum(vote for _, vote in best) or 1.0
    return votes, grids, {table_id: vote / total for table_id, vote in best}


def label_votes(query: str, tables) -> dict[int, float]:
    """Return a vote for each table whose label (its file, sheet, section or caption) says a
    word the question names, for a question no row shares a word with: "which incident had the
    longest downtime?" names incidents.pdf, whose rows say only dates, systems and minutes."""
    named = {stem(word) for word in content_words(query)}
    votes = {}
    for table_id, file_name, caption, section in tables.values_list(
        "id", "document__file_name", "caption", "section"
    ):
        label = fold(_label(file_name, caption, list(section or [])))
        if named & {stem(word) for word in label.split()}:
            votes[table_id] = 1.0
    return votes


def finding_signals(
    kb_ids: list[int],
    query: str,
    votes: Votes,
    grids: dict[int, Grid],
    by_votes: dict[int, float],
):
    """Return the shortlisted tables, best row vote first, and their signals for the finding
    model (knowledge/tables/finding.py)."""
    shortlist = sorted(grids, key=lambda table_id: votes.lexical.get(table_id, 0.0), reverse=True)
    idfs = term_idfs(kb_ids, sorted(set(bm25_tokens(query))), corpus_stats(kb_ids))
    return shortlist, finding.signals(query, shortlist, votes, grids, by_votes, idfs)


def _found(
    kb_ids: list[int],
    query: str,
    votes: Votes,
    grids: dict[int, Grid],
    by_votes: dict[int, float],
) -> dict[int, float] | None:
    """Return the shortlisted tables the question is likeliest about, each with its share, as
    the fitted model orders them; None without one. On the dev fifth's 340 tables in one
    knowledge base (300 held-out questions): the question's table first for 184 against 153
    by votes."""
    model = finding.load_finding()
    if model is None or len(grids) < 2:
        return None
    shortlist, matrix = finding_signals(kb_ids, query, votes, grids, by_votes)
    return finding.likeliest(shortlist, matrix, model, TABLES_PER_QUESTION)


def load_grid(table_id: int, loaded: dict | None = None) -> tuple[Grid, int, str, int] | None:
    """Return a stored table as a grid, with its document's id and file name and its KB (kept
    in `loaded`, and read from it when it is there)."""
    if loaded is not None:
        if table_id not in loaded:
            loaded[table_id] = load_grid(table_id)
        return loaded[table_id]
    table = (
        Table.objects.using(retrieval_alias())
        .select_related("document")
        .filter(id=table_id)
        .first()
    )
    if table is None:
        return None
    rows = list(table.rows.order_by("number").values_list("number", "cells", "values", "chunk_id"))
    grid = derived(
        Grid.build(
            _label(table.document.file_name, table.caption, list(table.section or [])),
            table.columns,
            [(number, cells, values) for number, cells, values, _ in rows],
            [chunk_id for *_, chunk_id in rows],
        )
    )
    return grid, table.document_id, table.document.file_name, table.knowledge_base_id


def supported(kb_ids: list[int], query: str, filters, table_ids: list[int]) -> bool:
    """Whether the passage BM25 ranks first for the question is one of the tables' rows, or a
    run of one table's rows (`structure["table"]` is its ordinal): the question is about the table even when its words are not
    the table's ("who won the most gold medals?" over a medal table headed Nation, Gold,
    Silver). A question about the prose beside the tables finds its prose first."""
    top = bm25_scores(kb_ids=kb_ids, query=query, top_k=1, filters=filters)
    if not top:
        return False
    alias = retrieval_alias()
    if TableRow.objects.using(alias).filter(table_id__in=table_ids, chunk_id=top[0][0]).exists():
        return True
    run = (
        Chunk.objects.using(alias)
        .filter(id=top[0][0], kind=KIND_TABLE)
        .values("document_id", "structure")
        .first()
    )
    return run is not None and (
        Table.objects.using(alias)
        .filter(
            id__in=table_ids,
            document_id=run["document_id"],
            ordinal=(run["structure"] or {}).get("table", -1),
        )
        .exists()
    )


def choose(kb_ids: list[int], query: str, filters=None) -> TableChoice | None:
    """Return the best program over the question's tables, with the steps after it, or None
    when none fits."""
    if not the_only_table(kb_ids, filters):
        nested = nested_choice(kb_ids, query, filters, choose)
        if nested is not None:
            return nested
    first, second = split_two_step(query)
    # "Are there at least 10 songs?" asks how many there are first, then measures it.
    threshold = None if second else threshold_question(first)
    if threshold is not None:
        first = threshold[0]
    grids: dict[int, tuple | None] = {}
    votes = table_votes(kb_ids, query, filters, grids)
    tried, loaded_grids = tried_tables(query, first, votes, grids)
    best = stands_highest(tried)
    if best is None or not _admitted(kb_ids, query, filters, first, second, best):
        return None
    best.others = _other_tables(best, loaded_grids)
    others = [grid for _, grid in best.others]
    if second or threshold is not None:
        step = (
            same_row_step(second, best)
            if second
            else threshold_step(threshold[1], threshold[2], best)
        )
        if step is None:
            return None  # the second step finds nothing: the passages answer, or nothing does
        best.steps.append(step)
    else:
        step = (
            offered_word_step(query, best)
            or yes_or_no_step(query, best)
            or same_yes_or_no_step(query, best)
            or years_apart_step(query, best)
            or joined_step(query, best)
            or one_of_them_step(query, best)
        )
        if step is not None:
            best.steps.append(step)
    if best.tentative and not best.steps and asked_of_another_table(first, best.grid, others):
        return None  # a held-back reading of a table that holds none of the things asked for
    return best


def tried_tables(
    query: str, first: str, votes: dict[int, float], grids: dict | None = None
) -> tuple[list[tuple[TableChoice, tuple]], list[tuple[int, Grid]]]:
    """Return each voted table's best program for the question's first step with its standing
    (knowledge/tables/trying.py), in the order of the votes, and every table loaded on the way."""
    tables = [(table_id, vote, load_grid(table_id, grids)) for table_id, vote in votes.items()]
    tables = [(table_id, vote, loaded) for table_id, vote, loaded in tables if loaded is not None]
    return tried(query, first, tables), [(table_id, loaded[0]) for table_id, _, loaded in tables]


def _admitted(
    kb_ids: list[int], query: str, filters, first: str, second: str, best: TableChoice
) -> bool:
    """Whether the best program may answer, marking it tentative when only the judge's lower
    bar admits it."""
    # The question must be about the table and the program must read every name it says,
    # whatever the judge says. Then the judge or the program's words admit it, unless no word
    # of the question asks for its operation or it is a lookup it does not account for (left
    # to the row's chunk). A program they do not admit is tentative when the judge gives it
    # TABLE_TENTATIVE_MIN (TABLE_ANSWER_MIN when no word asks for its operation, or for a
    # lookup of a column the question does not name): the answer when the passages find
    # nothing, never verified.
    if not uses_its_names(first, best):
        return False
    left = left_to_its_row(first, best, second)
    unasked = not asks_for_its_operation(first, best)
    if best.relevance < settings.TABLE_RELEVANCE_MIN and not supported(
        kb_ids, query, filters, [best.table_id]
    ):
        # A question that says nothing the table holds ("who came in first?") may still be
        # about the only table searched: its likeliest reading when a word asks for it.
        best.tentative = True
        return (
            not (left or unasked)
            and best.confidence >= settings.TABLE_ANSWER_MIN
            and the_only_table(kb_ids, filters)
        )
    unsure = best.confidence < settings.TABLE_ANSWER_MIN and not fits_by_its_words(first, best)
    best.tentative = left or unasked or unsure
    best.left_to_its_row = left and not (unasked or unsure)
    bar = (
        settings.TABLE_ANSWER_MIN
        if unasked or (left and not names_what_it_reads(first, best))
        else settings.TABLE_TENTATIVE_MIN
    )
    return not best.tentative or best.confidence >= bar


def _other_tables(best: TableChoice, loaded_grids: list[tuple[int, Grid]]) -> list:
    """Return the tables a join may read: the question's other tables, then the other tables of
    the chosen table's document (a workbook's sheets); not a table the chosen grid holds (two
    tables read as one, knowledge/tables/joined.py)."""
    held = {best.table_id, *([best.joined.second] if best.joined else [])}
    others = [(t, g) for t, g in loaded_grids if t not in held]
    others += [
        (table_id, grid) for table_id, grid in document_tables(best.document_id)
        if table_id not in held and table_id not in {t for t, _ in others}
    ]  # fmt: skip
    return others


def document_tables(document_id: int) -> list[tuple[int, Grid]]:
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


def table_search(q) -> list[Hit]:
    """The table store's search: the computed passage, then the rows it read."""
    started = time.perf_counter()
    try:
        choice = choose(q.kb_ids, q.query, q.filters)
    except DatabaseError:
        raise  # the database is the run's: a failure there ends it, as for every store
    except Exception:
        # A fault in the parser or its rules costs the question its computed passage, not the
        # run: the passages answer, as for a question no program fits.
        logger.exception("the table store's program failed; the passages answer")
        return []
    if choice is None:
        return []
    said, words = computed_text(choice)
    result = choice.best.result
    row_chunks = [choice.grid.chunk_ids[row] for row in result.rows[:CITED_ROWS]]
    if choice.joined:  # two tables read as one: the second's rows the first's name, too
        row_chunks += [choice.joined.chunks[row] for row in result.rows[:CITED_ROWS]]
    row_chunks += [step.chunk_id for step in [*choice.steps, choice.before] if step]
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
        # The kind of the last step after the program ("row", "join", "word", "one"), "" for none.
        "step": choice.steps[-1].kind if choice.steps else "",
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
