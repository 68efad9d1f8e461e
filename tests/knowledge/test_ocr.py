"""OCR of scans and images: a scanned PDF page answers a question, and what cannot be read says so.

The engine is real (RapidOCR with the models its wheel carries); each read costs seconds, so
the tests share what they can.
"""

from __future__ import annotations

import io
import struct
import zlib
from functools import cache

import pytest

from knowledge.ingest.extract import OCR_DISABLED, ExtractionError, extract
from knowledge.ingest.ocr import OVER_BUDGET, Box, OcrOptions, layout_text
from knowledge.ingest.plain import plain_structure
from knowledge.ingest.sandbox import extract_sandboxed
from knowledge.models import Chunk, Document
from queries.answering.registry import get_strategy
from queries.pipeline.events import ListSink
from queries.pipeline.runner import run_pipeline
from tests.knowledge.conftest import FILES, run_ingestion
from tests.queries.pipeline.contract import check_frames

HOTEL_RULE = "2. Hotel rooms are reimbursed up to 140 euros per night in Lisbon."


@cache
def _scanned_pdf():
    return extract((FILES / "scanned.pdf").read_bytes(), "scanned.pdf", ocr=OcrOptions())


@pytest.mark.slow  # tesseract reads a page
def test_a_page_without_a_text_layer_is_read_by_ocr_and_keeps_its_structure():
    result = _scanned_pdf()
    assert result.ocr_pages == [2] and result.unreadable_pages == []
    typed = [s for s in result.segments if s.page == 1]
    scanned = [s for s in result.segments if s.page == 2]
    # The typed page comes from its text layer, untouched.
    assert "Marie Curie discovered polonium and radium" in typed[0].text
    # The scan's title is the section of its list, as a typed heading would be.
    assert [s.kind for s in scanned] == ["list"]
    assert scanned[0].section == ("Travel expenses policy",)
    assert HOTEL_RULE in scanned[0].text
    assert "4. Taxis need a receipt; trains are booked in second class." in scanned[0].text


def test_without_ocr_the_scanned_page_is_blank_and_an_image_is_refused():
    result = extract((FILES / "scanned.pdf").read_bytes(), "scanned.pdf")
    assert result.ocr_pages == [] and "Hotel" not in result.text
    with pytest.raises(ExtractionError) as raised:
        extract((FILES / "sample.png").read_bytes(), "sample.png")
    assert raised.value.code == OCR_DISABLED


# The page's alarm may go off inside a garbage-collection callback (hypothesis, loaded in the test
# process only, installs one), where Python reports and drops the exception: the alarm comes
# again every half second (knowledge/ingest/ocr.py), which is what this test shows holds.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_page_over_its_budget_is_reported_and_the_other_pages_are_kept():
    result = extract(
        (FILES / "scanned.pdf").read_bytes(), "scanned.pdf", ocr=OcrOptions(page_seconds=0.001)
    )
    assert result.ocr_pages == []
    assert result.unreadable_pages == [
        {"page": 2, "reason": OVER_BUDGET, "message": "reading it took longer than 0.001 s"}
    ]
    assert "Marie Curie discovered polonium" in result.text


@pytest.mark.slow  # tesseract reads a page
def test_a_page_whose_budget_runs_out_inside_the_engine_is_reported_not_crashed():
    # 0.3 s: the engine is loaded outside the budget, so the alarm goes off inside its model
    # calls, which wrap the errors raised there in their own.
    with pytest.raises(ExtractionError) as raised:
        extract((FILES / "sample.png").read_bytes(), "sample.png", ocr=OcrOptions(page_seconds=0.3))
    assert raised.value.code == "no_text"
    assert "page 1: reading it took longer than 0.3 s" in raised.value.message


def test_an_indented_paragraph_of_plain_text_is_no_table():
    text = "\tThe first line of an indented paragraph\n\tand the line that continues it."
    segments = plain_structure([(text, None)])
    assert [s.kind for s in segments] == ["prose"]


