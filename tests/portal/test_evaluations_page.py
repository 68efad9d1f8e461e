"""The evaluations pages in a real browser: upload a set, run it against a small knowledge base
with the extractive provider, watch its progress, read its plots, change one setting, run it
again, and compare the two; a set's page, and a teammate replaying its runs; at phone width and
in the dark theme too."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.models import Evaluation, EvaluationSet, QueryRun
from tests.portal.conftest import PHONE, screenshot

pytestmark = pytest.mark.slow

DOCUMENTS = [
    ("curie.txt", "Marie Curie discovered polonium and radium in 1898. She won two Nobel Prizes."),
    ("nobel.txt", "The Nobel Prize in Chemistry of 1911 went to Marie Curie for radium."),
    ("pierre.txt", "Pierre Curie worked beside Marie Curie on radioactivity in Paris."),
    ("risotto.txt", "Risotto is cooked with arborio rice and stock added slowly."),
]
QUESTIONS = [
    {"question": "What did Marie Curie discover?", "answers": ["polonium"], "sources": ["curie.txt"]},
    {"question": "Who won the Nobel Prize in Chemistry of 1911?", "answers": ["Marie Curie"], "sources": ["nobel.txt"]},
    {"question": "Where did Pierre Curie work on radioactivity?", "answers": ["Paris"], "sources": ["pierre.txt"]},
    {"question": "What rice is risotto cooked with?", "answers": ["arborio"], "sources": ["risotto.txt"]},
    {"question": "How many Nobel Prizes did Marie Curie win?", "answers": ["two"], "sources": ["curie.txt"]},
    {"question": "Who manages the Lisbon office?", "not_in_documents": True},
]  # fmt: skip
ROUNDS = 3  # the set asks each question this many times: long enough to watch it run


def wait_until_finished(page, timeout: int = 120_000) -> None:
    page.wait_for_selector("#evaluation[data-status='succeeded']", timeout=timeout)


def test_upload_run_watch_plots_change_a_setting_and_compare(
    portal, new_page, django_user_model, tmp_path
):
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    kb = kb_create(owner=alice, name="Physics")
    documents_ingest_inline(kb=kb, items=[TextItem(n, t.encode()) for n, t in DOCUMENTS])
    path = tmp_path / "curie-set.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in QUESTIONS * ROUNDS))
    total = len(QUESTIONS) * ROUNDS

    page = new_page()
    portal.sign_in(page, "alice", "/evaluations/")
    page.set_input_files("#set-file", str(path))
    page.fill("#set-name", "Curie questions")
    page.click("#upload-set")
    page.locator(".message", has_text=f"saved: {total} questions").wait_for()
    assert page.inner_text("#set-table tbody tr td:first-child") == "Curie questions"

    page.check(f"input[name='knowledge_bases'][value='{kb.id}']")
    page.select_option("#ev-provider", "extractive")
    page.fill("#ev-label", "defaults")
    page.click("#start-evaluation")
    page.wait_for_url("**/evaluations/*/")
    first = Evaluation.objects.get(label="defaults")
    # The page opens on the running evaluation and follows it to the end.
    assert page.get_attribute("#evaluation", "data-active") == "1"
    assert page.get_attribute("#evaluation-progress", "max") == str(total)
    wait_until_finished(page)
    assert page.get_attribute("#evaluation-progress", "value") == str(total)
    for plot in ("#plot-metrics", "#plot-latency"):
        assert page.locator(plot).is_visible()
    assert page.locator("#plot-metrics rect.plot-bar").count() == 4
    assert page.locator("#question-table tbody tr").count() == total
    assert page.locator("#question-table a.run-link").count() == total
    assert page.inner_text("#metric-table tr[data-metric='honest_not_found'] td") == (
        f"100 % ({ROUNDS}/{ROUNDS})"
    )
    screenshot(page, "evaluation-run")

    # Each question's run opens in the history's replay.
    page.click("#question-table tbody tr:first-child a.run-link")
    page.wait_for_selector("#replay[data-replay='ready']")
    page.go_back()
    page.wait_for_selector("#evaluation[data-status='succeeded']")

    # Run it again with one setting changed: the form starts from this run's settings.
    assert page.is_checked(f"input[name='knowledge_bases'][value='{kb.id}']")
    page.click("#start-form summary")
    page.fill("#ev-rerank_top_k", "1")
    page.fill("#ev-label", "rerank_top_k 1")
    page.click("#start-evaluation")
    page.wait_for_url(lambda url: url.rstrip("/").endswith(str(first.id + 1)) or "compare" in url)
    wait_until_finished(page)
    second = Evaluation.objects.get(label="rerank_top_k 1")
    assert second.overrides == {"rerank_top_k": 1}
    assert QueryRun.objects.filter(evaluation=second).count() == total

    page.select_option("#compare-b", str(first.id))
    page.click("#compare-evaluations")
    page.wait_for_url(f"**/evaluations/compare/?a={second.id}&b={first.id}")
    assert page.locator("#plot-compare rect.plot-series-1").count() == 4
    assert page.locator("#delta-table tbody tr").count() == 7
    changed = page.locator("#changed-table tbody tr[data-change]")
    for index in range(changed.count()):
        href = changed.nth(index).locator("a.run-compare-link").get_attribute("href")
        assert href.startswith("/history/compare/?a=")
    screenshot(page, "evaluation-compare")
    page.click("#theme-toggle")
    assert page.get_attribute("html", "data-theme") == "dark"
    screenshot(page, "evaluation-compare-dark")
    page.click("#theme-toggle")

    page.goto(portal.url + "/evaluations/")
    rows = page.locator("#evaluation-table tbody tr[data-evaluation-id]")
    assert rows.count() == 2
    assert "succeeded" in rows.first.inner_text()
    screenshot(page, "evaluations")

    phone = new_page(PHONE)
    portal.sign_in(phone, "alice")
    for address in (
        f"/evaluations/{first.id}/",
        f"/evaluations/compare/?a={first.id}&b={second.id}",
    ):
        phone.goto(portal.url + address)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], (address, width)
    screenshot(phone, "evaluation-compare-phone")


def test_a_set_s_page_and_a_teammate_replaying_its_runs_at_phone_width_and_dark(
    portal, new_page, django_user_model, tmp_path
):
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    dana = django_user_model.objects.create_user("dana", "dana@example.com", "dana-pass-123")
    lab = Group.objects.create(name="lab")
    alice.groups.add(lab)
    dana.groups.add(lab)
    kb = kb_create(owner=alice, name="Physics")
    documents_ingest_inline(kb=kb, items=[TextItem(n, t.encode()) for n, t in DOCUMENTS])
    kb.team = lab
    kb.save(update_fields=["team"])
    path = tmp_path / "curie-set.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in QUESTIONS * 10))
    call_command(
        "evaluate", "--set", str(path), "--kb", str(kb.id), "--provider", "extractive",
        "--user", "alice", "--inline", stdout=io.StringIO(),
    )  # fmt: skip
    evaluation = Evaluation.objects.get()
    EvaluationSet.objects.update(team=lab, name="Curie questions")

    page = new_page()
    portal.sign_in(page, "alice", "/evaluations/")
    page.click("#set-table a.set-link")
    page.wait_for_selector("#set-question-table")
    assert page.locator("#set-question-table tbody tr").count() == 50
    assert page.locator("#set-question-table tr[data-not-in-documents]").count() == 8
    assert page.locator("#delete-set-form").is_visible()
    screenshot(page, "evaluation-set")
    page.click("#page-next")
    page.wait_for_url("**?page=2")
    assert page.locator("#set-question-table tbody tr").count() == 10
    page.click("#theme-toggle")
    assert page.get_attribute("html", "data-theme") == "dark"
    screenshot(page, "evaluation-set-dark")

    # A teammate reads the set (no delete) and opens and replays a question's run.
    phone = new_page(PHONE)
    portal.sign_in(phone, "dana")
    for address in ("/evaluations/", f"/evaluations/sets/{evaluation.evaluation_set_id}/"):
        phone.goto(portal.url + address)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], (address, width)
    assert phone.locator("#delete-set-form").count() == 0
    screenshot(phone, "evaluation-set-phone")
    phone.goto(portal.url + f"/evaluations/{evaluation.id}/")
    phone.click("#question-table tbody tr:first-child a.run-link")
    phone.wait_for_selector("#replay[data-replay='ready']")
    assert phone.locator("#read-only-note").is_visible()
    assert phone.locator("#feedback").count() == 0
    phone.select_option("#replay-speed", "4")
    phone.click("#replay-button")
    phone.wait_for_selector("#replay-status:has-text('Replay finished')", timeout=30_000)
