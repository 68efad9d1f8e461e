"""Structured answers in the portal: a table row cited as a table, a numbered step, an honest
"not found", and a follow-up about a row (real browser, real uploads, the offline extractive
provider)."""

from __future__ import annotations

import re

import pytest

from knowledge.services import kb_create
from tests.portal.conftest import PHONE, ask_offline, screenshot

pytestmark = pytest.mark.slow

OFFICES_CSV = (
    "office,country,office lead,head count\n"
    "Lisbon,Portugal,Ana Costa,212\n"
    "Porto,Portugal,Rui Mendes,64\n"
    "Dublin,Ireland,Siobhan Byrne,31\n"
)
ONBOARDING_MD = """# Onboarding guide

Everything a new starter does in the first week.

## Laptop setup

1. Collect your laptop from the IT desk on the ground floor.
2. Sign in with the temporary password from your welcome email.
3. Enrol the laptop in device management before installing anything.
4. Install the approved browser and the password manager.
"""
STEP_TWO = "Sign in with the temporary password from your welcome email"


def answer_text(page) -> str:
    return page.inner_text("#run-view [data-role=answer]").strip()


def open_cited_card(page, prefix: str = "chat"):
    """Follow the answer's first [n] citation and return the source card it opened."""
    cite = page.locator("#run-view a.cite").first
    index = cite.get_attribute("data-cite")
    cite.click()
    page.wait_for_selector(f"#{prefix}-source-{index}[open]")
    return page.locator(f"#{prefix}-source-{index}")


def reflection_details(page) -> str:
    return page.inner_text("#run-view [data-stage='reflection'] [data-role=stage-details]")


def run_id(page) -> str:
    return re.search(r"[?&]run=([0-9a-f-]{36})", page.url).group(1)


def assert_not_found(page) -> None:
    details = reflection_details(page)
    assert "not found in the documents" in details and "verified" not in details
    assert re.search(r"sufficient\s*no", details)
    badge = page.locator("#run-view [data-role=meta] .chip.notfound")
    assert badge.inner_text() == "not found in the documents"
    meta = page.inner_text("#run-view [data-role=meta]")
    assert "verified" not in meta and "grounded" not in meta
    assert float(re.search(r"confidence\s*([\d.]+)", meta).group(1)) <= 0.3


def assert_row_card_is_a_table(card) -> None:
    table = card.locator("table.source-table")
    assert table.is_visible()
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    assert headers == ["office", "country", "office lead", "head count"]
    cells = [c.strip() for c in table.locator("tbody tr").first.locator("td").all_inner_texts()]
    assert cells == ["Porto", "Portugal", "Rui Mendes", "64"]
    # The caption names the table (the CSV's name) and where the row sits in it.
    assert re.fullmatch(
        r"offices · rows? \d+(–\d+)?", table.locator("caption").inner_text().strip()
    )
    body = card.locator(".source-body").inner_text()
    assert "head count:" not in body.split("Show full content")[0] and "|" not in body
    assert card.locator(".source-body > .preview").count() == 0
    assert card.locator(".full-content summary").inner_text().startswith("Show full content")


