"""Term blocks: a large KB's postings copied as arrays per term give BM25 the same top k as
the posting rows, through chunks written and deleted after the copy, a writer in flight while
it is made, and searches that mix copied and uncopied KBs."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.models import Chunk, Document, TermBlock, TermBlockSet, TermStat
from knowledge.retrieval import bm25
from knowledge.retrieval.bm25 import bm25_scores
from knowledge.services import document_delete, kb_create, kb_delete
from knowledge.tasks import term_blocks_build_periodic
from knowledge.term_blocks import blocks_maintain, build_blocks, staleness

pytestmark = pytest.mark.django_db(transaction=True)

QUERIES = [
    "river gauge station storm",
    "gauge 12 week 3",
    "storm closed the station road",
    "flood warning issued",
    "week 5 week 5 read",
    "unseenterm",
]


def _note(n: int) -> TextItem:
    text = (
        f"Field note {n}: the river gauge at station {n % 11} read {n * 3} cm after the "
        f"storm of week {n % 9}. "
    )
    return TextItem(f"gauge-{n:02d}.txt", (text * (1 + n % 3)).encode())


@pytest.fixture
def gauges(user, settings):
    settings.TERM_BLOCKS_MIN_CHUNKS = 40
    kb = kb_create(owner=user, name="Gauges")
    summary = documents_ingest_inline(kb=kb, items=[_note(n) for n in range(48)])
    assert summary["failed"] == 0
    kb.refresh_from_db()
    return kb


def assert_rows_agree(kb_ids, top_k, **kwargs):
    """The top k from the term blocks is the top k of every score, which is always read from
    the posting rows (chunks tied at the k-th score may come in either order)."""
    got = bm25_scores(kb_ids=kb_ids, top_k=top_k, **kwargs)
    full = bm25_scores(kb_ids=kb_ids, top_k=None, **kwargs)
    assert len(got) == len(full[:top_k])
    assert [s for _, s in got] == pytest.approx([s for _, s in full[:top_k]], abs=1e-9)
    if full:
        kth = full[min(top_k, len(full)) - 1][1]
        assert {c for c, s in got if s > kth + 1e-9} == {
            c for c, s in full[:top_k] if s > kth + 1e-9
        }
        assert {c for c, _ in got} <= {c for c, s in full if s >= kth - 1e-9}
    return got


def test_a_bulk_load_past_the_threshold_is_copied_and_scores_as_its_postings(gauges, monkeypatch):
    copy = TermBlockSet.objects.get(knowledge_base=gauges)
    assert copy.watermark == Chunk.objects.filter(knowledge_base=gauges).latest("id").id
    assert copy.chunk_count == gauges.chunk_count
    assert {b.term: b.df for b in TermBlock.objects.filter(knowledge_base=gauges)} == {
        s.term: s.df for s in TermStat.objects.filter(knowledge_base=gauges)
    }
    called = []
    original = bm25._blocks_top_k
    monkeypatch.setattr(bm25, "_blocks_top_k", lambda *args: called.append(1) or original(*args))
    for query in QUERIES:
        for k in (1, 5, 10):
            assert_rows_agree([gauges.id], k, query=query)
    assert called, "the term blocks were never read"
    # Every score, or a filter, is read from the rows.
    called.clear()
    bm25_scores(kb_ids=[gauges.id], query=QUERIES[0], top_k=None)
    bm25_scores(kb_ids=[gauges.id], query=QUERIES[0], top_k=5, filters={"file_types": ["txt"]})
    assert not called


def test_chunks_written_and_deleted_after_the_copy_are_scored_as_the_rows_say(gauges):
    watermark = TermBlockSet.objects.get(knowledge_base=gauges).watermark
    query = "gauge station 7 flood"
    best = bm25_scores(kb_ids=[gauges.id], query=query, top_k=3)
    gone = Chunk.objects.get(id=best[0][0]).document
    document_delete(document=gone)
    documents_ingest_inline(
        kb=gauges,
        items=[TextItem("flood.txt", b"Flood warning: the gauge at station 7 rose overnight.")],
    )
    fresh = set(Chunk.objects.filter(document__file_name="flood.txt").values_list("id", flat=True))
    assert min(fresh) > watermark
    assert TermBlockSet.objects.get(knowledge_base=gauges).watermark == watermark  # not copied
    for text in (query, *QUERIES):
        for k in (1, 3, 10):
            got = assert_rows_agree([gauges.id], k, query=text)
            assert best[0][0] not in {chunk_id for chunk_id, _ in got}
    assert bm25_scores(kb_ids=[gauges.id], query=query, top_k=1)[0][0] in fresh


def test_a_search_of_copied_and_uncopied_kbs_merges_them(gauges, user):
    memos = kb_create(owner=user, name="Memos")
    documents_ingest_inline(
        kb=memos,
        items=[
            TextItem(f"memo-{n}.txt", f"Memo {n}: the storm closed the station road.".encode())
            for n in range(6)
        ],
    )
    assert not TermBlockSet.objects.filter(knowledge_base=memos).exists()
    searched = [gauges.id, memos.id]
    for query in QUERIES:
        assert_rows_agree(searched, 8, query=query)
    hits = bm25_scores(kb_ids=searched, query="storm closed the station road", top_k=8)
    kbs = set(Chunk.objects.filter(id__in=[c for c, _ in hits]).values_list("knowledge_base_id"))
    assert kbs == {(gauges.id,), (memos.id,)}


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_term_blocks_never_change_the_top_k_of_a_random_query(gauges, data):
    vocabulary = sorted(
        TermStat.objects.filter(knowledge_base=gauges).values_list("term", flat=True)
    )
    tokens = data.draw(st.lists(st.sampled_from(vocabulary), min_size=1, max_size=8))
    k = data.draw(st.integers(min_value=1, max_value=15))
    assert_rows_agree([gauges.id], k, tokens=tokens)


def _waiting_for_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND query LIKE '%%FOR NO KEY UPDATE%%' AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0] > 0


def test_many_copied_chunks_deleted_are_passed_over_for_live_ones(gauges):
    query = "river gauge station storm week"
    best = bm25_scores(kb_ids=[gauges.id], query=query, top_k=30)
    documents = Document.objects.filter(chunks__id__in=[c for c, _ in best[:25]]).distinct()
    for document in documents:
        document_delete(document=document)
    got = assert_rows_agree([gauges.id], 5, query=query)
    assert len(got) == 5 and not {c for c, _ in got} & {c for c, _ in best[:25]}


def test_a_writer_in_flight_is_waited_for_so_its_chunks_are_copied_or_after_the_mark(gauges):
    written = threading.Event()
    release = threading.Event()
    built = []

    def writer():
        try:
            with transaction.atomic():
                documents_ingest_inline(
                    kb=gauges, items=[TextItem("late.txt", b"A late gauge reading, in flight.")]
                )
                written.set()
                release.wait(10)
        finally:
            connection.close()

    def builder():
        try:
            built.append(build_blocks(gauges.id))
        finally:
            connection.close()

    threads = [threading.Thread(target=writer), threading.Thread(target=builder)]
    threads[0].start()
    assert written.wait(10)
    threads[1].start()
    deadline = time.monotonic() + 10
    while not _waiting_for_a_lock() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _waiting_for_a_lock(), "the copy did not wait for the KB's writer"
    release.set()
    for thread in threads:
        thread.join(20)
    assert built == [True]
    late = Chunk.objects.get(document__file_name="late.txt")
    copy = TermBlockSet.objects.get(knowledge_base=gauges)
    assert late.id <= copy.watermark
    block = TermBlock.objects.get(knowledge_base=gauges, term="late")
    assert block.df == 1 and int.from_bytes(bytes(block.chunk_ids), "big") == late.id
    hits = bm25_scores(kb_ids=[gauges.id], query="late reading in flight", top_k=1)
    assert hits[0][0] == late.id


def test_the_periodic_task_copies_again_when_stale_and_drops_with_the_kb(gauges, settings):
    assert blocks_maintain() == {"dropped": [], "built": []}  # fresh
    settings.TERM_BLOCKS_REBUILD_FRACTION = 0.1
    for n in range(3):  # 3 of 48 chunks: under a tenth, so a bulk load leaves the copy
        documents_ingest_inline(kb=gauges, items=[_note(100 + n)])
    assert 0 < staleness(gauges.id) <= 0.1
    assert term_blocks_build_periodic(0) == 0
    document_delete(document=Document.objects.get(knowledge_base=gauges, file_name="gauge-00.txt"))
    with transaction.atomic():  # no copy inside a transaction: the periodic task makes it
        documents_ingest_inline(kb=gauges, items=[_note(200 + n) for n in range(2)])
    assert staleness(gauges.id) > 0.1
    assert term_blocks_build_periodic(0) == 1
    assert staleness(gauges.id) == 0
    # Under the threshold but over half of it, a copy is kept and kept fresh.
    settings.TERM_BLOCKS_MIN_CHUNKS = 80
    with transaction.atomic():
        documents_ingest_inline(kb=gauges, items=[_note(300 + n) for n in range(6)])
    assert blocks_maintain() == {"dropped": [], "built": [gauges.id]}
    # Shrunk under half the threshold: the rows are read instead.
    settings.TERM_BLOCKS_MIN_CHUNKS = 200
    assert blocks_maintain()["dropped"] == [gauges.id]
    assert not TermBlock.objects.filter(knowledge_base=gauges).exists()
    settings.TERM_BLOCKS_MIN_CHUNKS = 40
    assert blocks_maintain()["built"] == [gauges.id]
    kb_delete(kb=gauges)
    assert not TermBlockSet.objects.filter(knowledge_base_id=gauges.id).exists()
    assert not TermBlock.objects.filter(knowledge_base_id=gauges.id).exists()
