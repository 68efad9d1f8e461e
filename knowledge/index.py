"""The one module that writes a knowledge base's index rows: chunks (with their vectors),
BM25 postings and per-KB statistics, entities and chunk-entity edges.

Every write runs in the caller's transaction, so a document's new rows replace its old ones
all at once or not at all.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from knowledge.models import Chunk, Document, KnowledgeBase, Table, TableRow
from knowledge.retrieval.bm25 import K1, B
from knowledge.tables.build import tables_from_chunks


@dataclass
class PreparedChunk:
    """A chunk with everything the three stores need, ready to be written."""

    ordinal: int
    text: str
    page: int | None
    char_start: int
    char_end: int
    section: tuple[str, ...] = ()
    kind: str = "prose"
    structure: dict | None = None
    # What is embedded and indexed: the text under its section path.
    index_text: str = ""
    embedding: np.ndarray | None = None
    term_counts: Counter = field(default_factory=Counter)
    entities: dict[str, int] = field(default_factory=dict)

    @property
    def bm25_length(self) -> int:
        return sum(self.term_counts.values())


def write_chunks(*, document: Document, chunks: list[PreparedChunk]) -> dict[str, int]:
    """Replace a document's chunks, postings and edges in the caller's transaction."""
    kb_id = document.knowledge_base_id
    # Locking the KB row serialises statistics updates of concurrent ingestions into one KB.
    # FOR NO KEY UPDATE: documents can still be added to the KB meanwhile (their foreign key
    # check takes a KEY SHARE lock), as the bulk ingestion's main thread does.
    kb = KnowledgeBase.objects.select_for_update(no_key=True).filter(id=kb_id).first()
    removed_chunks, removed_tokens, touched_entities = delete_document_rows(document.id)
    chunks_after = kb.chunk_count - removed_chunks + len(chunks)
    tokens_after = kb.token_total - removed_tokens + sum(chunk.bm25_length for chunk in chunks)
    avgdl = tokens_after / chunks_after if chunks_after and tokens_after else 1.0
    chunk_ids = _create_chunks(document, chunks)
    tables = write_tables(document, chunks, chunk_ids)
    with connection.cursor() as cursor:
        add_term_stats(cursor, kb_id, chunks, avgdl)
        _copy_postings(cursor, kb_id, chunks, chunk_ids)
        names = sorted({name for chunk in chunks for name in chunk.entities})
        entity_ids = _entity_ids(cursor, kb_id, names)
        edge_count = _copy_edges(cursor, kb_id, chunks, chunk_ids, entity_ids)
    added_tokens = sum(chunk.bm25_length for chunk in chunks)
    KnowledgeBase.objects.filter(id=kb_id).update(
        chunk_count=F("chunk_count") - removed_chunks + len(chunks),
        token_total=F("token_total") - removed_tokens + added_tokens,
        updated_at=timezone.now(),
    )
    delete_orphan_entities(touched_entities)
    return {
        "chunks": len(chunks), "entities": len(names), "edges": edge_count, "tables": tables
    }  # fmt: skip


def _create_chunks(document: Document, chunks: list[PreparedChunk]) -> list[int]:
    """Write a document's chunk rows; return their ids, in the chunks' order."""
    rows = Chunk.objects.bulk_create(
        [
            Chunk(
                document_id=document.id,
                knowledge_base_id=document.knowledge_base_id,
                ordinal=chunk.ordinal,
                text=chunk.text,
                text_md5=hashlib.md5(chunk.text.encode()).hexdigest(),
                page=chunk.page,
                char_start=chunk.char_start,
                char_end=chunk.char_end,
                embedding=chunk.embedding,
                bm25_length=chunk.bm25_length,
                section=list(chunk.section),
                kind=chunk.kind,
                structure=chunk.structure,
            )
            for chunk in chunks
        ],
        batch_size=500,
    )
    return [row.id for row in rows]


def _copy_postings(cursor, kb_id: int, chunks: list[PreparedChunk], chunk_ids: list[int]) -> None:
    """Write the chunks' BM25 postings (a term's count in a chunk, and the chunk's length)."""
    with cursor.copy(
        "COPY knowledge_posting (chunk_id, knowledge_base_id, term, tf, chunk_length) FROM STDIN"
    ) as copy:
        for chunk_id, chunk in zip(chunk_ids, chunks):
            length = chunk.bm25_length
            for term, tf in chunk.term_counts.items():
                copy.write_row((chunk_id, kb_id, term, tf, length))


def _entity_ids(cursor, kb_id: int, names: list[str]) -> dict[str, int]:
    """Return the ids of a knowledge base's entities of these names, adding the new ones."""
    if not names:
        return {}
    cursor.execute(
        "INSERT INTO knowledge_entity (knowledge_base_id, name) "
        "SELECT %s, unnest(%s::text[]) ON CONFLICT DO NOTHING",
        [kb_id, names],
    )
    cursor.execute(
        "SELECT name, id FROM knowledge_entity WHERE knowledge_base_id = %s AND name = ANY(%s)",
        [kb_id, names],
    )
    return dict(cursor.fetchall())


