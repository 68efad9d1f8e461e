"""One HNSW index per large knowledge base: built past the threshold, searched alone, merged
with the exact search of small KBs, dropped with its KB, and reads routed to a replica."""

from __future__ import annotations

import copy
import threading

import pytest
from django.conf import settings as django_settings
from django.db import connection, connections, transaction
from django.db.backends.signals import connection_created

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.retrieval import dense
from knowledge.retrieval.dense import dense_scores
from knowledge.retrieval.filters import DocumentFilter
from knowledge.retrieval.hybrid import search_stores
from knowledge.services import kb_create, kb_delete
from knowledge.tasks import vector_indexes_build_periodic
from knowledge.vector_index import (
    LOCK_CLASS,
    build_index,
    drop_index,
    index_name,
    indexed_kbs,
    indexes_maintain,
    kbs_needing_index,
    orphan_indexes,
)
from providers import embedder

pytestmark = pytest.mark.django_db(transaction=True)

QUERY = "river gauge reading after the storm at the station"


@pytest.fixture
def kbs(user, settings):
    settings.VECTOR_INDEX_MIN_CHUNKS = 40
    large = kb_create(owner=user, name="Gauges")
    small = kb_create(owner=user, name="Memos")
    documents_ingest_inline(
        kb=large,
        items=[
            TextItem(
                f"gauge-{n:02d}.txt",
                f"Field note {n}: the river gauge at station {n} read {n * 3} cm after the "
                f"storm of week {n % 9}.".encode(),
            )
            for n in range(45)
        ],
    )
    documents_ingest_inline(
        kb=small,
        items=[
            TextItem(f"memo-{n}.txt", f"Memo {n}: the storm closed the station road.".encode())
            for n in range(6)
        ],
    )
    ids = (large.id, small.id)
    yield large, small
    for kb_id in ids:
        drop_index(kb_id)


def plan(kb_ids, exact) -> str:
    vector = dense.vector_literal(embedder.embed_query(QUERY))
    sql, params = dense.search_sql(kb_ids, vector, 10, exact, DocumentFilter())
    with transaction.atomic(), connection.cursor() as cursor:
        for statement in dense.search_settings(10, exact):
            cursor.execute(statement)
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


def test_a_bulk_load_past_the_threshold_gets_its_own_index_and_a_small_kb_none(kbs):
    large, small = kbs
    assert indexed_kbs([large.id, small.id]) == {large.id}
    assert kbs_needing_index() == []
    assert index_name(large.id) in plan([large.id], exact=False)
    assert "hnsw" not in plan([small.id], exact=True).lower()


def test_several_kbs_are_searched_each_its_own_way_and_merged(kbs):
    large, small = kbs
    # The six memos are nearest; gauge notes fill the rest of the ten.
    vector = embedder.embed_query("the storm closed the station road")
    served = dense_scores(kb_ids=[large.id, small.id], query_vector=vector, top_k=10)
    exact = dense_scores(kb_ids=[large.id, small.id], query_vector=vector, top_k=10, exact=True)
    assert len(served) == 10
    # The small KB's memos come from an exact search; the large KB's notes from its HNSW
    # index, approximate in principle (on 45 notes it finds the exact ones).
    memos = set(small.chunks.values_list("id", flat=True))
    assert memos <= {chunk for chunk, _ in served}
    assert len({chunk for chunk, _ in served} & {chunk for chunk, _ in exact}) >= 9
    assert [score for _, score in served] == sorted((s for _, s in served), reverse=True)
    kb_of = dict(
        connection.cursor().execute(
            "SELECT id, knowledge_base_id FROM knowledge_chunk WHERE id = ANY(%s)",
            [[chunk for chunk, _ in served]],
        )
    )
    assert set(kb_of.values()) == {large.id, small.id}  # both KBs reach the top 10


def test_the_periodic_build_indexes_a_kb_that_grew_and_kb_delete_drops_it(kbs, settings):
    _, small = kbs
    settings.VECTOR_INDEX_MIN_CHUNKS = 5
    assert kbs_needing_index() == [small.id]
    assert vector_indexes_build_periodic(timestamp=0) == 1
    assert indexed_kbs([small.id]) == {small.id}
    assert vector_indexes_build_periodic(timestamp=60) == 0  # nothing left to build
    small_id = small.id
    kb_delete(kb=small)
    # The request left the index (dropping it could wait on a build); the next run drops it.
    assert orphan_indexes() == [small_id]
    assert indexes_maintain() == {"dropped": [small_id], "built": []}
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_class WHERE relname = %s", [index_name(small_id)])
        assert cursor.fetchone() is None


