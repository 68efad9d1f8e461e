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
from django.db import connection
from django.db.models import F
from django.utils import timezone

from knowledge.models import Chunk, Document, KnowledgeBase


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
    KnowledgeBase.objects.select_for_update().filter(id=kb_id).first()
    removed_chunks, removed_tokens, touched_entities = delete_document_rows(document.id)
    rows = Chunk.objects.bulk_create(
        [
            Chunk(
                document_id=document.id,
                knowledge_base_id=kb_id,
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
    chunk_ids = [row.id for row in rows]
    with connection.cursor() as cursor:
        with cursor.copy(
            "COPY knowledge_posting (chunk_id, knowledge_base_id, term, tf, chunk_length) "
            "FROM STDIN"
        ) as copy:
            for chunk_id, chunk in zip(chunk_ids, chunks):
                length = chunk.bm25_length
                for term, tf in chunk.term_counts.items():
                    copy.write_row((chunk_id, kb_id, term, tf, length))
        names = sorted({name for chunk in chunks for name in chunk.entities})
        entity_ids: dict[str, int] = {}
        if names:
            cursor.execute(
                "INSERT INTO knowledge_entity (knowledge_base_id, name) "
                "SELECT %s, unnest(%s::text[]) ON CONFLICT DO NOTHING",
                [kb_id, names],
            )
            cursor.execute(
                "SELECT name, id FROM knowledge_entity "
                "WHERE knowledge_base_id = %s AND name = ANY(%s)",
                [kb_id, names],
            )
            entity_ids = dict(cursor.fetchall())
        edge_count = 0
        with cursor.copy(
            "COPY knowledge_chunkentity (chunk_id, entity_id, knowledge_base_id, weight) FROM STDIN"
        ) as copy:
            for chunk_id, chunk in zip(chunk_ids, chunks):
                for name, count in chunk.entities.items():
                    copy.write_row((chunk_id, entity_ids[name], kb_id, float(count)))
                    edge_count += 1
    added_tokens = sum(chunk.bm25_length for chunk in chunks)
    KnowledgeBase.objects.filter(id=kb_id).update(
        chunk_count=F("chunk_count") - removed_chunks + len(chunks),
        token_total=F("token_total") - removed_tokens + added_tokens,
        updated_at=timezone.now(),
    )
    delete_orphan_entities(touched_entities)
    return {"chunks": len(chunks), "entities": len(names), "edges": edge_count}


def delete_document_rows(document_id: int) -> tuple[int, int, list[int]]:
    """Delete a document's chunks, postings and edges.

    Returns the chunks and tokens removed, and the entities that lost an edge.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), coalesce(sum(bm25_length), 0) FROM knowledge_chunk "
            "WHERE document_id = %s",
            [document_id],
        )
        chunks, tokens = cursor.fetchone()
        if not chunks:
            return 0, 0, []
        cursor.execute(
            "DELETE FROM knowledge_posting WHERE chunk_id IN "
            "(SELECT id FROM knowledge_chunk WHERE document_id = %s)",
            [document_id],
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
