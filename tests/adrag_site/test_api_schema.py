"""The OpenAPI schema at /api/schema and its documentation page at /api/docs."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db

NOT_IN_SCHEMA = {"/api/schema", "/api/docs", "/api/redoc"}


def api_routes() -> set[str]:
    """Every /api/ route of the URL configuration, written as OpenAPI paths."""
    routes = set()

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern):
                routes.add("/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route))

    walk(get_resolver().url_patterns, "")
    return {route for route in routes if route.startswith("/api/")} - NOT_IN_SCHEMA


@pytest.fixture
def schema(auth_client) -> dict:
    response = auth_client.get("/api/schema", {"format": "json"})
    assert response.status_code == 200
    return response.json()


def test_the_schema_and_the_docs_need_a_login(client):
    response = client.get("/api/schema")
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"
    for page in ("/api/docs", "/api/redoc"):
        response = client.get(page)
        assert response.status_code == 302
        assert response["Location"] == f"/accounts/login/?next={page}"


def test_the_schema_is_served_as_yaml_by_default_and_json_on_request(auth_client):
    response = auth_client.get("/api/schema")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi")
    assert response.content.startswith(b"openapi: 3.")
    assert auth_client.get("/api/schema", {"format": "json"}).json()["openapi"].startswith("3.")


def test_the_schema_covers_every_api_route(schema):
    assert set(schema["paths"]) == api_routes()


def test_the_two_streams_are_event_streams_with_json_errors(schema):
    query = schema["paths"]["/api/query"]["post"]
    events = schema["paths"]["/api/runs/{run_id}/events"]["get"]
    for operation in (query, events):
        assert set(operation["responses"]["200"]["content"]) == {"text/event-stream"}
        assert "X-Run-Id" in operation["responses"]["200"]["headers"]
    body = query["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["query"]
    assert set(body["properties"]) == {
        "query",
        "provider",
        "model",
        "knowledge_bases",
        "conversation",
        "filters",
        "answer_deltas",
    }
    assert "X-Conversation-Id" in query["responses"]["200"]["headers"]
    assert {"400", "401", "404", "429"} <= set(query["responses"])
    assert {"204", "400", "401", "404"} <= set(events["responses"])


def test_every_error_response_is_the_json_error_body(schema):
    components = schema["components"]["schemas"]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if path != "/api/health":
                assert "401" in operation["responses"], (method, path)
            for status, response in operation["responses"].items():
                if not status.startswith("4"):
                    continue
                reference = response["content"]["application/json"]["schema"]["$ref"]
                component = components[reference.rsplit("/", 1)[-1]]
                assert {"error", "code"} <= set(component["required"]), (method, path, status)


def test_the_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yaml"))
    assert (tmp_path / "s.yaml").read_text().startswith("openapi: 3.")


def scripts_and_styles(html: str) -> tuple[list[str], bool, bool]:
    sources = re.findall(r'<script src="([^"]+)"></script>', html)
    inline_script = bool(re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html))
    inline_style = "<style" in html or " style=" in html
    return sources, inline_script, inline_style


def test_swagger_ui_loads_everything_from_this_server_without_inline_code(auth_client):
    page = auth_client.get("/api/docs")
    assert page.status_code == 200
    assert page["Content-Security-Policy"].startswith("default-src 'self'; script-src 'self';")
    sources, inline_script, inline_style = scripts_and_styles(page.content.decode())
    assert not inline_script and not inline_style
    assert sources[:2] == [
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-standalone-preset.js",
    ]
    init = auth_client.get(sources[2])
    assert init.status_code == 200 and "javascript" in init["Content-Type"]
    assert b'url: "/api/schema"' in init.content
    bundle = auth_client.get(sources[0])
    assert bundle.status_code == 200


def test_redoc_is_gone_and_its_address_leads_to_swagger_ui(auth_client):
    # Redoc's bundle injects a stylesheet before it can be given a nonce and loads its logo
    # from a CDN: it cannot run under the portal's CSP without patching it.
    response = auth_client.get("/api/redoc")
    assert response.status_code == 302 and response["Location"] == "/api/docs"
    assert not auth_client.get("/static/api_docs/redoc-init.js").status_code == 200


# What a malformed id answers, by the kind of id (README "Conversations" and "Errors"): a
# conversation id that is no UUID is a 400; any other id that is not one of the caller's
# (malformed, zero, too large, unknown) is a 404, as a missing one is. The spec's DELETE of a
# knowledge base is idempotent: a 200 saying nothing was deleted.
MALFORMED_IDS = ("not-an-id", "0", "-1", "99999999999999999999999", "1e3", "%C3%A9")
MALFORMED_ANSWER = {"conversation_id": (400, "invalid_conversation")}
IDEMPOTENT = {("delete", "/api/knowledge-bases/{kb_id}")}


def test_every_route_with_a_path_id_answers_a_malformed_one_as_documented(
    api_client, staff_user, schema
):
    from rest_framework.authtoken.models import Token

    key = Token.objects.create(user=staff_user).key
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")  # staff: the team routes too
    walked = 0
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            params = [p["name"] for p in operation.get("parameters", []) if p["in"] == "path"]
            if method not in ("get", "post", "put", "patch", "delete") or not params:
                continue
            for bad in MALFORMED_IDS:
                url = path
                for name in params:
                    url = url.replace("{" + name + "}", bad)
                response = getattr(api_client, method)(url, {}, format="json")
                walked += 1
                if (method, path) in IDEMPOTENT:
                    assert response.status_code == 200 and response.json()["deleted"] is False
                    continue
                status, code = MALFORMED_ANSWER.get(params[0], (404, "not_found"))
                assert response.status_code == status, (method, url, response.content)
                assert response.json()["code"] == code, (method, url)
                assert str(status) in operation["responses"], (method, path, status)
    assert walked >= 30 * len(MALFORMED_IDS)  # 32 operations take a path id
