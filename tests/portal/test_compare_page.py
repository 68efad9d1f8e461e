"""The run page's feedback and re-run, and the compare page, in a real browser."""

from __future__ import annotations

import pytest
import requests
from rest_framework.authtoken.models import Token

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.models import QueryRun, RunFeedback
from tests.portal.conftest import PHONE, screenshot
from tests.queries.clients import js_reader_frames

pytestmark = pytest.mark.slow

QUESTION = "What did Marie Curie discover?"
DOCUMENTS = [
    (
        "curie.txt",
        "Marie Curie discovered polonium and radium in 1898. She won two Nobel Prizes, in "
        "physics and in chemistry.",
    ),
    (
        "pierre.txt",
        "Pierre Curie worked beside Marie Curie on radioactivity. Together they discovered "
        "that radium glows faintly in the dark.",
    ),
    (
        "nobel.txt",
        "The Nobel Prize in Chemistry of 1911 went to Marie Curie for her discovery of the "
        "elements radium and polonium.",
    ),
    (
        "sorbonne.txt",
        "At the Sorbonne, Marie Curie became the first woman to teach; her lectures covered "
        "radioactivity, a word she coined.",
    ),
]


def test_rate_a_run_rerun_it_with_changes_and_compare(portal, new_page, django_user_model):
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    kb = kb_create(owner=alice, name="Physics")
    documents_ingest_inline(kb=kb, items=[TextItem(n, t.encode()) for n, t in DOCUMENTS])
    token = Token.objects.create(user=alice).key
    response = requests.post(
        portal.url + "/api/query",
        json={"query": QUESTION, "provider": "extractive", "knowledge_bases": [kb.id]},
        headers={"Authorization": f"Token {token}"},
        stream=True,
        timeout=(5, 60),
    )
    original = response.headers["X-Run-Id"]
    js_reader_frames(response)

    page = new_page()
    portal.sign_in(page, "alice", f"/history/{original}/")
    page.wait_for_selector("#replay[data-replay='ready']")

    # Feedback: a rating saves at once; the comment with Save; both survive a reload.
    page.get_by_role("button", name="✗ Bad answer").click()
    page.wait_for_selector("#feedback[data-rating='down']")
    page.get_by_label("Comment").fill("It should name both elements first.")
    page.get_by_role("button", name="Save feedback").click()
    page.locator("#feedback-status", has_text="Saved.").wait_for()
    feedback = RunFeedback.objects.get(run_id=original, user=alice)
    assert (feedback.rating, feedback.comment) == ("down", "It should name both elements first.")
    page.reload()
    page.wait_for_selector("#feedback[data-rating='down']")
    assert page.get_attribute("#rate-down", "aria-pressed") == "true"
    assert page.input_value("#feedback-comment") == "It should name both elements first."
    assert page.inner_text("#feedback-counts") == "0 good · 1 bad"

    # Re-run with two settings changed; the form sends only those.
    page.wait_for_selector("#rr-kbs[data-loaded='1']")
    assert page.input_value("#rr-rerank_top_k") == "5"
    page.fill("#rr-rerank_top_k", "2")
    page.uncheck("#rr-reranker")
    screenshot(page, "run-feedback-rerun")
    page.get_by_role("button", name="Re-run").click()
    page.wait_for_selector("#rerun[data-state='done']", timeout=60_000)
    assert page.inner_text("#rr-status") == "Changed: reranker off, rerank_top_k 2."
    rerun = QueryRun.objects.get(rerun_of_id=original)
    assert rerun.overrides == {"rerank_top_k": 2, "reranker": False}
    assert rerun.status == "succeeded"

    page.click("#rr-compare")
    page.wait_for_url(f"**/history/compare/?a={original}&b={rerun.id}")
    page.wait_for_selector("#compare")
    assert page.get_attribute("#stage-reranker", "data-changed") == "1"
    assert page.get_attribute("#stage-retrieval", "data-changed") == "0"
    config = page.text_content("#config-table")
    assert "rerank_top_k" in config and "reranker.kind" in config and "fused-rank" in config
    # The table holds every passage either run kept; those only one kept are marked.
    passages = requests.get(
        portal.url + "/api/runs/compare",
        params={"a": original, "b": str(rerun.id)},
        headers={"Authorization": f"Token {token}"},
        timeout=30,
    ).json()["stages"]["reranker"]["passages"]
    assert sum(1 for p in passages if p["a"]) == len(DOCUMENTS)
    assert sum(1 for p in passages if p["b"]) == 2
    assert page.locator("#rerank-table tbody tr").count() == len(passages)
    assert page.locator("#rerank-table tbody tr.diff-only").count() == sum(
        1 for p in passages if not (p["a"] and p["b"])
    )
    assert page.locator("#answer-a, #answer-b").count() == 2
    page.click("#stage-aggregator summary")
    screenshot(page, "compare")
    page.click("#theme-toggle")
    assert page.get_attribute("html", "data-theme") == "dark"
    screenshot(page, "compare-dark")
    page.click("#theme-toggle")

    # The original's page links its re-run and the comparison.
    page.goto(f"{portal.url}/history/{original}/")
    page.wait_for_selector("#run-lineage:not([hidden]) .compare-rerun")
    assert page.get_attribute("#run-lineage .compare-rerun", "href") == (
        f"/history/compare/?a={original}&b={rerun.id}"
    )
    page.goto(f"{portal.url}/history/{rerun.id}/")
    page.wait_for_selector("#compare-original")
    assert "rerank_top_k 2" in page.inner_text("#run-lineage")

    # History: filter by feedback; the export link is there.
    page.goto(f"{portal.url}/history/?feedback=down")
    page.wait_for_selector(f"#run-rows tr[data-run-id='{original}']")
    assert page.locator("#run-rows tr[data-run-id]").count() == 1
    assert page.input_value("#f-feedback") == "down"
    assert "✗ 1" in page.inner_text(f"#run-rows tr[data-run-id='{original}']")
    page.goto(f"{portal.url}/history/")
    page.wait_for_selector(f"#run-rows tr[data-run-id='{rerun.id}'] .chip")
    assert page.get_attribute("#feedback-export", "href") == "/api/feedback/export"

    phone = new_page(PHONE)
    portal.sign_in(phone, "alice", f"/history/compare/?a={original}&b={rerun.id}")
    phone.wait_for_selector("#compare")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    screenshot(phone, "compare-phone")
