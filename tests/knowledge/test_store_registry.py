"""A fourth document store is one `register` call: retrieval, the event, fusion, a re-run's
weights and the pages all pick it up from the registry."""

from __future__ import annotations

import pytest

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.models import Chunk
from knowledge.retrieval.stores import Store, StoreQuery, registered, store_names
from knowledge.services import kb_create
from queries.answering.registry import get_strategy
from queries.inputs import RerunInput
from queries.pipeline import stages
from queries.pipeline.events import ListSink
from queries.pipeline.runner import run_pipeline

pytestmark = pytest.mark.django_db(transaction=True)


def title_search(q: StoreQuery) -> list[tuple[int, float]]:
    """A toy store: the first chunk of every document whose file name is a word of the query."""
    words = {word.strip("?.,").lower() for word in q.query.split()}
    chunks = Chunk.objects.filter(document__knowledge_base_id__in=q.kb_ids, ordinal=0)
    found = [
        c.id
        for c in chunks.select_related("document")
        if c.document.file_name.split(".")[0] in words
    ]
    return [(chunk_id, 1.0) for chunk_id in found[: q.top_k]]


TITLES = Store("titles", "Titles", title_search)


@pytest.fixture
def kb(user):
    kb = kb_create(owner=user, name="Towers")
    documents_ingest_inline(
        kb=kb,
        items=[
            TextItem("lighthouse.txt", b"The Alexandria lighthouse was about 100 metres tall."),
            TextItem("bridge.txt", b"The old bridge has four stone arches over the river."),
        ],
    )
    return kb


def test_a_registered_store_is_searched_reported_and_fused(kb):
    sink = ListSink()
    with registered(TITLES):
        assert store_names() == ["vector", "bm25", "graph", "table", "titles"]
        outcome = run_pipeline(
            query="How tall was the lighthouse?",
            strategy=get_strategy("extractive"),
            kb_ids=[kb.id],
            sink=sink,
        )
    assert store_names() == ["vector", "bm25", "graph", "table"]
    frames = sink.frames()
    start = next(
        f["data"]
        for f in frames
        if f["type"] == stages.STAGE_START and f["data"]["stage"] == stages.RETRIEVAL
    )
    assert (
        start["message"]
        == "Running hybrid retrieval — Vector + BM25 + GraphRAG + Tables + Titles..."
    )
    result = next(f["data"] for f in frames if f["type"] == stages.RETRIEVAL_RESULT)
    # The spec's three keys and message are unchanged; the new store's follow them.
    assert result["titles_count"] == 1 and result["vector_count"] == 2
    assert result["message"].endswith(" | Titles: 1")
    assert result["message"].startswith("Vector: 2 | BM25: ")
    lighthouse = Chunk.objects.get(document__file_name="lighthouse.txt").id
    assert result["hits"]["titles"] == [lighthouse]
    ranked = next(
        f["data"]["ranked"]
        for f in frames
        if f["type"] == stages.STAGE_COMPLETE and f["data"]["stage"] == stages.AGGREGATOR
    )
    # Found by three stores, the lighthouse passage fuses first.
    assert ranked[0] == lighthouse
    assert "100 metres" in outcome.answer


def test_a_registered_store_has_a_rerun_weight_and_a_place_on_the_pages(client, user):
    with registered(TITLES):
        assert RerunInput(data={"fusion_weights": {"titles": 2}}).validated() == {
            "fusion_weights": {"titles": 2.0}
        }
        client.force_login(user)
        page = client.get("/").content.decode()
        assert '"name": "titles", "label": "Titles"' in page
    from adrag_site.errors import ServiceError

    with pytest.raises(ServiceError) as refused:
        RerunInput(data={"fusion_weights": {"titles": 2}}).validated()
    assert refused.value.extra == {"details": {"key": "fusion_weights.titles"}}