def _copy_edges(
    cursor, kb_id: int, chunks: list[PreparedChunk], chunk_ids: list[int], entity_ids: dict
) -> int:
    """Write the chunk-entity edges, weighted by how often a chunk names the entity; return
    how many."""
    edge_count = 0
    with cursor.copy(
        "COPY knowledge_chunkentity (chunk_id, entity_id, knowledge_base_id, weight) FROM STDIN"
    ) as copy:
        for chunk_id, chunk in zip(chunk_ids, chunks):
            for name, count in chunk.entities.items():
                copy.write_row((chunk_id, entity_ids[name], kb_id, float(count)))
                edge_count += 1
    return edge_count


def write_tables(document: Document, chunks: list[PreparedChunk], chunk_ids: list[int]) -> int:
    """Write the tables the chunks hold as data (knowledge/tables/), each row pointing at its
    row chunk; return how many."""
    tables = tables_from_chunks(chunks)
    if not tables:
        return 0
    made = Table.objects.bulk_create(
        [
            Table(
                document_id=document.id,
                knowledge_base_id=document.knowledge_base_id,
                ordinal=table.ordinal,
                caption=table.caption,
                section=table.section,
                page=table.page,
                columns=table.columns,
                row_count=len(table.rows),
                dropped=table.dropped,
            )
            for table in tables
        ]
    )
    TableRow.objects.bulk_create(
        [
            TableRow(
                table_id=row_table.id,
                number=row.number,
                chunk_id=chunk_ids[row.chunk],
                cells=row.cells,
                values=row.values,
            )
            for row_table, table in zip(made, tables, strict=True)
            for row in table.rows
        ],
        batch_size=1000,
    )
    return len(tables)


def tables_rebuild(kb_id: int | None = None) -> tuple[int, int]:
    """Build a KB's (or every KB's) tables again from their documents' row chunks, with the
    table rules of this version (a totals row, a repeated header, column types); return how
    many documents and tables. No text is read or embedded again: the chunks are the rows.

    Each document's tables are replaced in one transaction holding the document's row, so a
    re-index or a delete of that document waits; documents not ready are left to their
    ingestion, which writes their tables itself."""
    documents = Document.objects.filter(status=Document.Status.READY)
    if kb_id is not None:
        documents = documents.filter(knowledge_base_id=kb_id)
    rebuilt = written = 0
    for document_id in documents.order_by("id").values_list("id", flat=True):
        with transaction.atomic():
            document = (
                Document.objects.select_for_update()
                .filter(id=document_id, status=Document.Status.READY)
                .first()
            )
            if document is None:
                continue
            chunks = list(
                Chunk.objects.filter(document_id=document.id, kind=Chunk.Kind.ROW)
                .order_by("ordinal")
                .only("id", "kind", "structure", "section", "page")
            )
            Table.objects.filter(document_id=document.id).delete()
            written += write_tables(document, chunks, [chunk.id for chunk in chunks])
            rebuilt += 1
    return rebuilt, written


def add_term_stats(cursor, kb_id: int, chunks: list[PreparedChunk], avgdl: float) -> None:
    """Add new chunks' terms to the KB's term statistics: df, and the largest tf factor at the
    KB's average chunk length after this write (an older maximum is first widened to it).
    The caller holds the KB's row lock, which orders concurrent writers."""
    stats: dict[str, list] = {}
    for chunk in chunks:
        length = chunk.bm25_length
        for term, tf in chunk.term_counts.items():
            impact = tf_factor(tf, length, avgdl)
            entry = stats.get(term)
            if entry is None:
                stats[term] = [1, impact]
            else:
                entry[0] += 1
                entry[1] = max(entry[1], impact)
    if not stats:
        return
    terms = sorted(stats)
    cursor.execute(
        "INSERT INTO knowledge_termstat AS t "
        "(knowledge_base_id, term, df, max_impact, impact_avgdl) "
        "SELECT %(kb)s, term, df, impact, %(avgdl)s "
        "FROM unnest(%(terms)s::text[], %(dfs)s::int[], %(impacts)s::float8[]) "
        "AS n(term, df, impact) "
        "ON CONFLICT (knowledge_base_id, term) DO UPDATE SET df = t.df + EXCLUDED.df, "
        "max_impact = greatest(t.max_impact * greatest(1, %(avgdl)s / t.impact_avgdl), "
        "EXCLUDED.max_impact), impact_avgdl = %(avgdl)s",
        {
            "kb": kb_id,
            "avgdl": avgdl,
            "terms": terms,
            "dfs": [stats[term][0] for term in terms],
            "impacts": [stats[term][1] for term in terms],
        },
    )


def tf_factor(tf: int, length: int, avgdl: float) -> float:
    """BM25Okapi's tf factor of one posting, with the default k1 and b."""
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avgdl))