def test_two_columns_of_prose_side_by_side_are_no_table():
    # Each line holds a line of the left column and one of the right, far apart.
    boxes = [
        box
        for top in (0, 40, 80, 120)
        for box in (
            Box(top, top + 30, 100, 700, f"left column words on line {top}"),
            Box(top, top + 30, 800, 1400, f"right column words on line {top}"),
        )
    ]
    assert "\t" not in layout_text(boxes)


def test_ocr_boxes_become_lines_left_to_right_and_paragraphs_at_wide_gaps():
    # (top, bottom, left, right, text): two boxes of one line (the right one a little
    # higher), a line under it, then a wide gap.
    boxes = [
        Box(100, 130, 400, 560, "reimbursed."),
        Box(10, 40, 300, 390, "Lisbon"),
        Box(12, 42, 20, 150, "Hotel in"),
        Box(50, 80, 20, 260, "Up to 140 euros."),
        Box(150 + 200, 180 + 200, 20, 250, "Meals: 45 euros."),
        Box(98, 128, 20, 150, "Taxis are"),
    ]
    assert layout_text(boxes) == (
        "Hotel in Lisbon\nUp to 140 euros.\nTaxis are reimbursed.\n\nMeals: 45 euros."
    )
    assert layout_text([]) == ""


def test_aligned_columns_on_a_scan_become_a_table_with_its_header_row():
    def row(top, *cells):
        # Cells at columns starting 100, 400 and 700, the numbers right-aligned; the engine
        # read the last two cells of each row as one line, its words as their own boxes.
        lefts = (100, 400, 760 - 12 * len(cells[2]))
        first = Box(top, top + 30, 100, 100 + 12 * len(cells[0]), cells[0])
        words = tuple((left, left + 12 * len(text)) for left, text in zip(lefts[1:], cells[1:]))
        rest = Box(top, top + 30, words[0][0], words[1][1], f"{cells[1]} {cells[2]}", words)
        return [first, rest]

    boxes = [
        Box(0, 30, 100, 300, "Offices"),
        *row(60, "office", "country", "head_count"),
        *row(100, "Lisbon", "Portugal", "212"),
        *row(140, "Kraków", "Poland", "131"),
        # Prose: a word gap is narrower than a gutter, so these stay one line of words.
        Box(180, 210, 100, 1400, "Figures from the March census.", ((100, 190), (200, 1400))),
    ]
    assert layout_text(boxes) == (
        "Offices\n\noffice\tcountry\thead_count\nLisbon\tPortugal\t212\n"
        "Kraków\tPoland\t131\n\nFigures from the March census."
    )
    segments = plain_structure([(layout_text(boxes), 1)])
    table = next(s for s in segments if s.kind == "table")
    assert table.headers == ("office", "country", "head count")
    assert table.rows == (("Lisbon", "Portugal", "212"), ("Kraków", "Poland", "131"))
    assert "office: Kraków · country: Poland · head count: 131" in table.text


@pytest.mark.slow  # tesseract reads a page
def test_the_sandbox_announces_each_page_it_reads(tmp_path):
    pages = []
    result = extract_sandboxed(
        FILES / "sample.tif",
        "sample.tif",
        timeout=60,
        memory_mb=1024,
        ocr=OcrOptions(),
        ocr_memory_mb=2048,
        on_ocr_page=lambda page, total: pages.append((page, total)),
    )
    assert pages == [(1, 2), (2, 2)]
    assert result.ocr_pages == [1, 2]
    assert HOTEL_RULE in result.text
    # Where each line was read comes back too, as fractions of its page.
    assert set(result.ocr_boxes) == {"1", "2"}
    boxes = [box for page in result.ocr_boxes.values() for box in page]
    assert all(
        0 <= left < right <= 1 and 0 <= top < bottom <= 1 for left, top, right, bottom, _ in boxes
    )
    assert any("140 euros per night" in box[4] for box in boxes)


