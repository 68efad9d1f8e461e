"""A front end on another origin, in a real browser: it signs in through the portal, then lists
knowledge bases, asks a question with the session (CSRF token from /api/csrf) and reads the
answer's stream, and replays it from the events endpoint. From an origin not configured, the
browser refuses to let the page read anything, though the session cookie is there."""

from __future__ import annotations

import json
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.models import QueryRun
from tests.portal.conftest import ALLOWED_ELSEWHERE, front_end_origin, front_end_socket
from tests.portal.test_pages import CURIE
from tests.queries.pipeline.scripted import PLAN_RETRIEVE, answer, verdict

pytestmark = pytest.mark.slow

FRONT_END = Path(__file__).parent / "front_end"
QUESTION = "What did Marie Curie discover?"


class FrontEndHandler(SimpleHTTPRequestHandler):
    """Serve the front end's files under a strict policy of its own: its API is elsewhere."""

    def end_headers(self) -> None:
        self.send_header(
            "Content-Security-Policy",
            "default-src 'self'; connect-src 'self' http://127.0.0.1:*; img-src 'self' data:",
        )
        super().end_headers()

    def log_message(self, format, *args) -> None:
        pass


@pytest.fixture
def front_end_server():
    """Start static servers of the front end: on the origin the shared portal allows, or on a
    port of its own (an origin the portal does not know)."""
    servers = []

    def _start(*, allowed: bool) -> str:
        handler = partial(FrontEndHandler, directory=str(FRONT_END))
        if allowed:
            server = ThreadingHTTPServer(("127.0.0.1", 0), handler, bind_and_activate=False)
            server.socket.close()
            server.socket = front_end_socket()  # already listening, and kept for the process
            server.server_address = server.socket.getsockname()
        else:
            server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append((server, allowed))
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield _start
    for server, allowed in servers:
        server.shutdown()
        if not allowed:
            server.server_close()


def test_a_front_end_on_a_configured_origin_uses_the_session_and_reads_the_stream(
    portal, front_end_server, new_page, django_user_model
):
    front_end, stranger = front_end_server(allowed=True), front_end_server(allowed=False)
    assert front_end == front_end_origin()
    api = portal.url
    stack = portal.stack
    alice = django_user_model.objects.create_user("alice", password="alice-pass-123")
    kb = kb_create(owner=alice, name="Physics")
    documents_ingest_inline(kb=kb, items=[TextItem("curie.txt", CURIE.encode())])
    stack.write_scripts(
        {QUESTION: {"planner": [PLAN_RETRIEVE], "reasoning": [answer()], "reflection": [verdict()]}}
    )

    page = new_page()
    app_url = f"{front_end}/index.html?api={api}"
    page.goto(app_url)
    page.wait_for_selector("body[data-state='signed-out']")
    # Signing in happens on the portal, which sends the visitor back to the configured front end.
    page.click("#sign-in")
    page.wait_for_url(f"{api}/accounts/login/?next=*")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("alice-pass-123")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(app_url)
    page.wait_for_selector("body[data-state='done'], body[data-state='refused']", timeout=60_000)
    results = json.loads(page.get_attribute("body", "data-results"))
    assert page.get_attribute("body", "data-state") == "done", results
    assert results["knowledgeBases"] == ["Physics"]
    assert results["postStatus"] == 200
    # X-Run-Id is readable (an exposed header), the stream arrived whole, and it is alice's run.
    run = QueryRun.objects.get(id=results["runId"])
    assert run.user == alice and run.provider == "scripted" and run.status == "succeeded"
    assert results["postTypes"][0] == "stage_start"
    assert results["postTypes"][-2:] == ["done", "stream_end"]
    assert results["answer"].startswith("Marie Curie discovered radium")
    assert "radium" in page.inner_text("#answer")
    assert results["eventTypes"][-2:] == ["done", "stream_end"]
    assert results["eventTypes"].count("stage_complete") >= 5

    # The same page from an origin not configured: the request goes out with the cookie, but
    # the answer carries no CORS header, so the browser keeps it from the page.
    refused = new_page()
    refused.context.add_cookies(page.context.cookies())
    refused.goto(f"{stranger}/index.html?api={api}")
    refused.wait_for_selector("body[data-state='refused']")
    results = json.loads(refused.get_attribute("body", "data-results"))
    assert results["error"] == "TypeError: Failed to fetch"
    assert "knowledgeBases" not in results
    assert QueryRun.objects.count() == 1
    preflight = requests.options(
        api + "/api/query",
        headers={"Origin": stranger, "Access-Control-Request-Method": "POST"},
        timeout=10,
    )
    assert "Access-Control-Allow-Origin" not in preflight.headers
    allowed = requests.options(
        api + "/api/query",
        headers={"Origin": ALLOWED_ELSEWHERE, "Access-Control-Request-Method": "POST"},
        timeout=10,
    )
    assert allowed.headers["Access-Control-Allow-Origin"] == ALLOWED_ELSEWHERE
