"""Every page in a real browser without a console error, and the rerank row naming the reranker
that actually ran (here the fallback: no cross-encoder is on this machine)."""

from __future__ import annotations

import re
import time

import pytest
import requests
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse
from rest_framework.authtoken.models import Token

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.evaluation.services import (
    evaluation_run_inline,
    evaluation_set_create,
    evaluation_start,
)
from queries.evaluation.sets import question_parse
from queries.execution import run_execute
from queries.models import RunFeedback
from queries.services import run_create
from tests.portal.conftest import sign_in
from tests.portal.test_pages import CURIE, ask, current_run_id, wait_state

pytestmark = pytest.mark.slow

RERANK_DETAILS = "#run-view [data-stage=reranker] [data-role=stage-details]"
FALLBACK_SCORES = "Fallback scores (embedding cosine + term match)"


def watch_console(page) -> list[str]:
    """Collect every console error and every failed response of a page, not only CSP reports."""
    problems: list[str] = []
    page.on(
        "console",
        lambda message: (
            problems.append(f"console at {page.url}: {message.text[:160]}")
            if message.type == "error"
            else None
        ),
    )
    page.on(
        "response",
        lambda response: (
            problems.append(f"{response.status} for {response.url}")
            if response.status >= 400
            else None
        ),
    )
    return problems


class Traffic:
    """The requests of a page still in flight, and a count of every request started or ended."""

    def __init__(self, page) -> None:
        self.page = page
        self.pending: set = set()
        self.events = 0
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _started(self, request) -> None:
        self.pending.add(request)
        self.events += 1

    def _ended(self, request) -> None:
        self.pending.discard(request)
        self.events += 1

    def settle(self, quiet_ms: int = 100, timeout: float = 20) -> None:
        """Return once no request is in flight and none started or ended for `quiet_ms`: the
        page's fetches after loading are done, and so are the scripts that read their answers
        (the quiet is timed in the page, so its tasks queued before the timer run first).
        Playwright's "networkidle" waits for the same but with 500 ms of quiet, at every page."""
        deadline = time.monotonic() + timeout
        while True:
            events = self.events
            self.page.evaluate("ms => new Promise(done => setTimeout(done, ms))", quiet_ms)
            if not self.pending and events == self.events:
                return
            assert time.monotonic() < deadline, [request.url for request in self.pending]


def admin_pages(user) -> list[str]:
    """Every admin page a superuser can open: index, app indexes, and per model its list, add
    form, and the change form and history of one object."""
    request = RequestFactory().get("/admin/")
    request.user = user
    pages = [reverse("admin:index"), reverse("admin:password_change")]
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        name = f"admin:{meta.app_label}_{meta.model_name}"
        app_index = reverse("admin:app_list", args=[meta.app_label])
        if app_index not in pages:
            pages.append(app_index)
        pages.append(reverse(f"{name}_changelist"))
        if model_admin.has_add_permission(request):
            pages.append(reverse(f"{name}_add"))
        first = model_admin.get_queryset(request).order_by("pk").first()
        if first is not None:
            pages.append(reverse(f"{name}_change", args=[first.pk]))
            pages.append(reverse(f"{name}_history", args=[first.pk]))
    return pages


