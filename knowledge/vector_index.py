"""One partial HNSW index per large knowledge base, so a dense search never filters by KB.

A single HNSW index over every KB's chunks answers a search of one KB by walking the graph
of all of them and dropping the other KBs' chunks as it goes: the smaller the KB's share of
the table, the more of the graph each query walks. Here each KB with at least
`VECTOR_INDEX_MIN_CHUNKS` chunks gets its own index (`WHERE knowledge_base_id = <id>`); a
smaller KB is searched exactly, through the knowledge-base index, which at that size costs a
few milliseconds and misses nothing.

Indexes are built outside any request and any transaction, concurrently: by the periodic
`vector_indexes_build` task, and at the end of a bulk ingestion (`manage.py ingest`). A build
holds an advisory lock on its KB, so two workers never build the same index, and a half-built
index left by a dead worker is dropped and built again. A deleted KB's index is dropped by the
same task.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db import connections

from knowledge.models import KnowledgeBase

logger = logging.getLogger(__name__)

# pg_try_advisory_lock(LOCK_CLASS, kb_id): the first key names this lock's use.
LOCK_CLASS = 0x76_69_64_78  # "vidx"


def index_name(kb_id: int) -> str:
    return f"chunk_embedding_kb_{int(kb_id)}"


def indexed_kbs(kb_ids: list[int], *, using: str = "default") -> set[int]:
    """Return which of these KBs have a valid index of their own (a catalog read)."""
    if not kb_ids:
        return set()
    names = {index_name(kb_id): int(kb_id) for kb_id in kb_ids}
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid "
            "WHERE c.relname = ANY(%s) AND i.indisvalid AND i.indisready",
            [list(names)],
        )
        return {names[row[0]] for row in cursor.fetchall()}


def kbs_needing_index() -> list[int]:
    """Return the KBs large enough for an index of their own that have no valid one yet."""
    large = list(
        KnowledgeBase.objects.filter(chunk_count__gte=settings.VECTOR_INDEX_MIN_CHUNKS)
        .order_by("id")
        .values_list("id", flat=True)
    )
    have = indexed_kbs(large)
    return [kb_id for kb_id in large if kb_id not in have]


def build_index(kb_id: int, *, using: str = "default") -> bool:
    """Build a KB's HNSW index, concurrently (reads and writes of the table go on); return
    whether this call built it.

    Not inside a transaction: a plain build there would lock the chunk table until the
    caller commits. The periodic task builds it then.
    """
    connection = connections[using]
    if connection.in_atomic_block:
        return False
    name = index_name(kb_id)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [LOCK_CLASS, int(kb_id)])
        if not cursor.fetchone()[0]:
            return False  # another worker is building it
        try:
            cursor.execute("SELECT 1 FROM knowledge_knowledgebase WHERE id = %s", [int(kb_id)])
            if cursor.fetchone() is None:
                return False  # deleted meanwhile
            cursor.execute(
                "SELECT i.indisvalid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid "
                "WHERE c.relname = %s",
                [name],
            )
            row = cursor.fetchone()
            if row is not None and row[0]:
                return False
            if row is not None:  # left half-built by a worker that died
                cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
            started = time.monotonic()
            memory = int(settings.VECTOR_INDEX_BUILD_MEMORY_MB)
            cursor.execute(f"SET maintenance_work_mem = '{memory}MB'")
            try:
                cursor.execute(
                    f"CREATE INDEX CONCURRENTLY {name} ON knowledge_chunk "
                    "USING hnsw (embedding vector_cosine_ops) "
                    f"WITH (m = 16, ef_construction = 64) WHERE knowledge_base_id = {int(kb_id)}"
                )
            finally:
                cursor.execute("RESET maintenance_work_mem")
            logger.info("built %s in %.1f s", name, time.monotonic() - started)
            return True
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_CLASS, int(kb_id)])


def build_missing_indexes(*, using: str = "default") -> list[int]:
    """Build the index of every KB that needs one; return the KBs built."""
    return [kb_id for kb_id in kbs_needing_index() if build_index(kb_id, using=using)]


def orphan_indexes() -> list[int]:
    """Return the KBs whose index is left although the KB is gone."""
    with connections["default"].cursor() as cursor:
        cursor.execute(
            "SELECT substring(c.relname FROM 'chunk_embedding_kb_([0-9]+)$')::bigint FROM pg_class c "
            "WHERE c.relkind = 'i' AND c.relname ~ '^chunk_embedding_kb_[0-9]+$' "
            "AND NOT EXISTS (SELECT 1 FROM knowledge_knowledgebase kb "
            "WHERE kb.id = substring(c.relname FROM 'chunk_embedding_kb_([0-9]+)$')::bigint)"
        )
        return [row[0] for row in cursor.fetchall()]


def drop_index(kb_id: int) -> bool:
    """Drop a KB's index, unless a build of it is under way; return whether it was dropped.

    Deleting a KB leaves its index (empty of live rows) to the periodic task: dropping it in
    the request would wait for any index build on the chunk table.
    """
    connection = connections["default"]
    concurrently = "" if connection.in_atomic_block else "CONCURRENTLY "
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [LOCK_CLASS, int(kb_id)])
        if not cursor.fetchone()[0]:
            return False
        try:
            cursor.execute(f"DROP INDEX {concurrently}IF EXISTS {index_name(kb_id)}")
            return True
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_CLASS, int(kb_id)])


def indexes_maintain() -> dict[str, list[int]]:
    """Drop the indexes of deleted KBs and build those of KBs grown large enough."""
    dropped = [kb_id for kb_id in orphan_indexes() if drop_index(kb_id)]
    return {"dropped": dropped, "built": build_missing_indexes()}
