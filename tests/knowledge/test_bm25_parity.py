"""SQL BM25 over the searched KBs equals rank_bm25.BM25Okapi over the same tokens."""

from __future__ import annotations

import pytest
from rank_bm25 import BM25Okapi

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.ingest.chunking import index_text
from knowledge.ingestion import MAX_TERM_LENGTH
from knowledge.models import Chunk
from knowledge.retrieval.bm25 import bm25_scores
from knowledge.services import kb_create
from providers.tokenize import bm25_tokens
from tests.knowledge.conftest import FILES, is_image

pytestmark = pytest.mark.django_db

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


@pytest.fixture
def corpora(user):
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


def test_empty_inputs_return_nothing(corpora, user):
    a, _, _ = corpora
    empty = kb_create(owner=user, name="Empty")
    assert bm25_scores(kb_ids=[], query="Marie Curie") == []
    assert bm25_scores(kb_ids=[a.id], query="the of and") == []
    assert bm25_scores(kb_ids=[empty.id], query="Marie Curie") == []
