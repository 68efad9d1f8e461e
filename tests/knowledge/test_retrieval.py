"""The three searches, aggregate and rerank, over real ingested chunks."""

from __future__ import annotations

import pytest

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.models import Chunk
from knowledge.retrieval.fusion import aggregate
from knowledge.retrieval.graph import graph_scores
from knowledge.retrieval.hits import Hit
from knowledge.retrieval.hybrid import search_stores
from knowledge.retrieval.rerank import rerank
from knowledge.services import kb_create
from providers.reranker import FallbackReranker, get_reranker

pytestmark = pytest.mark.django_db(transaction=True)

TEAM_A_DOCS = {
    "curie.txt": "Marie Curie discovered polonium and radium. She founded the Radium Institute in Paris.",
    "sorbonne.txt": "The Radium Institute hosted research led by Irene Joliot after the war.",
    "cooking.txt": "A good risotto needs arborio rice, stock added slowly, and patience.",
}
SECRET_DOC = {
    "secret.txt": "Marie Curie discovered polonium and radium: the secret lab notebook of Team B.",
}


def ingest(kb, docs):
    items = [TextItem(name, text.encode()) for name, text in docs.items()]
    summary = documents_ingest_inline(kb=kb, items=items)
    assert summary["ready"] == len(docs)


@pytest.fixture
def kbs(user, other_user):
    mine = kb_create(owner=user, name="Physics")
    theirs = kb_create(owner=other_user, name="Secret")
    ingest(mine, TEAM_A_DOCS)
    ingest(theirs, SECRET_DOC)
    return mine, theirs


def test_a_query_never_returns_chunks_of_a_kb_it_may_not_search(kbs):
    mine, theirs = kbs
    # The secret KB holds the single best match for this query in every store.
    result = search_stores(kb_ids=[mine.id], query="Marie Curie discovered polonium and radium")
    hits = result.all()
    assert hits
    assert {hit.knowledge_base_id for hit in hits} == {mine.id}
    assert all("secret" not in hit.text for hit in hits)
    both = search_stores(kb_ids=[mine.id, theirs.id], query="Marie Curie discovered polonium")
    assert theirs.id in {hit.knowledge_base_id for hit in both.of("vector")}


def test_each_store_reports_its_own_source_and_score(kbs):
    mine, _ = kbs
    result = search_stores(kb_ids=[mine.id], query="Where did Marie Curie work?")
    assert result.of("vector") and all(
        h.source_type == "vector" and -1 <= h.score <= 1 for h in result.of("vector")
    )
    assert result.of("bm25") and all(
        h.source_type == "bm25" and h.score > 0 for h in result.of("bm25")
    )
    assert result.of("graph") and all(h.source_type == "graph" for h in result.of("graph"))
    assert len(result.of("vector")) == 3 and result.of("vector")[0].file_name == "curie.txt"
    assert set(result.timings_ms) >= {"vector_ms", "bm25_ms", "graph_ms", "encode_ms"}


def test_graph_reaches_second_hop_chunks_through_a_shared_entity(kbs):
    mine, _ = kbs
    # "Marie Curie" is only in curie.txt; "Radium Institute" links it to sorbonne.txt.
    scored = dict(
        graph_scores(kb_ids=[mine.id], query="What did Marie Curie discover?", top_k=None)
    )
    by_file = {
        Chunk.objects.get(id=chunk_id).document.file_name: score
        for chunk_id, score in scored.items()
    }
    assert by_file["curie.txt"] == pytest.approx(1 * 2.0)
    assert by_file["sorbonne.txt"] == pytest.approx(0.5)
    assert "cooking.txt" not in by_file


def test_graph_is_empty_for_a_query_without_entities(kbs):
    mine, _ = kbs
    assert graph_scores(kb_ids=[mine.id], query="what is a good risotto", top_k=5) == []


def test_dedup_keeps_the_best_scoring_copy_and_orders_by_fusion():
    text = "the same passage"
    vector = [
        Hit(text=text, source_type="vector", score=0.4),
        Hit(text="only dense", source_type="vector", score=0.9),
    ]
    bm25 = [Hit(text=text, source_type="bm25", score=7.5)]
    graph = [Hit(text=text, source_type="graph", score=2.0)]
    result = aggregate(
        lists={"vector": vector, "bm25": bm25, "graph": graph},
        weights={"vector": 1, "bm25": 1, "graph": 1, "web": 1},
        rrf_k=60,
    )
    assert (result.before, result.after) == (4, 2)
    merged = next(hit for hit in result.hits if hit.text == text)
    assert merged.source_type == "bm25" and merged.score == 7.5
    assert merged.found_by == ["vector", "bm25", "graph"]
    assert result.hits[0] is merged  # found by three lists, so it fuses highest
    assert result.sources == {"bm25": 1, "vector": 1}


def test_reranker_falls_back_to_one_comparable_score_per_pair(kbs, settings):
    from providers import reranker as reranker_module

    settings.RERANKER_MODEL = "cross-encoder/not-on-this-machine"
    reranker_module.reset()
    try:
        active = get_reranker()
        assert isinstance(active, FallbackReranker)
        assert reranker_module.status()["kind"] == "embedding-cosine+lexical"
        assert "not a local folder" in reranker_module.status()["fallback_reason"]
        mine, _ = kbs
        result = search_stores(kb_ids=[mine.id], query="Which rice does risotto need?")
        merged = aggregate(lists=result.hits)
        # A web hit has no stored embedding and a raw score of 0.7; it is scored like the rest.
        web = Hit(
            text="Risotto uses arborio rice.",
            source_type="web",
            score=0.7,
            url="https://example.org",
        )
        ranked = rerank(
            query="Which rice does risotto need?",
            hits=merged.hits + [web],
            kb_ids=[mine.id],
            top_k=3,
        )
        assert len(ranked) == 3
        assert all(isinstance(hit.rerank_score, float) for hit in ranked)
        assert [h.rerank_score for h in ranked] == sorted(
            (h.rerank_score for h in ranked), reverse=True
        )
        assert {ranked[0].file_name, ranked[0].url} & {"cooking.txt", "https://example.org"}
        # The raw store scores would have ranked the BM25 hit first (unbounded); rerank does not.
        assert ranked[0].rerank_score <= 1.0
    finally:
        reranker_module.reset()


def test_retrieval_on_an_empty_kb_returns_nothing(user):
    empty = kb_create(owner=user, name="Empty")
    result = search_stores(kb_ids=[empty.id], query="Marie Curie")
    assert result.hits == {"vector": [], "bm25": [], "graph": [], "table": []}
    assert search_stores(kb_ids=[], query="Marie Curie").of("vector") == []
    assert rerank(query="x", hits=[], kb_ids=[empty.id], top_k=5) == []