@pytest.mark.slow  # tesseract reads a page
@pytest.mark.django_db(transaction=True)
def test_a_question_is_answered_from_a_scanned_page_with_its_page_cited(upload, auth_client, kb):
    document_id = upload("scanned.pdf").json()["documents"][0]["id"]
    run_ingestion(document_id)
    body = auth_client.get(f"/api/documents/{document_id}").json()
    assert body["status"] == "ready", body
    assert body["page_count"] == 2 and body["ocr_pages"] == [2]
    assert body["unreadable_pages"] == []
    assert Chunk.objects.filter(document_id=document_id, page=2, text__contains="140 euros")

    sink = ListSink()
    outcome = run_pipeline(
        query="How much is a hotel night in Lisbon reimbursed?",
        strategy=get_strategy("extractive"),
        kb_ids=[kb.id],
        sink=sink,
    )
    check_frames(sink.frames())
    assert "140 euros per night in Lisbon" in outcome.answer, outcome.answer
    cited = [s for s in outcome.sources if f"[{s['index']}]" in outcome.answer]
    assert cited and all(s["file_name"] == "scanned.pdf" and s["page"] == 2 for s in cited)
    # The viewer gets where OCR read the cited page's lines, to mark the passage on the scan.
    passages = auth_client.get(
        f"/api/documents/{document_id}/passages", {"around": cited[0]["chunk_id"]}
    ).json()
    assert passages["ocr_boxes"]["page"] == 2
    assert any("140 euros" in box[4] for box in passages["ocr_boxes"]["boxes"])
    assert auth_client.get(f"/api/documents/{document_id}/scan").status_code == 404  # a PDF
    # Each cites its passage by id, so the card can open the document there.
    assert all(
        Chunk.objects.get(id=s["chunk_id"]).document_id == s["document_id"] == document_id
        for s in cited
    )


def _png_header(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "data", "status", "code"),
    [
        ("notes.png", (FILES / "sample.jpg").read_bytes(), 422, "content_mismatch"),
        ("notes.jpg", b"just some text, not a picture at all", 422, "content_mismatch"),
        ("huge.png", _png_header(13000, 12000), 413, "image_too_large"),
        ("bomb.png", _png_header(15000, 15000), 413, "image_too_large"),
    ],
)
def test_an_image_that_is_not_what_it_claims_or_too_large_is_refused(
    upload, name, data, status, code
):
    response = upload((name, data))
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code
    assert not Document.objects.exists()


@pytest.mark.django_db
def test_a_tiff_with_more_pages_than_allowed_is_refused_at_upload(upload, settings):
    from PIL import Image

    settings.MAX_PDF_PAGES = 5
    frames = [Image.new("L", (40, 40), 255) for _ in range(6)]
    buffer = io.BytesIO()
    frames[0].save(buffer, format="TIFF", save_all=True, append_images=frames[1:])
    response = upload(("pages.tiff", buffer.getvalue()))
    assert response.status_code == 413 and response.json()["code"] == "too_many_pages"


@pytest.mark.django_db
def test_images_are_refused_when_ocr_is_switched_off(upload, settings):
    settings.OCR_ENABLED = False
    response = upload("sample.png")
    assert response.status_code == 400
    assert response.json()["code"] == OCR_DISABLED
    assert "switched off" in response.json()["error"]


@pytest.mark.slow  # tesseract reads a page
@pytest.mark.django_db(transaction=True)
def test_a_scanned_image_is_shown_as_itself_with_the_lines_of_a_passage_located(
    upload, auth_client
):
    document_id = upload("sample.png").json()["documents"][0]["id"]
    run_ingestion(document_id)
    chunk = Chunk.objects.filter(document_id=document_id).order_by("ordinal").first()
    body = auth_client.get(f"/api/documents/{document_id}/passages", {"around": chunk.id}).json()
    lines = [box[4] for box in body["ocr_boxes"]["boxes"]]
    assert lines and any(line in chunk.text for line in lines)
    scan = auth_client.get(f"/api/documents/{document_id}/scan")
    assert scan.status_code == 200 and scan["Content-Type"] == "image/png"
    assert b"".join(scan.streaming_content).startswith(b"\x89PNG")
    assert scan["Content-Security-Policy"].startswith("sandbox")
