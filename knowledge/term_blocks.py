"""A large knowledge base's postings copied into one row per term, for BM25 to read fast.

PostgreSQL spends about 1.5 µs on each posting row it reads and sums, so a query with a term
held by 100,000 chunks of a million-chunk KB cost 150 ms or more before a single score was
known. Here a KB with at least `TERM_BLOCKS_MIN_CHUNKS` chunks also has its postings as arrays,
one row per term (`TermBlock`: chunk ids, tfs and chunk lengths), which BM25 reads in a few
milliseconds and scores with numpy (knowledge/retrieval/bm25.py).

The copy is made as of a watermark, a chunk id: every chunk of the KB up to it is in the
copy, unless it has been deleted since (BM25 checks the few chunks it returns). Chunks after
the watermark are read from `Posting`, through its (term, knowledge base, chunk) index. Chunk
ids only grow, and a writer holds its KB's row lock from before its chunks get their ids
until it commits, so once the builder has held that lock, every chunk of the KB up to the
highest visible id is committed, and every later one gets a higher id.

Copies are made outside any request and any transaction the caller holds: by the periodic
`term_blocks_build` task, which makes those of KBs grown large enough and makes again those
whose chunks changed by more than `TERM_BLOCKS_REBUILD_FRACTION` since, and at the end of a bulk
ingestion. A build holds an advisory lock on its KB so two workers never make the same copy.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone

from knowledge.models import KnowledgeBase, TermBlockSet

logger = logging.getLogger(__name__)

# pg_try_advisory_lock(LOCK_CLASS, kb_id): the first key names this lock's use.
LOCK_CLASS = 0x74_62_6C_6B  # "tblk"


def build_blocks(kb_id: int, *, using: str = "default") -> bool:
    """Copy a KB's postings into term blocks, replacing its old copy; return whether this
    call made one.

    Not inside a caller's transaction: the watermark is only safe once the KB's row lock has
    been taken and released in a transaction of its own.
    """
    connection = connections[using]
    if connection.in_atomic_block:
        return False
    kb_id = int(kb_id)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [LOCK_CLASS, kb_id])
        if not cursor.fetchone()[0]:
            return False  # another worker is making it
    try:
        return _build(connection, kb_id, using)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_CLASS, kb_id])


def _build(connection, kb_id: int, using: str) -> bool:
    started = time.monotonic()
    with transaction.atomic(using=using), connection.cursor() as cursor:
        # Waits for the KB's writers in flight; none can be between taking chunk ids and
        # committing them while this lock is held.
        cursor.execute(
            "SELECT 1 FROM knowledge_knowledgebase WHERE id = %s FOR NO KEY UPDATE", [kb_id]
        )
        if cursor.fetchone() is None:
            return False  # deleted meanwhile
        cursor.execute(
            "SELECT id FROM knowledge_chunk WHERE knowledge_base_id = %s ORDER BY id DESC LIMIT 1",
            [kb_id],
        )
        row = cursor.fetchone()
        watermark = int(row[0]) if row else 0
    with transaction.atomic(using=using), connection.cursor() as cursor:
        # KEY SHARE: the KB cannot be deleted under the copy; its writers go on.
        cursor.execute(
            "SELECT chunk_count FROM knowledge_knowledgebase WHERE id = %s FOR KEY SHARE", [kb_id]
        )
        if cursor.fetchone() is None:
            return False
        cursor.execute("SET LOCAL work_mem = '256MB'")
        cursor.execute("DELETE FROM knowledge_termblock WHERE knowledge_base_id = %s", [kb_id])
        # Term by term (every term with postings has its statistics row), each read as one
        # range of the (term, knowledge base, chunk) index, already in chunk order.
        cursor.execute(
            "INSERT INTO knowledge_termblock "
            "(knowledge_base_id, term, df, chunk_ids, tfs, lengths) "
            "SELECT s.knowledge_base_id, s.term, b.df, b.chunk_ids, b.tfs, b.lengths "
            "FROM knowledge_termstat s CROSS JOIN LATERAL (SELECT count(*) AS df, "
            "string_agg(int8send(p.chunk_id), '' ORDER BY p.chunk_id) AS chunk_ids, "
            "string_agg(int4send(p.tf::int4), '' ORDER BY p.chunk_id) AS tfs, "
            "string_agg(int4send(p.chunk_length::int4), '' ORDER BY p.chunk_id) AS lengths "
            "FROM knowledge_posting p WHERE p.term = s.term "
            "AND p.knowledge_base_id = s.knowledge_base_id AND p.chunk_id <= %s) AS b "
            "WHERE s.knowledge_base_id = %s AND b.df > 0",
            [watermark, kb_id],
        )
        cursor.execute(
            "SELECT count(*) FROM knowledge_chunk WHERE knowledge_base_id = %s AND id <= %s",
            [kb_id, watermark],
        )
        copied = int(cursor.fetchone()[0])
        elapsed = time.monotonic() - started
        cursor.execute(
            "INSERT INTO knowledge_termblockset "
            "(knowledge_base_id, watermark, chunk_count, built_at, build_seconds) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (knowledge_base_id) DO UPDATE SET "
            "watermark = EXCLUDED.watermark, chunk_count = EXCLUDED.chunk_count, "
            "built_at = EXCLUDED.built_at, build_seconds = EXCLUDED.build_seconds",
            [kb_id, watermark, copied, timezone.now(), elapsed],
        )
        cursor.execute("ANALYZE knowledge_termblock")
    logger.info("term blocks of KB %s: %s chunks in %.1f s", kb_id, copied, elapsed)
    return True


def drop_blocks(kb_id: int, *, using: str = "default") -> bool:
    """Remove a KB's term blocks (BM25 then reads its posting rows), unless a copy of them is
    being made; return whether they were removed."""
    connection = connections[using]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [LOCK_CLASS, int(kb_id)])
        if not cursor.fetchone()[0]:
            return False
    try:
        with transaction.atomic(using=using), connection.cursor() as cursor:
            cursor.execute(
                "DELETE FROM knowledge_termblockset WHERE knowledge_base_id = %s", [kb_id]
            )
            cursor.execute("DELETE FROM knowledge_termblock WHERE knowledge_base_id = %s", [kb_id])
        return True
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_CLASS, int(kb_id)])


def staleness(kb_id: int, *, using: str = "default") -> float | None:
    """Return the share of a KB's copied chunks that changed since its copy (chunks added
    after the watermark plus copied chunks deleted), or None without a copy.

    Only the chunks after the watermark are counted (a range of the chunk table's (knowledge
    base, id) index); the deleted ones follow from the KB's chunk count.
    """
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT s.chunk_count, kb.chunk_count, "
            "(SELECT count(*) FROM knowledge_chunk c "
            " WHERE c.knowledge_base_id = s.knowledge_base_id AND c.id > s.watermark) "
            "FROM knowledge_termblockset s "
            "JOIN knowledge_knowledgebase kb ON kb.id = s.knowledge_base_id "
            "WHERE s.knowledge_base_id = %s",
            [kb_id],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    copied, chunks, added = row
    deleted = max(copied - (chunks - added), 0)
    return (added + deleted) / max(copied, 1)


def refresh_blocks(kb_id: int, *, using: str = "default") -> bool:
    """Bring a KB's term blocks in line with its size; return whether a copy was made.

    A KB of at least `TERM_BLOCKS_MIN_CHUNKS` chunks gets a copy; one with a copy keeps it
    until it shrinks under half that, and it is copied again once stale.
    """
    minimum = settings.TERM_BLOCKS_MIN_CHUNKS
    size = KnowledgeBase.objects.using(using).filter(id=kb_id).values_list("chunk_count").first()
    stale = staleness(kb_id, using=using)
    if size is None or (stale is None and size[0] < minimum):
        return False
    if stale is not None and size[0] < minimum // 2:
        drop_blocks(kb_id, using=using)
        return False
    if stale is not None and stale <= settings.TERM_BLOCKS_REBUILD_FRACTION:
        return False
    return build_blocks(kb_id, using=using)


def blocks_maintain() -> dict[str, list[int]]:
    """Copy the KBs grown large enough, copy again the stale ones, drop those shrunk under
    half the threshold and those of deleted KBs (a KB's delete removes them too)."""
    minimum = settings.TERM_BLOCKS_MIN_CHUNKS
    sizes = dict(KnowledgeBase.objects.values_list("id", "chunk_count"))
    have = set(TermBlockSet.objects.values_list("knowledge_base_id", flat=True))
    dropped, built = [], []
    for kb_id in sorted(have | {kb_id for kb_id, size in sizes.items() if size >= minimum}):
        try:
            if kb_id in have and sizes.get(kb_id, 0) < minimum // 2:
                if drop_blocks(kb_id):
                    dropped.append(kb_id)
            elif refresh_blocks(kb_id):
                built.append(kb_id)
        except Exception:  # one KB's failure leaves the others to be kept
            logger.exception("term blocks of KB %s", kb_id)
    return {"dropped": dropped, "built": built}