def test_a_build_in_progress_elsewhere_is_left_alone_and_a_half_built_index_rebuilt(kbs, settings):
    _, small = kbs
    settings.VECTOR_INDEX_MIN_CHUNKS = 5
    held, release = threading.Event(), threading.Event()

    def other_worker():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", [LOCK_CLASS, small.id])
            held.set()
            release.wait(30)
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_CLASS, small.id])
        connection.close()

    worker = threading.Thread(target=other_worker)
    worker.start()
    try:
        assert held.wait(30)
        assert build_index(small.id) is False
        assert indexed_kbs([small.id]) == set()
    finally:
        release.set()
        worker.join(30)
    assert build_index(small.id)
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        superuser = cursor.fetchone()[0]
    if superuser:  # the embedded server's role is; marking an index needs it
        # What a worker killed mid-build leaves: an index marked invalid. It is built again.
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE pg_index SET indisvalid = false WHERE indexrelid = %s::regclass",
                [index_name(small.id)],
            )
        assert indexed_kbs([small.id]) == set()
        assert build_index(small.id)
    assert indexed_kbs([small.id]) == {small.id}


# A read replica's alias, the same database read-only, as RETRIEVAL_DATABASE_URL adds one.
# Registered while tests are collected, before the test databases are set up, so that the
# test runner points it at the test database (a mirror of `default`).
if "retrieval" not in django_settings.DATABASES:
    _replica = copy.deepcopy(django_settings.DATABASES["default"])
    _replica["TEST"] = {"MIRROR": "default"}
    _options = _replica.setdefault("OPTIONS", {})
    _options["options"] = f"{_options.get('options', '')} -c default_transaction_read_only=on"
    django_settings.DATABASES["retrieval"] = _replica
    connections.settings["retrieval"] = connections.configure_settings(
        {"default": copy.deepcopy(django_settings.DATABASES["default"]), "retrieval": _replica}
    )["retrieval"]


@pytest.fixture
def replica():
    # A fresh connection object for the alias in this thread: an earlier test in this
    # process that did not list the alias may have left its guard on the old one.
    try:
        del connections["retrieval"]
    except AttributeError:
        pass
    opened = []

    def record(sender, connection, **kwargs):
        opened.append((connection.alias, threading.current_thread().name))

    connection_created.connect(record)
    yield opened
    connection_created.disconnect(record)
    connections["retrieval"].close()
    connections["retrieval"].close_pool()  # its idle connections would keep the test database


@pytest.mark.django_db(transaction=True, databases=["default", "retrieval"])
def test_retrieval_reads_go_to_the_replica_alias_when_one_is_set(kbs, replica, settings):
    large, small = kbs
    on_primary = search_stores(kb_ids=[large.id, small.id], query=QUERY)
    assert not any(alias == "retrieval" for alias, _ in replica)
    replica.clear()
    settings.RETRIEVAL_DATABASE = "retrieval"
    on_replica = search_stores(kb_ids=[large.id, small.id], query=QUERY)
    for store in on_primary.hits:
        assert [h.chunk_id for h in on_replica.of(store)] == [
            h.chunk_id for h in on_primary.of(store)
        ], store
    assert on_replica.of("vector") and on_replica.of("bm25")
    # Every store's thread and the hydration read through the replica; no retrieval thread
    # opened a connection to the primary.
    retrieval_threads = {name for alias, name in replica if name.startswith("retrieval")}
    assert len(retrieval_threads) >= 2
    assert {alias for alias, name in replica if name.startswith("retrieval")} == {"retrieval"}
    assert ("retrieval", threading.current_thread().name) in replica
    # And the replica refuses writes, as a real one does.
    with pytest.raises(Exception, match="read-only"), connections["retrieval"].cursor() as c:
        c.execute("UPDATE knowledge_knowledgebase SET name = name")
