"""SQL BM25 over the searched KBs equals rank_bm25.BM25Okapi over the same tokens."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.index import term_stats_rebuild, tf_factor
from knowledge.ingest.chunking import index_text
from knowledge.ingestion import MAX_TERM_LENGTH
from knowledge.models import Chunk, Document, KnowledgeBase, Posting, TermStat
from knowledge.retrieval import bm25
from knowledge.retrieval.bm25 import bm25_scores
from knowledge.services import document_delete, kb_create, kb_delete
from providers.tokenize import bm25_tokens
from tests.embedding import use_hash_embedder
from tests.knowledge.conftest import FILES, is_image
from tests.support import flush_database, shared_rows

# What a test here ingests again is embedded as the module's corpora were.
pytestmark = [pytest.mark.django_db, pytest.mark.hash_embedder]

QUERIES = [
    "Marie Curie radioactivity research",
    "retrieval augmented generation with citations",
    "common shared words appear everywhere",
    "database index performance",
    "function return value error handling",
    "common common zeta",
    "unseenterm",
]


def _ingest(kb, items):
    summary = documents_ingest_inline(kb=kb, items=items)
    assert summary["failed"] == 0


@pytest.fixture(scope="module")
def corpora_ids(django_db_setup, django_db_blocker, tmp_path_factory, _hash_embedder):
    """Three KBs made once for the module: every test reads them in a transaction that is
    rolled back, so each finds them as they were made. BM25 reads no vector: the chunks are
    embedded by the small deterministic embedder (tests/embedding.py), not the model."""
    try:
        with (
            shared_rows(django_db_blocker, tmp_path_factory),
            pytest.MonkeyPatch.context() as patch,
        ):
            use_hash_embedder(patch, *_hash_embedder)
            owner = User.objects.create_user("bm25-owner", "bm25@example.com", "bm25-pass-123")
            made = [kb.id for kb in _make_corpora(owner)]
        yield made
    finally:
        flush_database(django_db_blocker)


@pytest.fixture
def corpora(corpora_ids):
    """The module's three KBs, read afresh for this test (which may change or delete them)."""
    return tuple(KnowledgeBase.objects.get(id=kb_id) for kb_id in corpora_ids)


def _make_corpora(user):
    a = kb_create(owner=user, name="A")
    b = kb_create(owner=user, name="B")
    hidden = kb_create(owner=user, name="Hidden")
    _ingest(
        a,
        [
            TextItem(p.name, p.read_bytes())
            for p in sorted(FILES.glob("sample.*"))
            if not is_image(p)
        ],
    )
    # Many small chunks that share "common": its df exceeds N/2 in B, so its idf is negative
    # and rank_bm25's epsilon floor (from the corpus's average idf) must be reproduced.
    _ingest(
        b,
        [
            TextItem(
                f"note{i}.txt",
                f"Common shared words appear in note {i} about zeta{i % 7}.".encode(),
            )
            for i in range(80)
        ],
    )
    _ingest(hidden, [TextItem("secret.txt", b"Marie Curie common common retrieval database " * 20)])
    return a, b, hidden


def test_sql_bm25_equals_rank_bm25_over_the_searched_kbs(corpora):
    a, b, hidden = corpora
    searched = [a.id, b.id]
    chunks = list(Chunk.objects.filter(knowledge_base_id__in=searched).order_by("id"))
    # What BM25 indexes is each chunk's text under its section path (and a table's caption).
    indexed = [
        index_text(chunk.text, chunk.section, (chunk.structure or {}).get("caption", ""))
        for chunk in chunks
    ]
    assert any(text != chunk.text for text, chunk in zip(indexed, chunks)), "no section path"
    corpus = [[t for t in bm25_tokens(text) if len(t) <= MAX_TERM_LENGTH] for text in indexed]
    assert [len(tokens) for tokens in corpus] == [chunk.bm25_length for chunk in chunks]
    oracle = BM25Okapi(corpus)
    common_df = sum(1 for tokens in corpus if "common" in tokens)
    assert common_df > len(corpus) / 2, "the corpus must exercise rank_bm25's negative-idf floor"
    for query in QUERIES:
        tokens = bm25_tokens(query)
        expected = oracle.get_scores(tokens)
        got = dict(bm25_scores(kb_ids=searched, tokens=tokens, top_k=None))
        for chunk, score in zip(chunks, expected):
            if score > 0:
                assert got.get(chunk.id) == pytest.approx(score, abs=1e-6), (query, chunk.id)
            else:
                assert chunk.id not in got
        hidden_ids = set(Chunk.objects.filter(knowledge_base=hidden).values_list("id", flat=True))
        assert not hidden_ids & set(got)


def test_top_k_returns_the_best_scores_in_order(corpora):
    a, b, _ = corpora
    full = bm25_scores(kb_ids=[a.id, b.id], query="common zeta", top_k=None)
    top = bm25_scores(kb_ids=[a.id, b.id], query="common zeta", top_k=5)
    assert top == full[:5]
    assert [s for _, s in top] == sorted((s for _, s in top), reverse=True)


