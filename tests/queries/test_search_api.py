"""POST /api/search: the passages a hybrid search finds, checked as POST /api/query's body,
with the 404 rule for other teams' knowledge bases, open to a `read` token, and no run made."""

from __future__ import annotations

import pytest
from django.test import Client

from adrag_site.tokens import token_create
from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.models import QueryRun
from tests.queries.documents import physics_kb
from tests.queries.test_filters_api import assert_error

pytestmark = pytest.mark.django_db
# The stores search on threads of their own (each its own connection): the passages they must
# find are committed first.
found_by_the_stores = pytest.mark.django_db(transaction=True)


@pytest.fixture
def physics(user):
    return physics_kb(user)


@pytest.fixture
def read_client(api_client, user):
    _, key = token_create(user=user, name="search", scope="read", expires_in_days=None)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api_client


def search(client, body, **extra):
    return client.post("/api/search", body, format="json", **extra)


@found_by_the_stores
def test_search_returns_a_cited_passage_with_a_link_to_it(read_client, physics, user):
    response = search(
        read_client,
        {"query": "What did Marie Curie discover?", "knowledge_bases": [physics.id], "k": 2},
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["knowledge_bases"] == [physics.id]
    assert 1 <= len(body["passages"]) <= 2
    top = body["passages"][0]
    assert top["file_name"] == "curie.txt" and "radium" in top["text"]
    assert top["knowledge_base_id"] == physics.id and top["score"] > 0
    assert isinstance(top["section"], list) and "page" in top and top["found_by"]
    assert top["link"] == (
        f"http://testserver/documents/{top['document_id']}/?chunk={top['chunk_id']}"
    )
    browser = Client()
    browser.force_login(user)
    assert browser.get(top["link"].removeprefix("http://testserver")).status_code == 200
    assert not QueryRun.objects.exists()


@found_by_the_stores
def test_without_knowledge_bases_every_readable_one_is_searched(read_client, physics, other_user):
    theirs = kb_create(owner=other_user, name="Secret")
    documents_ingest_inline(kb=theirs, items=[TextItem("zephyr.txt", b"Project Zephyr plans.")])
    response = search(read_client, {"query": "Project Zephyr plans"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["knowledge_bases"] == [physics.id]
    assert {passage["file_name"] for passage in body["passages"]} <= {"curie.txt", "risotto.txt"}


def test_another_teams_knowledge_base_is_404_exactly_like_a_missing_one(
    read_client, physics, other_user
):
    theirs = kb_create(owner=other_user, name="Secret")
    documents_ingest_inline(kb=theirs, items=[TextItem("zephyr.txt", b"Project Zephyr plans.")])
    missing_id = theirs.id + 999
    hidden = assert_error(
        search(read_client, {"query": "Zephyr", "knowledge_bases": [physics.id, theirs.id]}),
        404,
        "not_found",
    )
    missing = assert_error(
        search(read_client, {"query": "Zephyr", "knowledge_bases": [physics.id, missing_id]}),
        404,
        "not_found",
    )
    assert hidden["error"].replace(str(theirs.id), "N") == missing["error"].replace(
        str(missing_id), "N"
    )
    assert set(hidden) == set(missing) == {"error", "code"}


BAD_BODIES = [
    ("no body", None, "missing_query"),
    ("no query", {"k": 3}, "missing_query"),
    ("a blank query", {"query": "  "}, "missing_query"),
    ("a query not a string", {"query": 42}, "invalid_query"),
    ("a query too long", {"query": "x" * 5000}, "query_too_long"),
    ("ids not a list", {"query": "x", "knowledge_bases": 3}, "invalid_knowledge_bases"),
    ("ids as strings", {"query": "x", "knowledge_bases": ["3"]}, "invalid_knowledge_bases"),
    ("k zero", {"query": "x", "k": 0}, "invalid_request"),
    ("k over 50", {"query": "x", "k": 51}, "invalid_request"),
    ("k a string", {"query": "x", "k": "3"}, "invalid_request"),
    ("filters a list", {"query": "x", "filters": [1]}, "invalid_filters"),
    ("unknown file type", {"query": "x", "filters": {"file_types": ["exe"]}}, "invalid_filters"),
    ("a JSON list", ["x"], "missing_query"),
]  # fmt: skip


@pytest.mark.parametrize(
    "body,code", [case[1:] for case in BAD_BODIES], ids=[case[0] for case in BAD_BODIES]
)
def test_bad_input_is_a_json_400_with_its_code(read_client, body, code):
    error = assert_error(search(read_client, body), 400, code)
    assert set(error) == {"error", "code"}


def test_a_body_that_is_not_json_is_a_json_400(read_client):
    response = read_client.post("/api/search", "{not json", content_type="application/json")
    assert_error(response, 400, "parse_error")


def test_a_read_token_may_search_but_not_ask(read_client, physics):
    assert search(read_client, {"query": "radium"}).status_code == 200
    assert_error(
        read_client.post("/api/query", {"query": "radium"}, format="json"),
        403,
        "insufficient_scope",
    )


def test_search_needs_a_token_or_a_session(api_client):
    assert_error(search(api_client, {"query": "radium"}), 401, "not_authenticated")


def test_only_post_is_allowed(read_client):
    assert_error(read_client.get("/api/search"), 405, "method_not_allowed")


def test_the_schema_documents_the_body_and_the_answers(auth_client):
    schema = auth_client.get("/api/schema", {"format": "json"}).json()
    operation = schema["paths"]["/api/search"]["post"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    component = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]
    assert component["required"] == ["query"]
    assert set(component["properties"]) == {"query", "knowledge_bases", "filters", "k"}
    assert (component["properties"]["k"]["minimum"], component["properties"]["k"]["maximum"]) == (
        1,
        50,
    )
    assert {"200", "400", "401", "404"} <= set(operation["responses"])
