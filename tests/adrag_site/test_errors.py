"""Every /api/ error is {"error": ..., "code": ...}, never an HTML page."""

from __future__ import annotations

import logging

import pytest
from django.urls import include, path
from rest_framework import serializers
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

pytestmark = pytest.mark.django_db


class EchoApi(APIView):
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=10)

    def post(self, request):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.validated_data)


class StaffOnlyApi(APIView):
    permission_classes = [IsAdminUser]

    def get(self, request):
        return Response({"ok": True})


class BrokenApi(APIView):
    def get(self, request):
        raise RuntimeError("secret internal detail")


def broken_plain_view(request):
    raise ValueError("another secret")


urlpatterns = [
    path("api/echo", EchoApi.as_view()),
    path("api/staff-only", StaffOnlyApi.as_view()),
    path("api/broken", BrokenApi.as_view()),
    path("api/broken-plain", broken_plain_view),
    path("", include("adrag_site.urls")),
]


def assert_error(response, status, code=None):
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) >= {"error", "code"} and body["error"] and body["code"]
    if code:
        assert body["code"] == code
    return body


@pytest.mark.urls(__name__)
def test_validation_error_is_400_json_with_field_details(auth_client):
    body = assert_error(auth_client.post("/api/echo", {"name": "x" * 20}, format="json"), 400)
    assert body["code"] == "invalid_request"
    assert "name" in body["details"]


@pytest.mark.urls(__name__)
def test_malformed_json_is_400_json(auth_client):
    response = auth_client.post("/api/echo", "{not json", content_type="application/json")
    assert_error(response, 400, "parse_error")


def test_missing_credentials_is_401_json(client):
    assert_error(client.get("/api/runs"), 401, "not_authenticated")


@pytest.mark.urls(__name__)
def test_forbidden_is_403_json(auth_client):
    assert_error(auth_client.get("/api/staff-only"), 403, "permission_denied")


@pytest.mark.urls(__name__)
def test_session_post_without_csrf_is_403_json(user):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert_error(client.post("/api/echo", {"name": "x"}), 403)


def test_unknown_path_is_404_json(auth_client):
    assert_error(auth_client.get("/api/missing"), 404, "not_found")


def test_wrong_method_is_405_json(client):
    response = client.post("/api/health")
    assert_error(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"]


@pytest.mark.urls(__name__)
def test_wrong_method_on_drf_view_is_405_json(auth_client):
    assert_error(auth_client.delete("/api/echo"), 405, "method_not_allowed")


def test_a_json_body_over_djangos_cap_is_413_json(auth_client, settings):
    # The web tier refuses such bodies before Django (tests/adrag_site/test_server_limits.py);
    # Django's own cap answers the same way.
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    response = auth_client.post("/api/knowledge-bases", {"name": "x" * 2048}, format="json")
    assert_error(response, 413, "payload_too_large")


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("path", ["/api/broken", "/api/broken-plain"])
def test_a_view_that_raises_is_500_json_without_the_detail(auth_client, path):
    auth_client.raise_request_exception = False
    response = auth_client.get(path)
    body = assert_error(response, 500, "server_error")
    assert "secret" not in response.content.decode()
    assert body["error"] == "Internal server error."


def test_portal_404_is_an_html_page(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_request_id_is_accepted_echoed_and_logged(auth_client, caplog):
    caplog.set_level(logging.WARNING, logger="django.request")
    response = auth_client.get("/api/missing", HTTP_X_REQUEST_ID="abc-123-def-456")
    assert response["X-Request-ID"] == "abc-123-def-456"
    records = [r for r in caplog.records if r.name == "django.request"]
    assert records and records[-1].request_id == "abc-123-def-456"


def test_malformed_request_id_is_replaced(auth_client):
    response = auth_client.get("/api/missing", HTTP_X_REQUEST_ID="bad id\nwith newline")
    generated = response["X-Request-ID"]
    assert generated != "bad id\nwith newline" and len(generated) == 32


def test_debug_is_off_by_default(settings):
    import os

    assert "DEBUG" not in os.environ or os.environ["DEBUG"].lower() in ("", "0", "false")
    assert settings.DEBUG is False
