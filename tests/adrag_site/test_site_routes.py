"""The spec's page addresses, the favicon, and the version in /api/health."""

from __future__ import annotations

import tomllib
from importlib import metadata

import pytest

from adrag_site import health
from tests.support import ROOT

pytestmark = pytest.mark.django_db
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


@pytest.mark.parametrize(
    "spec_path, page",
    [
        ("/chat", "/"),
        ("/chat/", "/"),
        ("/knowledge-base", "/knowledge/"),
        ("/configuration", "/providers/"),
    ],
)
def test_the_spec_page_routes_lead_to_the_portal_pages(client, user, spec_path, page):
    client.force_login(user)
    response = client.get(spec_path)
    assert response.status_code in (301, 302) and response["Location"] == page
    assert client.get(spec_path, follow=True).status_code == 200


def test_a_spec_route_keeps_its_query_string(client):
    response = client.get("/chat?run=0f3c")
    assert response["Location"] == "/?run=0f3c"


def test_every_page_links_the_svg_icon_and_favicon_ico_leads_to_it(client, user):
    login_page = client.get("/accounts/login/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in login_page
    client.force_login(user)
    assert 'href="/static/favicon.svg"' in client.get("/").content.decode()
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == "/static/favicon.svg"
    icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200 and icon["Content-Type"] == "image/svg+xml"
    assert b"<svg" in b"".join(icon.streaming_content)


def test_health_reports_the_package_version(client):
    body = client.get("/api/health").json()
    assert body["version"] == metadata.version("adrag-django") == VERSION


def test_the_version_falls_back_to_pyproject_when_the_package_is_not_installed(monkeypatch):
    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    health.app_version.cache_clear()
    monkeypatch.setattr(health.metadata, "version", not_installed)
    try:
        assert health.app_version() == VERSION
    finally:
        health.app_version.cache_clear()
