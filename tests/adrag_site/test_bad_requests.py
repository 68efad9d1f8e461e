"""Hostile input answers 4xx JSON {"error", "code"}, never a 500 with a traceback."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group

from providers.llm.registry import provider_names
from queries.inputs import MISSING_QUERY, SPEC_BAD_PROVIDER

pytestmark = pytest.mark.django_db

DEEP_LIST = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000


def nested(depth: int):
    value: object = "leaf"
    for _ in range(depth - 1):
        value = {"child": value}
    return value


@pytest.fixture
def kb(user):
    from knowledge.services import kb_create

    return kb_create(owner=user, name="Research")


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["code"] == code and body["error"], body
    return body


def send_json(client, method: str, path: str, raw: str):
    return getattr(client, method)(path, raw, content_type="application/json")


JSON_ENDPOINTS = [
    ("post", "/api/knowledge-bases"),
    ("patch", "/api/knowledge-bases/{kb}"),
    ("put", "/api/knowledge-bases/{kb}"),
    ("post", "/api/knowledge-bases/{kb}/documents"),
    ("post", "/api/query"),
]


@pytest.mark.parametrize("raw", [DEEP_LIST, DEEP_OBJECT], ids=["list", "object"])
@pytest.mark.parametrize(("method", "path"), JSON_ENDPOINTS)
def test_deeply_nested_json_is_400_on_every_json_endpoint(auth_client, kb, method, path, raw):
    response = send_json(auth_client, method, path.format(kb=kb.id), raw)
    assert_error(response, 400, "too_deeply_nested")


@pytest.mark.parametrize(("method", "path"), JSON_ENDPOINTS)
def test_json_nested_past_the_limit_but_parseable_is_400(auth_client, kb, method, path):
    body = {"name": "x", "query": "x", "extra": nested(40)}
    response = send_json(auth_client, method, path.format(kb=kb.id), json.dumps(body))
    assert_error(response, 400, "too_deeply_nested")


BAD_STRINGS = {"nul": "a\x00b", "lone_surrogate": "a\ud800b"}


@pytest.mark.parametrize("bad", BAD_STRINGS.values(), ids=BAD_STRINGS.keys())
@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/api/knowledge-bases", {"name": "{bad}"}),
        ("post", "/api/knowledge-bases", {"name": "ok", "description": "{bad}"}),
        ("post", "/api/knowledge-bases", {"name": "ok", "team": "{bad}"}),
        ("post", "/api/knowledge-bases", {"name": "ok", "{bad}": 1}),
        ("patch", "/api/knowledge-bases/{kb}", {"name": "{bad}"}),
        ("post", "/api/query", {"query": "{bad}"}),
        ("post", "/api/query", {"query": "ok", "model": "{bad}"}),
        ("post", "/api/query", {"query": "ok", "provider": "{bad}"}),
        ("post", "/api/query", {"query": "ok", "extra": ["{bad}"]}),
    ],
)
def test_nul_or_lone_surrogate_in_a_json_string_is_400(auth_client, kb, method, path, body, bad):
    # json.dumps escapes both, as a client would send them: "\u0000", "\ud800".
    raw = json.dumps(body).replace("{bad}", json.dumps(bad)[1:-1])
    response = send_json(auth_client, method, path.format(kb=kb.id), raw)
    assert_error(response, 400, "invalid_characters")


def test_nul_in_a_form_field_is_400(auth_client):
    response = auth_client.post("/api/knowledge-bases", {"name": "a\x00b"}, format="multipart")
    assert_error(response, 400, "invalid_characters")


def test_superscript_digit_as_team_is_400_not_a_crash(auth_client):
    response = auth_client.post(
        "/api/knowledge-bases", {"name": "Physics", "team": "²"}, format="json"
    )
    assert_error(response, 400, "invalid_team")


def test_team_id_too_large_for_the_database_is_400(auth_client):
    response = auth_client.post(
        "/api/knowledge-bases", {"name": "Physics", "team": "9" * 30}, format="json"
    )
    assert_error(response, 400, "invalid_team")


def test_model_name_over_200_characters_is_400(auth_client):
    response = auth_client.post(
        "/api/query", {"query": "What is radium?", "model": "m" * 201}, format="json"
    )
    assert_error(response, 400, "model_too_long")


def test_question_over_max_query_chars_is_400_and_one_at_the_limit_passes(auth_client, settings):
    settings.MAX_QUERY_CHARS = 50
    too_long = auth_client.post("/api/query", {"query": "q" * 51}, format="json")
    body = assert_error(too_long, 400, "query_too_long")
    assert "50" in body["error"]
    # At the limit the question passes the length check and the next check answers.
    at_limit = auth_client.post(
        "/api/query", {"query": "q" * 50, "provider": "nope"}, format="json"
    )
    assert_error(at_limit, 400, "invalid_provider")


def test_the_specs_two_400_messages_are_unchanged(auth_client):
    missing = assert_error(auth_client.post("/api/query", {}, format="json"), 400, "missing_query")
    assert missing["error"] == MISSING_QUERY == "Missing or empty 'query' field"
    provider = assert_error(
        auth_client.post("/api/query", {"query": "x", "provider": "nope"}, format="json"),
        400,
        "invalid_provider",
    )
    # The spec's message first; then the providers it does not name, plugins included.
    assert provider["error"].startswith(SPEC_BAD_PROVIDER)
    assert all(repr(name) in provider["error"] for name in provider_names())


@pytest.mark.parametrize("param", ["since", "until"])
@pytest.mark.parametrize(
    "value",
    [
        "2026-02-30",
        "2026-13-01",
        "2026-01-01T00:00:00+99:00",
        "2026-02-30T10:00:00Z",
        "9999-12-31T23:59:59-23:59",
        "yesterday",
    ],
)
def test_impossible_dates_in_run_filters_are_400(auth_client, param, value):
    response = auth_client.get("/api/runs", {param: value})
    assert_error(response, 400, "invalid_request")


def test_real_dates_in_run_filters_still_filter(auth_client, user):
    from queries.models import QueryRun

    QueryRun.objects.create(user=user, query="kept", provider="extractive", status="succeeded")
    listed = auth_client.get("/api/runs", {"since": "2000-01-01", "until": "2999-01-01T00:00"})
    assert listed.status_code == 200 and listed.json()["count"] == 1
    assert auth_client.get("/api/runs", {"until": "2000-01-01"}).json()["count"] == 0


@pytest.mark.parametrize(
    "url",
    [
        "/api/runs?q=%00",
        "/api/runs?provider=%00",
        "/api/runs?status=succeeded&q=a%00b",
        "/api/runs?%00=1",
        "/api/knowledge-bases/1/documents?status=%00",
    ],
)
def test_nul_in_a_query_parameter_is_400(auth_client, url):
    assert_error(auth_client.get(url), 400, "invalid_characters")


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("delete", "/api/knowledge-bases/%00"),
        ("get", "/api/knowledge-bases/%00/stats"),
        ("get", "/api/documents/1%00"),
        ("get", "/api/runs/%00"),
        ("get", "/api/runs/%00/events"),
    ],
)
def test_nul_in_an_api_path_is_400(auth_client, method, url):
    assert_error(getattr(auth_client, method)(url), 400, "invalid_characters")


@pytest.mark.parametrize("method", ["post", "patch"])
def test_unknown_team_and_a_team_you_are_not_in_answer_alike(auth_client, kb, method):
    Group.objects.create(name="strangers")
    path = "/api/knowledge-bases" if method == "post" else f"/api/knowledge-bases/{kb.id}"
    stranger_id = Group.objects.get(name="strangers").id
    answers = []
    for team in ["strangers", "no-such-team", str(stranger_id), str(stranger_id + 1000)]:
        response = getattr(auth_client, method)(path, {"name": "Shared", "team": team}, "json")
        answers.append((response.status_code, response.json()))
    assert answers[0][0] == 400 and answers[0][1]["code"] == "invalid_team"
    assert all(answer == answers[0] for answer in answers), answers


def test_a_team_you_are_in_is_still_accepted_by_name_and_by_id(auth_client, user):
    team = Group.objects.create(name="lab")
    user.groups.add(team)
    by_name = auth_client.post("/api/knowledge-bases", {"name": "A", "team": "lab"}, "json")
    by_id = auth_client.post("/api/knowledge-bases", {"name": "B", "team": str(team.id)}, "json")
    assert by_name.status_code == 201 and by_name.json()["team"]["name"] == "lab"
    assert by_id.status_code == 201 and by_id.json()["team"]["id"] == team.id
