"""A citation opens its document: a PDF at the cited page with the passage highlighted by the
vendored pdf.js (under the portal's CSP), any other file with the passage marked."""

from __future__ import annotations

import pytest

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.models import Chunk, Document
from knowledge.services import kb_create
from tests.portal.conftest import screenshot
from tests.support import ROOT

pytestmark = pytest.mark.slow
FILES = ROOT / "tests" / "fixtures" / "files"


def test_a_cited_pdf_passage_opens_at_its_page_highlighted_and_markdown_marked(
    portal, new_page, django_user_model, settings
):
    # The files are stored where the live server (started by whichever test came first)
    # reads them.
    settings.MEDIA_ROOT = portal.stack.env["ADRAG_MEDIA_ROOT"]
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    kb = kb_create(owner=alice, name="Papers")
    documents_ingest_inline(
        kb=kb,
        items=[TextItem(name, (FILES / name).read_bytes()) for name in ("sample.pdf", "sample.md")],
    )
    pdf = Document.objects.get(knowledge_base=kb, file_name="sample.pdf")
    cited = Chunk.objects.filter(document=pdf, page=2).order_by("ordinal").first()
    page = new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    portal.sign_in(page, "alice", f"/documents/{pdf.id}/?chunk={cited.id}")
    page.wait_for_selector("#document-view[data-shown-page='2']", timeout=30_000)
    assert int(page.get_attribute("#document-view", "data-marked")) >= 2
    marked = " ".join(page.locator("#pdf-page .passage-mark").all_inner_texts())
    assert "Grace Hopper wrote the first compiler" in marked
    assert "Marie Curie" not in marked  # page 1's text is not on this page
    assert page.locator("#pdf-page canvas").count() == 1
    assert "Grace Hopper" in page.inner_text("#cited-text")
    assert errors == []  # pdf.js ran under the CSP: no refused eval, worker or style
    screenshot(page, "document-pdf")
    page.click("#pdf-prev")
    page.wait_for_selector("#document-view[data-shown-page='1']")
    assert page.get_attribute("#document-view", "data-marked") == "0"

    markdown = Document.objects.get(knowledge_base=kb, file_name="sample.md")
    chunk = Chunk.objects.filter(document=markdown).order_by("-ordinal").first()
    page.goto(f"{portal.url}/documents/{markdown.id}/?chunk={chunk.id}")
    page.wait_for_selector("#document-view[data-marked='1']")
    mark = page.locator(".passage.passage-mark")
    assert mark.count() == 1 and mark.get_attribute("data-chunk-id") == str(chunk.id)
    assert page.locator(".passage").count() == Chunk.objects.filter(document=markdown).count()

    # A citation from before the document was indexed again: its passage is gone, and the
    # viewer says so and opens at the cited page.
    page.goto(f"{portal.url}/documents/{pdf.id}/?chunk=999999&page=2")
    page.wait_for_selector("#document-view[data-shown-page='2']", timeout=30_000)
    assert "no longer in this document" in page.inner_text("#cited-text")
    assert errors == []

    # Someone else's document is not theirs to open.
    django_user_model.objects.create_user("bob", "bob@example.com", "bob-pass-123")
    other = new_page()
    portal.sign_in(other, "bob")
    response = other.goto(f"{portal.url}/documents/{pdf.id}/?chunk={cited.id}")
    assert response.status == 404


def test_a_cited_scan_opens_as_its_image_with_the_passage_lines_marked(
    portal, new_page, django_user_model, settings
):
    settings.MEDIA_ROOT = portal.stack.env["ADRAG_MEDIA_ROOT"]
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    kb = kb_create(owner=alice, name="Scans")
    documents_ingest_inline(
        kb=kb,
        items=[
            TextItem(name, (FILES / name).read_bytes()) for name in ("sample.png", "scanned.pdf")
        ],
    )
    image = Document.objects.get(knowledge_base=kb, file_name="sample.png")
    cited = Chunk.objects.filter(document=image).order_by("ordinal").first()
    page = new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))

    # An image: the scan itself, the cited passage's lines marked over it, its text below.
    portal.sign_in(page, "alice", f"/documents/{image.id}/?chunk={cited.id}")
    page.wait_for_selector("#document-view[data-scan-marked]")
    assert int(page.get_attribute("#document-view", "data-scan-marked")) >= 1
    assert page.is_visible("#scan-pane img.scan-image")
    marks = page.locator("#scan-page .scan-mark")
    assert all(mark in cited.text for mark in marks.evaluate_all("m => m.map(x => x.title)"))
    assert page.locator(".passage.passage-mark").count() == 1
    screenshot(page, "document-scan")

    # A scanned PDF page (no text layer): its OCR lines are marked over the drawn page.
    pdf = Document.objects.get(knowledge_base=kb, file_name="scanned.pdf")
    scanned = Chunk.objects.filter(document=pdf, page=2).order_by("ordinal").first()
    page.goto(f"{portal.url}/documents/{pdf.id}/?chunk={scanned.id}")
    page.wait_for_selector("#document-view[data-shown-page='2']", timeout=30_000)
    assert int(page.get_attribute("#document-view", "data-scan-marked")) >= 1
    assert page.locator("#pdf-page .scan-mark").count() >= 1
    assert errors == []