def test_every_page_loads_without_a_console_error(portal, new_page, django_user_model):
    root = django_user_model.objects.create_superuser("root", "root@example.com", "root-pass-123")
    Token.objects.create(user=root)
    kb = kb_create(owner=root, name="Physics")
    documents_ingest_inline(kb=kb, items=[TextItem("curie.txt", CURIE.encode())])
    run = run_create(
        user=root, query="What did Marie Curie discover?", provider_name="extractive",
        model=None, kb_ids=[kb.id], start_conversation=True,
    )  # fmt: skip
    run_execute(run_id=run.id)
    RunFeedback.objects.create(run=run, user=root, rating="down", comment="Too short")
    evaluation_set = evaluation_set_create(
        user=root,
        name="Curie",
        questions=[question_parse({"question": run.query, "answers": ["polonium"]}, position=1)],
    )
    evaluation = evaluation_start(
        user=root, evaluation_set=evaluation_set, kb_ids=[kb.id], provider="extractive", model=None
    )
    evaluation_run_inline(evaluation_id=evaluation.id)
    # A failed sign-in leaves rows for the throttling admin pages.
    requests.post(portal.url + "/accounts/login/", data={"username": "root", "password": "no"})

    page = new_page()
    problems = watch_console(page)
    traffic = Traffic(page)
    for path in ("/accounts/login/", "/admin/login/"):
        page.goto(portal.url + path)
        traffic.settle()
    sign_in(page, portal.url, "root", "root-pass-123")
    portal_pages = [
        "/",
        f"/?run={run.id}",
        f"/?conversation={run.conversation_id}",
        "/knowledge/",
        f"/knowledge/?kb={kb.id}",
        "/history/",
        f"/history/{run.id}/",
        f"/history/compare/?a={run.id}",
        f"/history/compare/?a={run.id}&b={run.id}",
        "/evaluations/",
        f"/evaluations/{evaluation.id}/",
        f"/evaluations/compare/?a={evaluation.id}&b={evaluation.id}",
        "/providers/",
        "/account/tokens/",
        "/teams/",
        "/chat",
        "/knowledge-base",
        "/configuration",
        "/api/docs",
        "/api/redoc",
        "/favicon.ico",
    ]
    visited = []
    for path in portal_pages + admin_pages(root):
        response = page.goto(portal.url + path)
        assert response.ok, (path, response.status)
        # The portal's pages fetch after loading: wait until they are done. The admin's scripts
        # run as the page loads.
        if not path.startswith("/admin/"):
            traffic.settle()
        visited.append(path)
    assert len(visited) > 40, visited
    # Counts and their nouns agree: a one-chunk document is "1 chunk", never "1 chunks".
    document = kb.documents.get()
    page.goto(portal.url + f"/knowledge/?kb={kb.id}")
    traffic.settle()
    listed = page.inner_text("#main")
    assert re.search(r"\b1 (chunks|documents|pages|entities|edges|files)\b", listed) is None
    assert ("1 chunk" if document.chunk_count == 1 else f"{document.chunk_count} chunks") in listed
    page.goto(portal.url + "/api/docs")
    traffic.settle()
    page.locator(".opblock").first.wait_for()
    page.goto(portal.url + "/favicon.ico")
    assert page.url == portal.url + "/static/favicon.svg"
    page.goto(portal.url + "/")
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(portal.url + "/accounts/login/")
    assert problems == [], "\n".join(problems)


def test_the_rerank_row_names_the_fallback_reranker_that_ran(portal, new_page, django_user_model):
    alice = django_user_model.objects.create_user("alice", password="alice-pass-123")
    kb = kb_create(owner=alice, name="Physics")
    documents_ingest_inline(kb=kb, items=[TextItem("curie.txt", CURIE.encode())])
    reranker = requests.get(portal.url + "/api/health", timeout=30).json()["reranker"]
    assert reranker["kind"] == "embedding-cosine+lexical"

    page = new_page()
    portal.sign_in(page, "alice")
    page.wait_for_selector("#chat[data-ready='1']")
    assert "Cross-encoder" not in page.inner_text("#run-view")
    ask(page, "What did Marie Curie discover?", "extractive")
    wait_state(page, "succeeded")
    details = page.inner_text(RERANK_DETAILS)
    assert FALLBACK_SCORES in details, details
    assert "Cross-encoder" not in page.inner_text("#run-view")
    scores = page.locator(RERANK_DETAILS + " .chip", has_text="Fallback scores")
    assert scores.get_attribute("title") == reranker["name"]

    # The replay of the stored run says the same.
    page.goto(f"{portal.url}/history/{current_run_id(page)}/")
    page.wait_for_selector("#replay[data-replay='ready']")
    page.select_option("#replay-speed", "instant")
    page.get_by_role("button", name="Replay").click()
    page.wait_for_selector("#replay[data-replay='done']")
    assert FALLBACK_SCORES in page.inner_text(RERANK_DETAILS)

    # Only a stage that reports the cross-encoder is labelled with it.
    def rerank_row_for(reranker_data: dict | None) -> str:
        return page.evaluate(
            """reranker => {
                 const root = document.querySelector('#run-view');
                 const view = new window.Adrag.RunView(root);
                 const data = {stage: 'reranker', top_k: 2, scores: [3.2, -1.5]};
                 if (reranker) data.reranker = reranker;
                 view.apply({type: 'stage_start', data: {stage: 'reranker'}});
                 view.apply({type: 'stage_complete', data: data});
                 return root.querySelector('[data-stage=reranker] [data-role=stage-details]').textContent;
               }""",
            reranker_data,
        )

    cross_encoder = {"kind": "cross-encoder", "name": "cross-encoder/ms-marco-MiniLM-L-6-v2"}
    assert "Cross-encoder scores" in rerank_row_for(cross_encoder)
    assert "Cross-encoder" not in rerank_row_for({"kind": "embedding-cosine+lexical"})
    assert "Cross-encoder" not in rerank_row_for(None)
