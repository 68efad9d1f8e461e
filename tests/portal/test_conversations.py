"""Conversations in the portal: a follow-up under the earlier turns, the sidebar, reopening a
conversation, starting a new one, and history grouped by conversation (real browser, real
pipeline with the offline extractive provider)."""

from __future__ import annotations

import re

import pytest

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.models import Conversation, QueryRun
from tests.portal.conftest import DESKTOP, PHONE, ask_offline, screenshot
from tests.queries.test_conversations import PLATFORM_DOCS

pytestmark = pytest.mark.slow

FIRST, SECOND, THIRD = "What does Project Falcon do?", "Who deployed it first?", "And when?"


def answer_text(page) -> str:
    return page.inner_text("#run-view [data-role=answer]")


def test_a_conversation_keeps_its_thread_and_reopens_from_the_sidebar(
    portal, new_page, django_user_model
):
    from django.contrib.auth.models import Group

    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    bob = django_user_model.objects.create_user("bob", "bob@example.com", "bob-pass-123")
    team = Group.objects.create(name="Platform team")
    alice.groups.add(team)
    bob.groups.add(team)
    kb = kb_create(owner=alice, name="Platform", team=team)
    documents_ingest_inline(
        kb=kb, items=[TextItem(name, text.encode()) for name, text in PLATFORM_DOCS.items()]
    )
    page = new_page()
    portal.sign_in(page, "alice")
    page.wait_for_selector("#conv-list li:text('No conversations yet')")

    # The first question starts a conversation, listed in the sidebar.
    ask_offline(page, FIRST)
    assert "payments scheduler" in answer_text(page)
    conversation_id = page.get_attribute("#chat", "data-conversation-id")
    assert conversation_id and f"conversation={conversation_id}" in page.url
    item = page.locator(f"#conv-list .conv-item[data-conversation-id='{conversation_id}']")
    item.wait_for()
    assert FIRST in item.inner_text() and item.get_attribute("aria-current") == "true"
    assert page.is_hidden("#thread-card")
    assert page.input_value("#question") == ""
    assert page.get_attribute("#question", "placeholder") == "Ask a follow-up…"

    # The follow-up is read with the first turn; the first turn moves into the thread above it.
    ask_offline(page, SECOND)
    assert "Maria Santos" in answer_text(page) and "Kenji" not in answer_text(page)
    assert page.inner_text("#current-question") == SECOND
    assert page.inner_text("#current-standalone") == (
        "Searched as: Who deployed Project Falcon first?"
    )
    turns = page.locator("#thread li.turn")
    assert turns.count() == 1
    assert FIRST in turns.first.inner_text() and "payments scheduler" in turns.first.inner_text()
    assert "falcon.md" in turns.first.locator(".turn-foot").inner_text()
    assert page.get_attribute("#chat", "data-conversation-id") == conversation_id
    page.wait_for_selector(
        f"#conv-list .conv-item[data-conversation-id='{conversation_id}'] :text('2 turns')"
    )
    runs = QueryRun.objects.filter(conversation_id=conversation_id).order_by("created_at")
    assert [run.standalone_query for run in runs] == [FIRST, "Who deployed Project Falcon first?"]

    # Shared read-only with her team: a member opens the link and reads both turns.
    page.select_option("#thread-share-team", "Platform team")
    page.wait_for_selector("#thread-share-status:text('Members of Platform team can read it.')")
    link = page.get_attribute("#thread-share-link", "href")
    assert link == f"/shared/conversations/{conversation_id}/"
    reader = new_page()
    portal.sign_in(reader, "bob", link)
    shared = reader.inner_text("#main")
    assert FIRST in shared and SECOND in shared and "Maria Santos" in shared
    assert "Withheld" not in shared
    screenshot(reader, "shared-conversation")
    # A source opens the document viewer at the cited passage.
    opened = reader.locator("ul.sources a.source-open").first
    chunk_id = opened.get_attribute("href").split("chunk=")[1].split("&")[0]
    opened.click()
    reader.wait_for_selector("#document-view[data-marked='1']")
    assert reader.locator(".passage.passage-mark").get_attribute("data-chunk-id") == chunk_id
    reader.close()
    screenshot(page, "chat-conversation")
    page.click("#theme-toggle")
    screenshot(page, "chat-conversation-dark")
    page.click("#theme-toggle")
    page.set_viewport_size(PHONE)
    # At phone width the navigation is one line and the conversations come before the question.
    links = page.locator("nav.nav a")
    assert len({round(links.nth(i).bounding_box()["y"]) for i in range(links.count())}) == 1
    sidebar, ask = (
        page.locator("#conv-sidebar").bounding_box(),
        page.locator(".ask-card").bounding_box(),
    )
    assert sidebar["y"] < ask["y"] and sidebar["height"] <= 240
    screenshot(page, "chat-conversation-phone")
    page.set_viewport_size(DESKTOP)

    # A fresh page starts no conversation; the sidebar reopens this one: earlier turns in the
    # thread, the last one in the tracker and answer.
    page.goto(portal.url + "/")
    page.wait_for_selector("#conv-list .conv-item")
    assert page.get_attribute("#chat", "data-conversation-id") is None
    assert page.is_hidden("#thread-card") and page.is_hidden("#current-turn")
    page.click(f"#conv-list .conv-item[data-conversation-id='{conversation_id}']")
    page.wait_for_selector("#chat[data-state='succeeded']")
    page.wait_for_selector("#thread li.turn")
    assert page.get_attribute("#chat", "data-conversation-id") == conversation_id
    assert page.inner_text("#current-question") == SECOND
    assert "Maria Santos" in answer_text(page)
    assert page.locator("#thread li.turn").count() == 1
    assert page.input_value("#question") == ""

    # After a reload the same conversation is back, and a third turn continues it.
    page.reload()
    page.wait_for_selector("#chat[data-state='succeeded']")
    page.wait_for_selector("#thread li.turn")
    assert page.get_attribute("#chat", "data-conversation-id") == conversation_id
    ask_offline(page, THIRD)
    assert "14 March 2021" in answer_text(page)
    assert page.inner_text("#current-standalone") == (
        "Searched as: Who deployed Project Falcon first, and when?"
    )
    assert page.locator("#thread li.turn").count() == 2
    assert Conversation.objects.get(id=conversation_id).runs.count() == 3

    # "New conversation" clears the thread; the next question starts another conversation.
    page.get_by_role("button", name="New conversation").click()
    assert page.is_hidden("#thread-card") and page.is_hidden("#current-turn")
    assert "conversation=" not in page.url
    ask_offline(page, "What is Project Heron?")
    other = page.get_attribute("#chat", "data-conversation-id")
    assert other and other != conversation_id
    assert page.is_hidden("#thread-card")
    page.wait_for_selector(f"#conv-list .conv-item[data-conversation-id='{other}']")
    assert page.locator("#conv-list .conv-item").count() == 2

    # History groups the conversation's runs under its header, in the order they were asked;
    # the filters still apply.
    page.goto(portal.url + "/history/")
    header = page.locator(f"#run-rows tr.conv-row[data-conversation-id='{conversation_id}']")
    header.wait_for()
    assert FIRST in header.inner_text() and "3 runs" in header.inner_text()
    grouped = page.locator("#run-rows tr.in-conv")
    assert [grouped.nth(i).locator("a").inner_text() for i in range(3)] == [FIRST, SECOND, THIRD]
    assert "Searched as: Who deployed Project Falcon first?" in grouped.nth(1).inner_text()
    assert page.locator(f"#run-rows tr.conv-row[data-conversation-id='{other}']").count() == 0
    screenshot(page, "history-conversations")
    page.fill("#f-q", "Heron")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_selector("#run-count:text('1 run')")
    assert page.locator("#run-rows tr.conv-row").count() == 0
    page.goto(portal.url + "/history/")
    header.get_by_role("link", name="Open in chat").click()
    page.wait_for_url(re.compile(rf"conversation={conversation_id}"))
    page.wait_for_selector("#chat[data-state='succeeded']")
    # Opened by its link, the conversation is the one marked in the sidebar.
    page.wait_for_selector(
        f"#conv-list .conv-item[data-conversation-id='{conversation_id}'][aria-current='true']"
    )
    assert page.locator("#thread li.turn").count() == 2
    assert page.inner_text("#current-question") == THIRD
