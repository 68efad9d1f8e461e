"""Metadata filters inside each store's SQL: a filtered-out document is never retrieved."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adrag_site.errors import ServiceError
from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.models import Chunk, KnowledgeBase
from knowledge.retrieval import dense
from knowledge.retrieval.bm25 import bm25_scores
from knowledge.retrieval.dense import dense_scores
from knowledge.retrieval.filters import parse_filters
from knowledge.retrieval.graph import graph_scores
from knowledge.retrieval.hybrid import search_stores
from knowledge.services import kb_create
from knowledge.vector_index import build_index, drop_index, index_name, indexed_kbs
from providers import embedder
from tests.knowledge.filter_corpus import SPECS, TARGET, TARGET_QUERY, ingest_filter_corpus, passes
from tests.support import flush_database, shared_rows

# Each test reads KBs made once for the module (in a transaction rolled back after it).
pytestmark = pytest.mark.django_db

STORES = ["dense", "bm25", "graph", "search_stores"]


@pytest.fixture(scope="module")
def shared_kbs(django_db_setup, django_db_blocker, tmp_path_factory):
    """The module's two KBs by name, made once, outside any test's transaction (the crowded
    one gets its HNSW index built concurrently, as production builds it)."""
    made: dict[str, int] = {}
    try:
        with shared_rows(django_db_blocker, tmp_path_factory):
            owner = User.objects.create_user("filters-owner", "filters@example.com", "pass-123")
            missions = kb_create(owner=owner, name="Missions")
            ingest_filter_corpus(missions, owner)
            made["missions"] = missions.id
            made["crowded"] = _make_crowded(owner).id
        yield made
    finally:
        with django_db_blocker.unblock():
            if "crowded" in made:
                drop_index(made["crowded"])  # a flush empties tables but keeps their indexes
        flush_database(django_db_blocker)


@pytest.fixture
def corpus(shared_kbs):
    """The missions KB and its documents by file name, read afresh for this test."""
    kb = KnowledgeBase.objects.get(id=shared_kbs["missions"])
    return kb, {document.file_name: document for document in kb.documents.all()}


def document_of(chunk_ids: list[int]) -> list[int]:
    owners = dict(Chunk.objects.filter(id__in=chunk_ids).values_list("id", "document_id"))
    return [owners[chunk_id] for chunk_id in chunk_ids]


def retrieved(store: str, kb, query: str, filters: dict | None, top_k: int = 10) -> list[int]:
    """Return the document ids one store returns, best first (search_stores: all three lists)."""
    if store == "dense":
        vector = embedder.embed_query(query)
        scored = dense_scores(kb_ids=[kb.id], query_vector=vector, top_k=top_k, filters=filters)
    elif store == "bm25":
        scored = bm25_scores(kb_ids=[kb.id], query=query, top_k=top_k, filters=filters)
    elif store == "graph":
        scored = graph_scores(kb_ids=[kb.id], query=query, top_k=top_k, filters=filters)
    else:
        result = search_stores(kb_ids=[kb.id], query=query, top_k=top_k, filters=filters)
        return [hit.document_id for hit in result.all()]
    return document_of([chunk_id for chunk_id, _ in scored])


# Each filter leaves the target out; "empty" ones leave nothing at all.
EXCLUDING = {
    "documents": lambda docs: {"documents": [docs["voyager.docx"].id, docs["hubble.md"].id]},
    "file_types": lambda docs: {"file_types": ["MD", ".html", "txt"]},
    "uploaded_after": lambda docs: {"uploaded_after": "2024-03-01"},
    "date_range": lambda docs: {"uploaded_after": "2024-05-20", "uploaded_before": "2024-07-01"},
    "documents_and_type": lambda docs: {
        "documents": [docs[TARGET].id, docs["juno.csv"].id],
        "file_types": ["csv"],
    },
    "before_everything": lambda docs: {"uploaded_before": "2024-01-09"},
}


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("case", sorted(EXCLUDING))
def test_a_filtered_out_document_is_never_retrieved_by_any_store(corpus, store, case):
    kb, docs = corpus
    target = docs[TARGET].id
    # Unfiltered, the target is this store's best match for its own words: the test can fail.
    unfiltered = retrieved(store, kb, TARGET_QUERY, None)
    assert unfiltered[0] == target
    filters = EXCLUDING[case](docs)
    narrowed = retrieved(store, kb, TARGET_QUERY, filters)
    assert target not in narrowed
    allowed = {doc.id for doc in docs.values() if passes(doc, filters)}
    assert set(narrowed) <= allowed
    if case == "before_everything":
        assert narrowed == []
    else:
        # Every store still answers from what is left: each kept document mentions NASA.
        assert narrowed, "the filter should leave something to find"


def test_a_filter_that_keeps_the_target_still_ranks_it_first(corpus):
    kb, docs = corpus
    filters = {"file_types": ["pdf", "docx"], "uploaded_before": "2024-12-31T00:00:00Z"}
    for store in STORES:
        assert retrieved(store, kb, TARGET_QUERY, filters)[0] == docs[TARGET].id, store


def test_date_bounds_are_at_or_after_and_a_date_as_upper_bound_includes_its_day(corpus):
    kb, docs = corpus
    vector = embedder.embed_query("space missions")

    def every_document(filters):
        scored = dense_scores(kb_ids=[kb.id], query_vector=vector, top_k=None, filters=filters)
        names = {doc.id: name for name, doc in docs.items()}
        return {names[doc_id] for doc_id in document_of([c for c, _ in scored])}

    # hubble 2024-05-20 15:00, webb 06-02, cassini 2024-07-01 10:00 (a date: the whole day).
    assert every_document({"uploaded_after": "2024-05-20", "uploaded_before": "2024-07-01"}) == {
        "hubble.md",
        "webb.markdown",
        "cassini.html",
    }
    # A date-time is exact: at 15:00 is "at or after", 10:00 on the 1st is not "before 10:00".
    assert every_document(
        {"uploaded_after": "2024-05-20T15:00:00Z", "uploaded_before": "2024-07-01T10:00:00"}
    ) == {"hubble.md", "webb.markdown"}
    assert every_document({"uploaded_after": "2024-05-20T15:00:01+00:00"}) == {
        "webb.markdown",
        "cassini.html",
        "juno.csv",
        "rosetta.txt",
    }
    # An offset is honoured: 23:30 UTC on 30 November is 1 December in Tokyo.
    assert every_document({"uploaded_after": "2024-12-01T08:00:00+09:00"}) == {"rosetta.txt"}
    assert every_document({}) == {spec.name for spec in SPECS}


def test_file_types_are_case_insensitive_and_md_matches_markdown(corpus):
    kb, docs = corpus
    vector = embedder.embed_query("telescope")
    scored = dense_scores(
        kb_ids=[kb.id], query_vector=vector, top_k=None, filters={"file_types": ["MD"]}
    )
    found = set(document_of([c for c, _ in scored]))
    assert found == {docs["hubble.md"].id, docs["webb.markdown"].id}


# Transactional: the other KB must be committed for search_stores' threads (their own
# connections) to see it and leave it out. Run after the module's other tests (pytest-django
# orders transactional tests last), its flush empties the tables after it.
@pytest.mark.django_db(transaction=True)
def test_a_filter_narrows_only_the_kbs_searched(corpus, other_user):
    kb, docs = corpus
    theirs = kb_create(owner=other_user, name="Theirs")
    documents_ingest_inline(kb=theirs, items=[TextItem("apollo-copy.txt", TARGET_QUERY.encode())])
    # A filter naming a document of a KB not searched cannot widen the search to it.
    foreign = theirs.documents.get().id
    for store in STORES:
        assert retrieved(store, kb, TARGET_QUERY, {"documents": [foreign]}) == [], store


def explain(kb_ids, vector, top_k, exact, document_filter) -> str:
    """The plan of the dense query, in a transaction set up as the search sets it up."""
    sql, params = dense.search_sql(kb_ids, vector, top_k, exact, document_filter)
    with transaction.atomic(), connection.cursor() as cursor:
        for statement in dense.search_settings(top_k, exact):
            cursor.execute(statement)
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.fixture
def crowded(shared_kbs):
    """A KB where 90 notes about lunar landers crowd out 12 far-off recipes (as CSV files),
    with its own HNSW index."""
    kb = KnowledgeBase.objects.get(id=shared_kbs["crowded"])
    assert indexed_kbs([kb.id]) == {kb.id}
    return kb


def _make_crowded(user):
    kb = kb_create(owner=user, name="Crowded")
    notes = [
        TextItem(
            f"lander-{n:03d}.txt",
            f"Lunar lander note {n}: the descent engine throttled down during landing "
            f"approach number {n} near crater {n * 7}.".encode(),
        )
        for n in range(90)
    ]
    recipes = [
        TextItem(
            f"recipe-{n:02d}.csv",
            f"dish,step\nsoup {n},Simmer {n} onions slowly with butter and thyme.\n".encode(),
        )
        for n in range(12)
    ]
    summary = documents_ingest_inline(kb=kb, items=notes + recipes)
    assert summary["ready"] == 102
    # Its own HNSW index, as a KB past VECTOR_INDEX_MIN_CHUNKS gets one.
    assert build_index(kb.id)
    assert indexed_kbs([kb.id]) == {kb.id}
    return kb


LANDER_QUERY = "lunar lander descent engine landing approach"
CSV_ONLY = {"file_types": ["csv"]}


def test_a_narrow_filter_is_searched_exactly_through_the_document_index(crowded):
    kb = crowded
    document_filter = parse_filters(CSV_ONLY)
    kept = Chunk.objects.filter(knowledge_base=kb, document__file_type="csv").count()
    assert dense.filtered_chunk_count([kb.id], document_filter) == kept == 12
    assert kept <= dense.EXACT_FILTER_MAX_CHUNKS
    vector = _literal(embedder.embed_query(LANDER_QUERY))
    # Statistics as autovacuum keeps them: after a run of earlier tests in this database they
    # may still describe other rows, and the planner then picks the KB index instead.
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE knowledge_chunk, knowledge_document")
    plan = explain([kb.id], vector, 10, True, document_filter)
    # Not the HNSW graph, and the kept chunks found through the document index (an index
    # condition, not a filter over every chunk of the KB).
    assert index_name(kb.id) not in plan
    assert "Index Cond: (document_id = ANY" in plan, plan
    served = dense_scores(
        kb_ids=[kb.id], query_vector=embedder.embed_query(LANDER_QUERY), top_k=10, filters=CSV_ONLY
    )
    assert len(served) == 10
    assert {name[-4:] for name in _file_names(served)} == {".csv"}


@pytest.fixture
def large_table_plans():
    """Plan as for a large table: sorting every kept chunk is what costs most there.

    On a table of a hundred rows the planner rightly sorts them all instead of walking the
    HNSW graph; at 40,000 chunks it walks the graph (README: filters). Disabling sorts makes
    it choose here what it chooses there.
    """
    with connection.cursor() as cursor:
        cursor.execute("SET enable_sort = off")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET enable_sort")


def test_hnsw_search_returns_k_filtered_hits_when_enough_documents_match(
    crowded, monkeypatch, large_table_plans
):
    kb = crowded
    # Every filter takes the HNSW path here, as a broad filter does on a large KB.
    monkeypatch.setattr(dense, "EXACT_FILTER_MAX_CHUNKS", 0)
    document_filter = parse_filters(CSV_ONLY)
    vector = embedder.embed_query(LANDER_QUERY)
    plan = explain([kb.id], _literal(vector), 10, False, document_filter)
    assert index_name(kb.id) in plan
    # The 40 nearest chunks (ef_search) are all notes; the iterative scan goes on past them.
    unfiltered = dense_scores(kb_ids=[kb.id], query_vector=vector, top_k=40)
    assert {name[-4:] for name in _file_names(unfiltered)} == {".txt"}
    approximate = dense._search([kb.id], _literal(vector), 10, False, document_filter)
    assert len(approximate) == 10
    assert {name[-4:] for name in _file_names(approximate)} == {".csv"}
    # The exact reference is planned as in production: with sorts disabled as well as index
    # scans, the planner was once left with no good plan and the reference came back empty.
    with connection.cursor() as cursor:
        cursor.execute("RESET enable_sort")
    exact = dense_scores(
        kb_ids=[kb.id], query_vector=vector, top_k=10, exact=True, filters=CSV_ONLY
    )
    assert [chunk for chunk, _ in approximate] == [chunk for chunk, _ in exact]


def test_dense_falls_back_to_exact_search_when_the_iterative_scan_stops_short(
    crowded, monkeypatch, large_table_plans
):
    kb = crowded
    monkeypatch.setattr(dense, "EXACT_FILTER_MAX_CHUNKS", 0)
    vector = embedder.embed_query(LANDER_QUERY)
    plan = explain([kb.id], _literal(vector), 10, False, parse_filters(CSV_ONLY))
    assert index_name(kb.id) in plan
    with connection.cursor() as cursor:
        # A tiny scan budget stands in for a filter that keeps few chunks of a huge table.
        cursor.execute("SET hnsw.max_scan_tuples = 20")
    try:
        starved = dense._search([kb.id], _literal(vector), 10, False, parse_filters(CSV_ONLY))
        served = dense_scores(kb_ids=[kb.id], query_vector=vector, top_k=10, filters=CSV_ONLY)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET hnsw.max_scan_tuples")
    assert len(starved) < 10
    exact = dense_scores(
        kb_ids=[kb.id], query_vector=vector, top_k=10, exact=True, filters=CSV_ONLY
    )
    assert len(served) == 10 and served == exact


def _file_names(scored: list[tuple[int, float]]) -> list[str]:
    return list(
        Chunk.objects.filter(id__in=[c for c, _ in scored]).values_list(
            "document__file_name", flat=True
        )
    )


def _literal(vector) -> str:
    return "[" + ",".join(f"{value:.7g}" for value in vector.tolist()) + "]"


def ranked(scored: list[tuple[int, float]]) -> list[tuple[float, int]]:
    return sorted((-round(score, 9), chunk) for chunk, score in scored)


@st.composite
def filter_dicts(draw, ids: list[int]):
    filters: dict = {}
    if draw(st.booleans()):
        filters["documents"] = draw(st.lists(st.sampled_from(ids), max_size=4, unique=True))
    if draw(st.booleans()):
        kinds = ["pdf", "docx", "md", "markdown", "html", "csv", "txt", "py"]
        filters["file_types"] = draw(st.lists(st.sampled_from(kinds), max_size=3, unique=True))
    days = [f"2024-{month:02d}-{day:02d}" for month in (1, 3, 5, 6, 7, 9, 11) for day in (1, 20)]
    moments = days + ["2024-05-20T15:00:00Z", "2024-07-01T10:00:00", "2024-11-30T23:30:00Z"]
    after = draw(st.none() | st.sampled_from(moments))
    before = draw(st.none() | st.sampled_from(moments))
    if after:
        filters["uploaded_after"] = after
    if before:
        filters["uploaded_before"] = before
    return filters


QUERIES = [spec.text.split(".")[0] for spec in SPECS] + ["NASA and ESA missions"]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_store_ever_returns_a_hit_that_violates_a_random_filter(corpus, data):
    kb, docs = corpus
    ids = [doc.id for doc in docs.values()]
    filters = data.draw(filter_dicts(ids))
    query = data.draw(st.sampled_from(QUERIES))
    try:
        parse_filters(filters)
    except ServiceError as exc:
        # after >= before is refused up front; nothing else a generated filter holds is.
        assert exc.code == "invalid_filters" and "earlier" in exc.message
        return
    allowed = {doc.id for doc in docs.values() if passes(doc, filters)}
    vector = embedder.embed_query(query)
    # Exhaustive dense and BM25: the filtered list is the unfiltered one minus what fails,
    # in the same order with the same scores; so the filter removes exactly what it should.
    for search in (
        lambda f: dense_scores(
            kb_ids=[kb.id], query_vector=vector, top_k=None, exact=True, filters=f
        ),
        lambda f: bm25_scores(kb_ids=[kb.id], query=query, top_k=None, filters=f),
    ):
        everything = search(None)
        owners = dict(zip([c for c, _ in everything], document_of([c for c, _ in everything])))
        kept = [pair for pair in everything if owners[pair[0]] in allowed]
        # The same scores up to the order of a floating-point sum, so ties are compared as such.
        assert ranked(search(filters)) == ranked(kept)
    # The graph re-traverses inside the filter, and the HNSW path is approximate: no violation.
    graph = graph_scores(kb_ids=[kb.id], query=query, top_k=None, filters=filters)
    assert set(document_of([c for c, _ in graph])) <= allowed
    approximate = dense_scores(kb_ids=[kb.id], query_vector=vector, top_k=3, filters=filters)
    assert set(document_of([c for c, _ in approximate])) <= allowed
    assert len(approximate) == min(3, Chunk.objects.filter(document_id__in=allowed).count())


BAD_FILTERS = [
    ("not an object", ["documents"], "must be an object"),
    ("unknown key", {"documents": [], "authors": ["x"]}, "authors"),
    ("documents not a list", {"documents": 5}, "list of document ids"),
    ("document id a string", {"documents": ["5"]}, "list of document ids"),
    ("document id a bool", {"documents": [True]}, "list of document ids"),
    ("document id zero", {"documents": [0]}, "list of document ids"),
    ("document id too large", {"documents": [2**70]}, "list of document ids"),
    ("too many documents", {"documents": list(range(1, 502))}, "at most 500"),
    ("file types a string", {"file_types": "pdf"}, "list of file types"),
    ("unknown file type", {"file_types": ["pdf", "exe"]}, "exe"),
    ("file type a number", {"file_types": [3]}, "list of file types"),
    ("date not a date", {"uploaded_after": "last week"}, "uploaded_after"),
    ("impossible date", {"uploaded_before": "2025-02-30"}, "uploaded_before"),
    ("date a number", {"uploaded_after": 20250101}, "uploaded_after"),
    ("bad offset", {"uploaded_after": "2025-01-01T00:00:00+99:00"}, "uploaded_after"),
    ("day after the last", {"uploaded_before": "9999-12-31"}, "uploaded_before"),
    ("after past before", {"uploaded_after": "2025-02-01", "uploaded_before": "2025-01-01"}, "earlier"),
    ("empty window", {"uploaded_after": "2025-01-01T10:00Z", "uploaded_before": "2025-01-01T10:00Z"}, "earlier"),
]  # fmt: skip


@pytest.mark.django_db(transaction=False)
@pytest.mark.parametrize(
    "raw,fragment", [case[1:] for case in BAD_FILTERS], ids=[case[0] for case in BAD_FILTERS]
)
def test_bad_filters_are_refused_with_invalid_filters(raw, fragment):
    with pytest.raises(ServiceError) as refused:
        parse_filters(raw)
    assert refused.value.status == 400
    assert refused.value.code == "invalid_filters"
    assert fragment in refused.value.message


@pytest.mark.django_db(transaction=False)
def test_empty_filters_mean_no_filter():
    for raw in (None, {}, {"documents": [], "file_types": [], "uploaded_after": None}):
        assert parse_filters(raw).is_empty
        assert parse_filters(raw).to_json() == {}
    parsed = parse_filters(
        {"documents": [3, 3, 1], "file_types": [".PDF"], "uploaded_after": "2025-01-01T10:00:00"}
    )
    assert parsed.to_json() == {
        "documents": [3, 1],
        "file_types": ["pdf"],
        "uploaded_after": "2025-01-01T10:00:00Z",
    }
