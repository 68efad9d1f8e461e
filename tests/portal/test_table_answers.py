"""Questions over a workbook in the portal: a count, a two-step question and a cross-sheet
question answered by table programs, the tracker showing each program, and a cited row opened
in the document viewer (real browser, real upload, the offline extractive provider)."""

from __future__ import annotations

import pytest

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from tests.fixtures.clinics import clinics_workbook
from tests.portal.conftest import ask_offline, screenshot

pytestmark = pytest.mark.slow


def _answer(page) -> str:
    return page.inner_text("#run-view [data-role=answer]").strip()


def _stage(page, stage: str) -> str:
    return page.inner_text(f"#run-view [data-stage='{stage}'] [data-role=stage-details]")


def _open_cited_row(page, portal_url: str, row_text: str) -> None:
    """Open the cited source card holding `row_text`, then its document at that row."""
    cards = page.locator("#run-view details.source-card")
    for index in range(cards.count()):
        card = cards.nth(index)
        card.locator(":scope > summary").click()
        link = card.locator(".source-open a")
        if link.count() and row_text in card.inner_text():
            href = link.get_attribute("href")
            page.goto(portal_url + href)
            page.wait_for_selector("#document-view[data-marked='1']")
            assert row_text in page.inner_text(".passage.passage-mark")
            return
    raise AssertionError(f"no cited row holds {row_text!r}")


def test_counts_two_step_and_cross_sheet_answers_show_their_programs(
    portal, new_page, django_user_model, settings
):
    settings.MEDIA_ROOT = portal.stack.env["ADRAG_MEDIA_ROOT"]
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    kb = kb_create(owner=alice, name="Clinics")
    documents_ingest_inline(kb=kb, items=[TextItem("clinics.xlsx", clinics_workbook())])
    page = new_page()
    page.set_viewport_size({"width": 1280, "height": 1000})
    portal.sign_in(page, "alice")

    cases = [
        (
            "How many clinics opened after 2019?",
            "3",
            "Counted 3 rows",
            "table-count-answer",
            "Evora",
        ),
        (
            "Which clinic opened first, and who is its manager?",
            "Lisbon; Manager: Pedro Alves",
            "then read Manager of that row",
            "table-two-step-answer",
            "Lisbon",
        ),
        (
            "What is the budget of the clinic with the most beds?",
            "2,400,000",
            # The budgets' sheet read with the clinics' beside it (knowledge/tables/joined.py).
            "the most Beds among 5 rows of clinics.xlsx › Budgets + Clinics",
            "table-cross-sheet-answer",
            "2,400,000",
        ),
    ]
    for question, answer, words, name, row in cases:
        page.goto(portal.url + "/")
        ask_offline(page, question)
        assert _answer(page).startswith(answer), _answer(page)
        assert words in _stage(page, "retrieval"), _stage(page, "retrieval")
        assert "from a table" in _stage(page, "reasoning")
        screenshot(page, name)
        _open_cited_row(page, portal.url, row)
        screenshot(page, f"{name}-row")