def test_rows_and_steps_answer_from_their_structure_and_a_missing_topic_is_not_found(
    portal, new_page, django_user_model, tmp_path
):
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    kb = kb_create(owner=alice, name="Team documents")
    page = new_page()

    # A CSV and a Markdown file uploaded through the knowledge page, both ingested.
    offices, onboarding = tmp_path / "offices.csv", tmp_path / "onboarding.md"
    offices.write_text(OFFICES_CSV)
    onboarding.write_text(ONBOARDING_MD)
    portal.sign_in(page, "alice", f"/knowledge/?kb={kb.id}")
    page.wait_for_selector("#kb-title:text('Team documents')")
    page.set_input_files("#file-input", [str(offices), str(onboarding)])
    page.get_by_role("button", name="Upload").click()
    page.wait_for_function(
        """() => document.querySelectorAll('#upload-list li[data-status=ready]').length === 2""",
        timeout=120_000,
    )

    # A row's value: the answer leads with it and its card shows the row under its headers.
    page.goto(portal.url + "/")
    ask_offline(page, "How many people work in the Porto office?")
    assert answer_text(page).startswith("64"), answer_text(page)
    assert "verified & finalized" in reflection_details(page)
    meta = page.inner_text("#run-view [data-role=meta]")
    assert "grounded" in meta and "yes" in meta and "not found" not in meta
    card = open_cited_card(page)
    assert "offices.csv" in card.locator(".source-name").inner_text()
    assert_row_card_is_a_table(card)
    card.locator(".full-content summary").click()
    assert "Porto" in card.locator(".full-content pre").inner_text()
    row_run = run_id(page)
    screenshot(page, "structured-row-answer")
    page.set_viewport_size(PHONE)
    screenshot(page, "structured-row-answer-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.click("#theme-toggle")
    screenshot(page, "structured-row-answer-dark")
    page.click("#theme-toggle")

    # The run's page replays the stored events to the same card.
    page.goto(f"{portal.url}/history/{row_run}/")
    page.wait_for_selector("#replay[data-replay='ready']")
    assert answer_text(page).startswith("64")
    assert_row_card_is_a_table(open_cited_card(page, "replay"))

    # A numbered step: the answer holds step 2; the card shows the section it sits under.
    page.goto(portal.url + "/")
    ask_offline(page, "What is step 2 of Laptop setup?")
    assert STEP_TWO in answer_text(page), answer_text(page)
    card = open_cited_card(page)
    assert "onboarding.md" in card.locator(".source-name").inner_text()
    section = card.locator(".source-section")
    assert section.inner_text() == "Onboarding guide › Laptop setup"
    assert section.get_attribute("title") == "Onboarding guide › Laptop setup"
    assert card.locator("table").count() == 0
    assert STEP_TWO in card.locator(".preview").inner_text()
    screenshot(page, "structured-step-answer")

    # Nothing on the topic: the tracker and the answer card say "not found", never "verified",
    # live and on the run's page.
    page.goto(portal.url + "/")
    ask_offline(page, "What is the parental leave policy?")
    answer = answer_text(page)
    assert answer.startswith("I could not find the parental leave policy"), answer
    assert_not_found(page)
    screenshot(page, "not-found-answer")
    not_found_run = run_id(page)
    page.goto(f"{portal.url}/history/{not_found_run}/")
    page.wait_for_selector("#replay[data-replay='ready']")
    assert answer_text(page) == answer
    assert_not_found(page)

    # A run stored before the verdict existed says what its `grounded` said.
    page.evaluate(
        """() => {
             const view = new Adrag.RunView(document.getElementById('run-view'), {idPrefix: 'old'});
             view.apply({type: 'stage_start', data: {stage: 'reflection'}});
             view.apply({type: 'finalize', data: {stage: 'reflection', grounded: false}});
             view.apply({type: 'done', data: {answer: 'Old [1]', sources: [],
                         metadata: {grounded: false, confidence: 0.4}}});
           }"""
    )
    assert "finalized unverified" in reflection_details(page)
    assert re.search(r"grounded\s*no", page.inner_text("#run-view [data-role=meta]"))


def test_a_follow_up_about_a_row_keeps_its_office(portal, new_page, django_user_model, tmp_path):
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    kb = kb_create(owner=alice, name="Offices")
    page = new_page()
    offices = tmp_path / "offices.csv"
    offices.write_text(OFFICES_CSV)
    portal.sign_in(page, "alice", f"/knowledge/?kb={kb.id}")
    page.wait_for_selector("#kb-title:text('Offices')")
    page.set_input_files("#file-input", str(offices))
    page.get_by_role("button", name="Upload").click()
    page.wait_for_selector("#upload-list li[data-status='ready']", timeout=120_000)

    page.goto(portal.url + "/")
    ask_offline(page, "Who runs the Dublin office?")
    assert "Siobhan Byrne" in answer_text(page), answer_text(page)
    ask_offline(page, "How many people work there?")
    assert answer_text(page).startswith("31"), answer_text(page)
    assert "Dublin" in page.inner_text("#current-standalone")
    turns = page.locator("#thread li.turn")
    assert turns.count() == 1 and "Siobhan Byrne" in turns.first.inner_text()
    cells = open_cited_card(page).locator("table.source-table tbody td").all_inner_texts()
    assert "Dublin" in cells and "31" in cells
    screenshot(page, "follow-up-thread")
