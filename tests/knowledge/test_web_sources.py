"""Web pages kept in sync, against a real HTTP server this test starts: crawled on one site,
re-synced after a page changed and after one vanished; private addresses refused."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from knowledge.models import Document, WebSource
from knowledge.services import kb_create
from knowledge.web_sources import web_source_sync

pytestmark = pytest.mark.django_db(transaction=True)

PAGES = {
    "/": "<html><body><h1>Handbook</h1><p>See <a href='/leave'>leave</a> and "
    "<a href='/travel'>travel</a>, and <a href='http://elsewhere.example/x'>elsewhere</a>.</p>"
    "</body></html>",
    "/leave": "<html><body><h1>Leave</h1><p>Staff get 25 days of annual leave.</p></body></html>",
    "/travel": "<html><body><h1>Travel</h1><p>Book trains for trips under 500 km.</p></body></html>",
    "/robots.txt": "User-agent: *\nDisallow: /private\n",
}


class Site(BaseHTTPRequestHandler):
    pages: dict[str, str] = {}

    def do_GET(self):  # noqa: N802 - http.server's name
        body = self.pages.get(self.path)
        if body is None:
            self.send_response(404)
            self.end_headers()
            return
        kind = "text/plain" if self.path.endswith(".txt") else "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def site():
    Site.pages = dict(PAGES)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def pages_of(source):
    return {
        doc.external_id.rsplit("/", 1)[-1]: doc
        for doc in Document.objects.filter(web_sources=source)
    }


def test_a_site_is_crawled_then_resynced_after_a_change_and_a_removal(
    site, user, settings, auth_client
):
    settings.WEB_SOURCES_ALLOWED_HOSTS = [site.removeprefix("http://")]  # 127.0.0.1:<port>
    kb = kb_create(owner=user, name="Intranet")
    created = auth_client.post(
        f"/api/knowledge-bases/{kb.id}/sources", {"url": site + "/", "depth": 1}, format="json"
    )
    assert created.status_code == 201, created.content
    source = WebSource.objects.get(id=created.json()["id"])

    source = web_source_sync(source_id=source.id, ingest_inline=True)
    assert source.status == "idle" and source.counts["pages"] == 3
    assert source.counts["added"] == 3 and source.counts["removed"] == 0
    first = pages_of(source)
    assert set(first) == {"", "leave", "travel"}
    assert all(doc.status == "ready" for doc in first.values())

    Site.pages["/leave"] = Site.pages["/leave"].replace("25 days", "27 days")
    del Site.pages["/travel"]
    source = web_source_sync(source_id=source.id, ingest_inline=True)
    assert source.counts == {
        "pages": 2, "added": 0, "updated": 1, "unchanged": 1, "removed": 1, "failed": 1,
        "skipped": 0, "skipped_links": [],
    }  # fmt: skip
    second = pages_of(source)
    assert set(second) == {"", "leave"}
    assert second[""].id == first[""].id and second["leave"].id != first["leave"].id
    assert not Document.objects.filter(id=first["travel"].id).exists()
    from knowledge.models import Chunk

    assert "27 days" in " ".join(
        Chunk.objects.filter(document=second["leave"]).values_list("text", flat=True)
    )
    detail = auth_client.get(f"/api/sources/{source.id}").json()
    assert detail["documents"] == 2 and detail["progress_done"] == 2


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://localhost:8000/",
        "file:///etc/passwd",
    ],
)
def test_private_loopback_and_link_local_addresses_are_refused(auth_client, user, url):
    kb = kb_create(owner=user, name="Intranet")
    response = auth_client.post(
        f"/api/knowledge-bases/{kb.id}/sources", {"url": url}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == (
        "invalid_url" if url.startswith("file") else "forbidden_address"
    )
    assert not WebSource.objects.exists()


@pytest.mark.parametrize(
    "url", ["http://[127.0.0.1]/", "http://[::1", "http://[zzz]/", "http://[127.0.0.1]:8711/"]
)
def test_a_url_that_cannot_be_read_is_a_400_not_a_500(auth_client, user, url):
    kb = kb_create(owner=user, name="Intranet")
    response = auth_client.post(
        f"/api/knowledge-bases/{kb.id}/sources", {"url": url, "depth": 0}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid_url"
    assert "cannot be read" in response.json()["error"]


def test_bad_links_are_listed_and_the_rest_of_the_site_syncs(site, user, settings):
    settings.WEB_SOURCES_ALLOWED_HOSTS = [site.removeprefix("http://")]
    Site.pages["/"] = (
        "<html><body><h1>Handbook</h1><a href='/leave'>leave</a> <a href='/travel'>travel</a>"
        " <a href='http://[127.0.0.1]/x'>one</a> <a href='http://[::1'>two</a>"
        " <a href='http://a.example:99999/'>three</a></body></html>"
    )
    kb = kb_create(owner=user, name="Intranet")
    source = WebSource.objects.create(knowledge_base=kb, url=site + "/", depth=1, created_by=user)
    source = web_source_sync(source_id=source.id, ingest_inline=True)
    assert source.status == "idle", source.error
    assert set(pages_of(source)) == {"", "leave", "travel"}
    report = source.counts
    assert report["pages"] == 3 and report["skipped"] == 3
    assert [item["url"] for item in report["skipped_links"]] == [
        "http://[127.0.0.1]/x", "http://[::1", "http://a.example:99999/",
    ]  # fmt: skip
    assert all("cannot be read" in item["reason"] for item in report["skipped_links"])


def test_an_allowed_host_allows_its_default_port_or_the_ports_it_names(settings):
    from adrag_site.errors import ServiceError
    from knowledge.web_fetch import check_url

    def allowed(url: str) -> bool:
        try:
            check_url(url)
        except ServiceError as exc:
            assert exc.code == "forbidden_address"
            return False
        return True

    settings.WEB_SOURCES_ALLOWED_HOSTS = ["127.0.0.1"]
    assert allowed("http://127.0.0.1/") and not allowed("http://127.0.0.1:8711/")
    settings.WEB_SOURCES_ALLOWED_HOSTS = ["127.0.0.1:8711"]
    assert allowed("http://127.0.0.1:8711/") and not allowed("http://127.0.0.1/")
    settings.WEB_SOURCES_ALLOWED_HOSTS = ["127.0.0.0/8:8000-8999"]
    assert allowed("http://127.0.0.2:8711/") and not allowed("http://127.0.0.2:9000/")
    settings.WEB_SOURCES_ALLOWED_HOSTS = ["localhost:8080"]
    assert allowed("http://localhost:8080/") and not allowed("http://localhost:8081/")
    settings.WEB_SOURCES_ALLOWED_HOSTS = ["[::1]:8080", "not an entry:x"]
    assert allowed("http://[::1]:8080/") and not allowed("http://[::1]/")


def test_a_page_two_sources_reach_goes_only_with_the_last_of_them(
    site, user, settings, auth_client
):
    settings.WEB_SOURCES_ALLOWED_HOSTS = [site.removeprefix("http://")]
    kb = kb_create(owner=user, name="Intranet")
    made = [
        auth_client.post(
            f"/api/knowledge-bases/{kb.id}/sources", {"url": url, "depth": depth}, format="json"
        )
        for url, depth in ((site + "/", 1), (site + "/leave", 0))
    ]
    handbook, leave = (WebSource.objects.get(id=response.json()["id"]) for response in made)
    web_source_sync(source_id=handbook.id, ingest_inline=True)
    web_source_sync(source_id=leave.id, ingest_inline=True)
    page = pages_of(leave)["leave"]
    assert pages_of(handbook)["leave"].id == page.id  # one document, both sources'
    assert Document.objects.filter(knowledge_base=kb).count() == 3

    # The handbook stops linking to it: its sync leaves the page to the other source.
    Site.pages["/"] = Site.pages["/"].replace("<a href='/leave'>leave</a>", "leave")
    handbook = web_source_sync(source_id=handbook.id, ingest_inline=True)
    assert handbook.counts["removed"] == 1 and "leave" not in pages_of(handbook)
    assert Document.objects.filter(id=page.id).exists()

    # Back in the handbook, then the leave source is deleted: the handbook keeps the page.
    Site.pages["/"] = PAGES["/"]
    web_source_sync(source_id=handbook.id, ingest_inline=True)
    assert pages_of(handbook)["leave"].id == page.id
    deleted = auth_client.delete(f"/api/sources/{leave.id}")
    assert deleted.status_code in (200, 204), deleted.content
    assert Document.objects.filter(id=page.id).exists()
    # The handbook, the last source to reach it, is deleted: the page goes with it.
    auth_client.delete(f"/api/sources/{handbook.id}")
    assert not Document.objects.filter(knowledge_base=kb).exists()