def delete_document_rows(document_id: int) -> tuple[int, int, list[int]]:
    """Delete a document's chunks, postings, edges and tables.

    Returns the chunks and tokens removed, and the entities that lost an edge.
    """
    with connection.cursor() as cursor:
        # Its tables first: their rows point at its chunks.
        cursor.execute(
            "DELETE FROM knowledge_tablerow WHERE table_id IN "
            "(SELECT id FROM knowledge_table WHERE document_id = %s)",
            [document_id],
        )
        cursor.execute("DELETE FROM knowledge_table WHERE document_id = %s", [document_id])
        cursor.execute(
            "SELECT count(*), coalesce(sum(bm25_length), 0) FROM knowledge_chunk "
            "WHERE document_id = %s",
            [document_id],
        )
        chunks, tokens = cursor.fetchone()
        if not chunks:
            return 0, 0, []
        # The postings go, and their terms' document frequencies drop with them.
        cursor.execute(
            "WITH gone AS (DELETE FROM knowledge_posting WHERE chunk_id IN "
            "(SELECT id FROM knowledge_chunk WHERE document_id = %s) "
            "RETURNING knowledge_base_id, term), "
            "counted AS (SELECT knowledge_base_id, term, count(*) AS n FROM gone GROUP BY 1, 2) "
            "UPDATE knowledge_termstat t SET df = greatest(t.df - c.n, 0) FROM counted c "
            "WHERE t.knowledge_base_id = c.knowledge_base_id AND t.term = c.term "
            "RETURNING t.knowledge_base_id, t.term, t.df",
            [document_id],
        )
        emptied = [(kb, term) for kb, term, df in cursor.fetchall() if df <= 0]
        if emptied:
            cursor.execute(
                "DELETE FROM knowledge_termstat WHERE (knowledge_base_id, term) IN "
                "(SELECT * FROM unnest(%s::bigint[], %s::text[]))",
                [[kb for kb, _ in emptied], [term for _, term in emptied]],
            )
        cursor.execute(
            "DELETE FROM knowledge_chunkentity WHERE chunk_id IN "
            "(SELECT id FROM knowledge_chunk WHERE document_id = %s) RETURNING entity_id",
            [document_id],
        )
        entity_ids = sorted({row[0] for row in cursor.fetchall()})
        cursor.execute("DELETE FROM knowledge_chunk WHERE document_id = %s", [document_id])
    return chunks, int(tokens), entity_ids


def delete_orphan_entities(entity_ids: list[int]) -> None:
    """Remove those of the given entities that no chunk mentions any more."""
    if not entity_ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM knowledge_entity e WHERE e.id = ANY(%s) AND NOT EXISTS "
            "(SELECT 1 FROM knowledge_chunkentity ce WHERE ce.entity_id = e.id)",
            [entity_ids],
        )


# A KB's term statistics counted from its postings, at its current average chunk length.
TERM_STATS_FROM_POSTINGS = (
    "INSERT INTO knowledge_termstat (knowledge_base_id, term, df, max_impact, impact_avgdl) "
    "SELECT p.knowledge_base_id, p.term, count(*), "
    "max(p.tf * (%(k1)s + 1) / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.chunk_length / s.avgdl))), "
    "s.avgdl FROM knowledge_posting p JOIN "
    "(SELECT id, token_total::float8 / chunk_count AS avgdl FROM knowledge_knowledgebase "
    "WHERE chunk_count > 0 AND token_total > 0) s ON s.id = p.knowledge_base_id "
    "{where} GROUP BY p.knowledge_base_id, p.term, s.avgdl"
)


def term_stats_rebuild(kb_id: int | None = None) -> int:
    """Count a KB's (or every KB's) term statistics again from its postings; return the rows.

    For after a rolling deploy, when processes that did not keep the statistics wrote postings.
    Call in a transaction: the KB rows are locked, as by the index writer.
    """
    params = {"kb": kb_id, "k1": K1, "b": B}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id FROM knowledge_knowledgebase "
            + ("" if kb_id is None else "WHERE id = %(kb)s ")
            + "ORDER BY id FOR NO KEY UPDATE",
            params,
        )
        where = "" if kb_id is None else "WHERE knowledge_base_id = %(kb)s"
        cursor.execute(f"DELETE FROM knowledge_termstat {where}", params)
        # The term blocks were copied term by term from the statistics: a term missing then
        # is missing from them. They go, and the periodic task copies them again.
        cursor.execute(f"DELETE FROM knowledge_termblock {where}", params)
        cursor.execute(f"DELETE FROM knowledge_termblockset {where}", params)
        cursor.execute(
            TERM_STATS_FROM_POSTINGS.format(
                where="" if kb_id is None else "WHERE p.knowledge_base_id = %(kb)s"
            ),
            params,
        )
        return cursor.rowcount


# The tables a KB's index rows live in, shared by every KB.
INDEX_TABLES = (
    "knowledge_chunk",
    "knowledge_posting",
    "knowledge_termstat",
    "knowledge_entity",
    "knowledge_chunkentity",
)


def analyze_index_tables() -> None:
    """Refresh the planner's statistics of the index tables.

    The tables are shared by every KB; a KB loaded in bulk into a large table is not in
    their statistics until autovacuum next analyzes them, and meanwhile the planner takes it
    for empty. A graph search of a fresh 20,751-chunk KB beside 1.27 million other chunks
    walked all its 40,651 edges for each of 50 chunks (7.7 s) until this ran; then 11 ms.
    """
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {', '.join(INDEX_TABLES)}")