@pytest.fixture
def always_pruned(monkeypatch):
    """Prune at any size (production prunes from 20,000 postings), and count the queries whose
    scan left terms out."""
    monkeypatch.setattr(bm25, "PRUNE_MIN_POSTINGS", 0)
    monkeypatch.setattr(bm25, "SEED_POSTINGS", 1)
    skipped = []
    split = bm25.split_terms

    def counting(bounds, floor):
        scanned, looked_up = split(bounds, floor)
        skipped.append(looked_up)
        return scanned, looked_up

    monkeypatch.setattr(bm25, "split_terms", counting)
    return skipped


def _same_top(pruned, full, k):
    """The top k of a full scoring, allowing ties at the k-th score to come in either order."""
    assert len(pruned) == len(full[:k])
    if not full:
        return
    assert [s for _, s in pruned] == pytest.approx([s for _, s in full[:k]], abs=1e-9)
    kth = full[min(k, len(full)) - 1][1] if full else None
    assert {c for c, s in pruned if s > kth + 1e-9} == {c for c, s in full[:k] if s > kth + 1e-9}
    assert {c for c, _ in pruned} <= {c for c, s in full if s >= kth - 1e-9}


PRUNED_QUERIES = [
    "common zeta3",
    "common shared words note 12 zeta5",
    "Marie Curie common research database",
    "words appear note zeta1 zeta2",
]


def test_pruned_top_k_equals_scoring_every_posting(corpora, always_pruned):
    a, b, _ = corpora
    for query in PRUNED_QUERIES:
        full = bm25_scores(kb_ids=[a.id, b.id], query=query, top_k=None)
        for k in (1, 3, 5, 10):
            _same_top(bm25_scores(kb_ids=[a.id, b.id], query=query, top_k=k), full, k)
    # "common" is in most chunks: its bound is under the floor, so it was only looked up.
    assert any("common" in looked_up for looked_up in always_pruned)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_pruning_never_changes_the_top_k_of_a_random_query(corpora, always_pruned, data):
    a, b, _ = corpora
    vocabulary = sorted(
        TermStat.objects.filter(knowledge_base_id__in=[a.id, b.id]).values_list("term", flat=True)
    )
    tokens = data.draw(st.lists(st.sampled_from(vocabulary), min_size=2, max_size=8))
    k = data.draw(st.integers(min_value=1, max_value=12))
    full = bm25_scores(kb_ids=[a.id, b.id], tokens=tokens, top_k=None)
    _same_top(bm25_scores(kb_ids=[a.id, b.id], tokens=tokens, top_k=k), full, k)


def _term_stats_from_postings(kb) -> dict[str, tuple[int, float]]:
    """df and the largest tf factor of each term, at the KB's current average length."""
    kb.refresh_from_db()
    avgdl = kb.token_total / kb.chunk_count
    stats: dict[str, tuple[int, float]] = {}
    for term, tf, length in Posting.objects.filter(knowledge_base=kb).values_list(
        "term", "tf", "chunk_length"
    ):
        df, factor = stats.get(term, (0, 0.0))
        stats[term] = (df + 1, max(factor, tf_factor(tf, length, avgdl)))
    return stats


def test_term_statistics_follow_the_postings_through_reindexing_and_deletion(corpora):
    _, b, _ = corpora

    def kept():
        b.refresh_from_db()
        avgdl = b.token_total / b.chunk_count
        terms = list(TermStat.objects.filter(knowledge_base=b).values_list("term", flat=True))
        return {
            term: (stat.df, stat.max_factor)
            for term, stat in bm25.term_statistics([b.id], terms, avgdl).items()
        }

    def assert_bounds_hold():
        actual = _term_stats_from_postings(b)
        stats = kept()
        # df follows exactly, and a term no chunk holds any more is gone.
        assert {term: df for term, (df, _) in stats.items()} == {
            term: df for term, (df, _) in actual.items()
        }
        # The tf-factor bound is safe for every posting at today's average length.
        for term, (_, factor) in actual.items():
            assert stats[term][1] >= factor - 1e-12, term
        return stats, actual

    stats, actual = assert_bounds_hold()
    for term, (_, factor) in actual.items():  # exact while the average length has not moved
        assert stats[term][1] == pytest.approx(factor)
    document_delete(document=Document.objects.get(knowledge_base=b, file_name="note3.txt"))
    stats, _ = assert_bounds_hold()
    assert "note" in stats and "3" not in stats  # "3" was only in note 3 ("zeta3" is in others)
    # A short chunk raises a term's bound; the average length moves and old bounds widen.
    _ingest(b, [TextItem("note3.txt", b"Zeta3 zeta3 zeta3.")])
    _ingest(b, [TextItem(f"long{i}.txt", ("word " * 300).encode()) for i in range(3)])
    assert_bounds_hold()
    kb_delete(kb=b)
    assert not TermStat.objects.filter(knowledge_base_id=b.id).exists()


def test_rebuilding_term_statistics_counts_them_again(corpora):
    a, b, _ = corpora
    before = {(t.knowledge_base_id, t.term): t.df for t in TermStat.objects.all()}
    TermStat.objects.filter(knowledge_base=a).delete()
    assert term_stats_rebuild() == len(before)
    assert {(t.knowledge_base_id, t.term): t.df for t in TermStat.objects.all()} == before
