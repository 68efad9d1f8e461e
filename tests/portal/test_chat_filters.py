"""The chat page's metadata filters in a real browser: pick a document, ask, and the answer
cites only that document."""

from __future__ import annotations

import pytest

from knowledge.services import kb_create
from queries.models import QueryRun
from tests.knowledge.filter_corpus import TARGET, ingest_filter_corpus
from tests.portal.conftest import ask_offline, screenshot

pytestmark = pytest.mark.slow

# The target answers the first half best; the Voyager document answers the second.
QUERY = (
    "What did Margaret Hamilton write for NASA at MIT, and what does the Voyager Golden Record "
    "carry?"
)


def cited_files(page) -> list[str]:
    return page.eval_on_selector_all(
        "#run-view .source-card > summary",
        "cards => cards.map(card => card.textContent)",
    )


def test_a_document_filter_narrows_the_answer_to_that_document(portal, new_page, django_user_model):
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    kb = kb_create(owner=alice, name="Missions")
    documents = ingest_filter_corpus(kb, alice)
    page = new_page()
    portal.sign_in(page, "alice")

    # Unfiltered, the answer cites the Apollo document: the filter below has something to remove.
    ask_offline(page, QUERY)
    assert any(TARGET in card for card in cited_files(page))

    # Open the filters, pick the Voyager document: the chip says one document is on.
    page.get_by_text("Filters", exact=True).click()
    page.wait_for_selector("#filters[data-loading='0']")
    options = page.eval_on_selector_all(
        "#filter-documents option", "options => options.map(o => o.textContent)"
    )
    # Each ready document, with its upload day.
    assert sorted(options) == sorted(
        f"{name} · {doc.created_at.date().isoformat()}" for name, doc in documents.items()
    )
    page.select_option("#filter-documents", str(documents["voyager.docx"].id))
    assert page.inner_text("#filters-chip") == "1 document"
    ask_offline(page, QUERY)
    files = cited_files(page)
    assert files and all("voyager.docx" in card for card in files), files
    assert "Golden Record" in page.inner_text("#run-view [data-role=answer]")
    run = QueryRun.objects.order_by("-created_at").first()
    assert run.filters == {"documents": [documents["voyager.docx"].id]}
    screenshot(page, "chat-filters")

    # File types and dates reach the server too; a reversed range is a clear 400 in the page.
    page.click("#filters-clear")
    assert page.is_hidden("#filters-chip")
    page.check("#filter-type-md")
    page.fill("#filter-after", "2024-07-01")
    page.fill("#filter-before", "2024-06-01")
    assert page.inner_text("#filters-chip") == "md · 2024-07-01 – 2024-06-01"
    page.get_by_label("Your question").fill("Which telescope observes infrared light?")
    page.get_by_role("button", name="Ask").click()
    page.wait_for_selector("#run-view [data-role=error]:not([hidden])")
    assert "earlier" in page.inner_text("#run-view [data-role=error]")
