"""Extraction of every supported file type and rejection of bad input."""

from __future__ import annotations

import codecs
import io
import warnings
import zipfile
from pathlib import Path

import pytest

from knowledge.ingest.extract import ExtractionError, extract
from knowledge.ingest.filetypes import SUPPORTED_EXTENSIONS
from knowledge.ingest.ocr import OcrOptions

FILES = Path(__file__).resolve().parents[1] / "fixtures" / "files"

# A phrase from each sample file that must survive extraction intact.
EXPECTED_PHRASES: dict[str, str] = {
    "pdf": "Marie Curie discovered polonium and radium in Paris with Pierre Curie.",
    "docx": "Marie Curie and Pierre Curie studied radioactivity in Paris.",
    "xlsx": "Name: Dorothy Hodgkin · Field: Chemistry · Institution: University of Oxford · "
    "Nobel year: 1964 · Born: 1910-05-12",
    "pptx": "Mention that the laboratory notebooks are still radioactive today.",
    # Images are read by OCR (a multi-page TIFF page by page).
    "png": "Marie Curie measured radium chloride in her Paris laboratory.",
    "jpg": "Pierre Curie checked each reading with the quartz electrometer.",
    "jpeg": "The samples were weighed every morning at eight o'clock.",
    "tif": "2. Hotel rooms are reimbursed up to 140 euros per night in Lisbon.",
    "tiff": "Readers sign a waiver before they open the lead-lined box.",
    "md": "- Marie Curie studied radioactivity in Paris.",
    "markdown": "3. Combine both rankings with the rerankScore before calling the LLM.",
    "html": "Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.",
    "htm": "Researchers at CERN in Geneva record collisions in the ATLAS and CMS detectors.",
    "csv": (
        "name: Marie Curie · field: Physics and Chemistry · "
        "institution: University of Paris · year: 1903"
    ),
    "txt": "Marie Curie was the first person to win two Nobel Prizes",
    "py": "def bm25_score(term_freq: int",
    "js": "const rerankScore = passage.score.toFixed(3);",
    "ts": "export interface Citation {",
    "jsx": "for example Marie Curie at the University of Paris",
    "tsx": "export function AnswerCard({ text, citations }: AnswerProps) {",
    "java": "public final class ScoredPassage {",
    "c": "double bm25_idf(int n_docs, int doc_freq) {",
    "cpp": "fused[ranking[rank]] += 1.0 / (60.0 + rank + 1);",
    "h": "#ifndef ADRAG_TOKENIZER_H",
    "hpp": "class ChatClient {",
    "cs": "public sealed class PassageScorer",
    "go": "func Paragraphs(text string) []string {",
    "rs": "pub fn cosine(a: &[f32], b: &[f32]) -> f32 {",
    "rb": "class ScientistImporter",
    "php": "function render_answer(array $answer): string",
    "swift": "struct Citation: Codable {",
    "kt": "data class Citation(val documentTitle: String",
    "scala": "object EntityCounter {",
    "sh": 'python manage.py reindex --knowledge-base "$kb"',
    "sql": "WHERE d.title ILIKE '%curie%'",
    "r": "summary_by_method <- aggregate(recall ~ method",
    "json": '"knowledgeBase": "CERN Research Library"',
    "yaml": "name: Marie Curie archive",
    "yml": "Check out the Marie Curie sample documents",
    "xml": "<author>Marie Curie</author>",
    "css": 'font-family: "Marie Curie Sans", system-ui, sans-serif;',
    "toml": 'names = ["Grace Hopper", "Ada Lovelace", "Tim Berners-Lee"]',
}


def _extract_fixture(name: str):
    return extract((FILES / name).read_bytes(), name, ocr=OcrOptions())


def test_there_is_a_sample_file_for_each_of_the_42_supported_extensions() -> None:
    samples = {path.suffix.lstrip(".") for path in FILES.glob("sample.*")}
    assert len(SUPPORTED_EXTENSIONS) == 42
    assert samples == set(SUPPORTED_EXTENSIONS) == set(EXPECTED_PHRASES)


# An image is read by tesseract: slow (`make test-fast` leaves it out).
IMAGES = {"jpeg", "jpg", "png", "tif", "tiff"}


@pytest.mark.parametrize(
    "extension",
    [
        pytest.param(extension, marks=[pytest.mark.slow] if extension in IMAGES else [])
        for extension in sorted(EXPECTED_PHRASES)
    ],
)
def test_every_sample_file_extracts_its_text(extension: str) -> None:
    result = _extract_fixture(f"sample.{extension}")

    assert len(result.text.strip()) >= 250
    assert EXPECTED_PHRASES[extension] in result.text


@pytest.mark.parametrize("extension", ["txt", "md", "html", "csv", "py", "json"])
def test_text_based_files_report_their_encoding(extension: str) -> None:
    assert _extract_fixture(f"sample.{extension}").encoding == "utf-8"


def test_pdf_has_one_segment_per_page_numbered_from_one() -> None:
    result = _extract_fixture("sample.pdf")

    assert [segment.page for segment in result.segments] == [1, 2]
    assert "Marie Curie discovered polonium" in result.segments[0].text
    assert "Grace Hopper" not in result.segments[0].text
    assert "Grace Hopper wrote the first compiler" in result.segments[1].text


def test_docx_keeps_paragraphs_and_table_cells_in_document_order() -> None:
    segments = _extract_fixture("sample.docx").segments

    kinds = [segment.kind for segment in segments]
    assert kinds == ["prose", "table", "prose"]
    assert "Each paragraph and each table cell" in segments[0].text
    # The heading is the section of what follows it, never a sentence of its own.
    assert all(s.section == ("Retrieval Augmented Generation at CERN",) for s in segments)
    assert "Retrieval Augmented Generation at CERN" not in "".join(s.text for s in segments)
    table = segments[1]
    assert table.headers == ("Scientist", "Institution")
    assert table.rows == (("Tim Berners-Lee", "CERN"), ("Grace Hopper", "Yale"))
    assert (
        table.text
        == "Scientist: Tim Berners-Lee · Institution: CERN\nScientist: Grace Hopper · Institution: Yale"
    )
    assert segments[2].text.startswith("Closing paragraph")


def test_html_gives_visible_text_only_with_blocks_on_their_own_lines() -> None:
    result = _extract_fixture("sample.html")
    text = result.text

    assert "<" not in text and ">" not in text
    assert "console.log" not in text  # script
    assert "font-family" not in text  # style
    assert "Enable JavaScript" not in text  # noscript
    # The title, entity decoded, heads every section; it is no sentence of the text.
    assert all(s.section[0] == "Famous Scientists & CERN" for s in result.segments)
    assert "invented at CERN by Tim Berners-Lee — a café discussion" in text
    assert "- Albert Einstein: relativity\n- Niels Bohr: atomic model" in text
    table = next(s for s in result.segments if s.kind == "table")
    assert table.headers == ("System", "Score") and table.rows == (("BM25", "0.42"),)
    assert table.text == "System: BM25 · Score: 0.42"


def test_markdown_headings_become_section_paths_and_lists_keep_their_numbers() -> None:
    segments = _extract_fixture("sample.md").segments

    assert [(s.kind, s.section) for s in segments] == [
        ("prose", ("Retrieval Augmented Generation",)),
        ("list", ("Retrieval Augmented Generation", "History")),
        ("list", ("Retrieval Augmented Generation", "Pipeline")),
        ("prose", ("Retrieval Augmented Generation", "Pipeline")),
    ]
    assert not any("#" in s.text or "Pipeline" in s.text.split("\n")[0] for s in segments)
    assert segments[1].text.startswith("- Marie Curie studied radioactivity in Paris.")
    assert segments[2].text == (
        "1. Split each document into chunks of about 500 characters.\n"
        "2. Score chunks with BM25 and cosine similarity.\n"
        "3. Combine both rankings with the rerankScore before calling the LLM."
    )


def test_markdown_tables_become_rows_with_their_headers() -> None:
    source = (
        "# Contacts\n\n## Who to ask\n\n| Topic | Contact | Email |\n|---|---|---|\n"
        "| Payroll | Gemma Whitlock | payroll@example.com |\n| IT | Rui Carvalho | |\n\n"
        "3. Third\n4. Fourth\n"
    )

    segments = extract(source.encode(), "contacts.md").segments

    table = segments[0]
    assert table.kind == "table" and table.section == ("Contacts", "Who to ask")
    assert table.headers == ("Topic", "Contact", "Email")
    assert table.text == (
        "Topic: Payroll · Contact: Gemma Whitlock · Email: payroll@example.com\n"
        "Topic: IT · Contact: Rui Carvalho"
    )
    assert "|" not in table.text
    # An ordered list that starts at 3 keeps its numbers.
    assert segments[1].text == "3. Third\n4. Fourth"


def test_plain_text_notes_keep_their_headings_and_numbered_topics_as_sections() -> None:
    notes = (
        "------\nTue 14 January 2025 - leadership weekly\nLisbon, room Alfama\n------\n\n"
        "1. Office move\n\nDecision: go with Maashaven. Move planned for April.\n\n"
        "Actions\n- Tobias: confirm the budget by 24 Jan\n"
    )

    segments = extract(notes.encode(), "notes.txt").segments

    assert [(s.kind, s.section, s.text.split("\n")[0]) for s in segments] == [
        ("prose", ("Tue 14 January 2025 - leadership weekly",), "Lisbon, room Alfama"),
        (
            "prose",
            ("Tue 14 January 2025 - leadership weekly", "Office move"),
            "Decision: go with Maashaven. Move planned for April.",
        ),
        (
            "list",
            ("Tue 14 January 2025 - leadership weekly", "Actions"),
            "- Tobias: confirm the budget by 24 Jan",
        ),
    ]


def test_lines_of_labelled_amounts_under_a_lead_in_become_a_table() -> None:
    policy = (
        "Hotels\nBook a hotel at or below the nightly cap for the city.\n"
        "The nightly caps are:\n   Lisbon EUR 140 - Porto EUR 120 - Munich EUR 180\n"
        "   Austin USD 210 - Toronto CAD 250\nFor any other city, ask the travel desk.\n"
    )

    segments = extract(policy.encode(), "travel.txt").segments

    table = next(s for s in segments if s.kind == "table")
    assert table.headers == ("", "nightly cap") and table.caption == "The nightly caps are"
    assert table.rows[2] == ("Munich", "EUR 180") and len(table.rows) == 5
    assert "Munich · nightly cap: EUR 180" in table.text.split("\n")
    # Two amounts are a sentence's business, not a table.
    short = "Hotels\nThe caps are:\n   Lisbon EUR 140 - Porto EUR 120\nAsk the desk.\n"
    assert all(s.kind != "table" for s in extract(short.encode(), "t.txt").segments)


@pytest.mark.parametrize("name", ["malicious.html", "malicious.md"])
def test_scripts_handlers_and_javascript_links_are_removed(name: str) -> None:
    result = _extract_fixture(name)
    text = result.text

    assert "__xss" not in text
    assert "javascript:" not in text.lower()
    assert "<" not in text
    assert "Quarterly Report" in result.segments[0].section
    assert "Revenue grew at CERN partner sites" in text
    assert "click for the full report." in text


def test_markdown_keeps_html_inside_code_as_literal_text() -> None:
    source = "Intro\n\n```html\n<p>kept</p>\n```\n\nUse the `<br>` tag. <b>bold</b> word\n"

    text = extract(source.encode(), "notes.md").text

    assert "```html\n<p>kept</p>\n```" in text
    assert "Use the `<br>` tag. bold word" in text


def test_markdown_keeps_safe_links_and_autolinks() -> None:
    source = "See [CERN](https://home.cern) or <https://example.org/a?b=1>.\n"

    text = extract(source.encode(), "links.md").text

    assert text == "See [CERN](https://home.cern) or https://example.org/a?b=1."


def test_csv_sniffs_a_semicolon_delimiter_and_skips_empty_cells() -> None:
    data = b"name;city;note\nMarie Curie;Paris;\nNiels Bohr;Copenhagen;atomic model\n"

    segments = extract(data, "people.csv").segments

    assert len(segments) == 1 and segments[0].kind == "table"
    assert segments[0].caption == "people" and segments[0].headers == ("name", "city", "note")
    assert segments[0].text == (
        "name: Marie Curie · city: Paris\nname: Niels Bohr · city: Copenhagen · note: atomic model"
    )


def test_csv_headers_written_as_identifiers_read_as_words() -> None:
    data = b"office,head_count,officeManager\nLisbon,212,Catarina Mendes\n"

    segment = extract(data, "offices.csv").segments[0]

    assert segment.headers == ("office", "head count", "office manager")
    assert segment.text == "office: Lisbon · head count: 212 · office manager: Catarina Mendes"


def test_cp1252_text_is_decoded_and_reported() -> None:
    result = _extract_fixture("latin1.txt")

    assert result.encoding == "cp1252"
    assert "un café près de la Sorbonne" in result.text
    assert "Une question naïve" in result.text
    assert "crème brûlée" in result.text


def test_short_latin1_phrase_is_decoded_correctly() -> None:
    assert extract("café naïve".encode("latin-1"), "note.txt").text == "café naïve"


def test_utf8_bom_is_stripped_and_crlf_normalised() -> None:
    result = extract(codecs.BOM_UTF8 + b"Marie Curie\r\nCERN\r\n", "notes.txt")

    assert result.text == "Marie Curie\nCERN"
    assert result.encoding == "utf-8"


def test_utf16_with_bom_is_text_not_binary() -> None:
    result = extract("Grace Hopper, UNIVAC".encode("utf-16"), "notes.txt")

    assert result.text == "Grace Hopper, UNIVAC"


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("not_a_pdf.pdf", "content_mismatch"),
        ("corrupt.pdf", "corrupt_file"),
        ("encrypted.pdf", "encrypted_pdf"),
        ("empty_text.pdf", "no_text"),
        ("not_a_docx.docx", "content_mismatch"),
        ("corrupt.docx", "corrupt_file"),
        ("binary.txt", "content_mismatch"),
        ("blank.html", "no_text"),
    ],
)
def test_bad_input_is_rejected_with_a_stable_code(name: str, code: str) -> None:
    with pytest.raises(ExtractionError) as caught:
        _extract_fixture(name)

    assert caught.value.code == code
    assert caught.value.message


def test_pdf_encrypted_only_with_an_owner_password_is_read() -> None:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(FILES / "sample.pdf"))
    writer.encrypt(user_password="", owner_password="owner-only", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)

    result = extract(buffer.getvalue(), "restricted.pdf")

    assert "Marie Curie discovered polonium" in result.segments[0].text


def test_a_zip_that_is_not_a_word_document_is_a_mismatch() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")

    with pytest.raises(ExtractionError) as caught:
        extract(buffer.getvalue(), "sheet.docx")

    assert caught.value.code == "content_mismatch"


@pytest.mark.parametrize("name", ["photo.exe", "README", "archive.tar.gz"])
def test_unsupported_extension_is_rejected(name: str) -> None:
    with pytest.raises(ExtractionError) as caught:
        extract(b"anything", name)

    assert caught.value.code == "unsupported_type"


@pytest.mark.parametrize("content", ["", "   \n\t\n", "<p>  </p>"])
def test_whitespace_only_text_has_no_text(content: str) -> None:
    with pytest.raises(ExtractionError) as caught:
        extract(content.encode(), "empty.html")

    assert caught.value.code == "no_text"


# --- zip bombs ---------------------------------------------------------------------


def _write_docx_with_document_of(path: Path, megabytes: int) -> bytes:
    """Write a DOCX-shaped zip whose document.xml inflates to the given size."""
    block = b"<w:p><w:r><w:t>bomb</w:t></w:r></w:p>" * (1024 * 1024 // 38)
    block += b" " * (1024 * 1024 - len(block))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            for _ in range(megabytes):
                member.write(block)
    return path.read_bytes()


@pytest.fixture
def no_inflating(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any attempt to read a zip member fail the test; writing still works."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a zip member was opened for reading")

    # Every read path (ZipFile.read, ZipFile.open "r") builds a ZipExtFile.
    monkeypatch.setattr(zipfile.ZipExtFile, "__init__", refuse)


def test_docx_expanding_past_the_size_limit_is_a_zip_bomb(
    tmp_path: Path, no_inflating: None
) -> None:
    data = _write_docx_with_document_of(tmp_path / "bomb.docx", megabytes=300)
    assert len(data) < 5 * 1024 * 1024

    with pytest.raises(ExtractionError) as caught:
        extract(data, "bomb.docx")

    assert caught.value.code == "zip_bomb"


def test_docx_member_compressed_over_100_to_1_is_a_zip_bomb(
    tmp_path: Path, no_inflating: None
) -> None:
    data = _write_docx_with_document_of(tmp_path / "dense.docx", megabytes=8)

    with pytest.raises(ExtractionError) as caught:
        extract(data, "dense.docx")

    assert caught.value.code == "zip_bomb"
    assert "ratio" in caught.value.message


def test_size_limit_is_a_parameter(no_inflating: None) -> None:
    data = (FILES / "sample.docx").read_bytes()

    with pytest.raises(ExtractionError) as caught:
        extract(data, "sample.docx", max_uncompressed_bytes=1000)

    assert caught.value.code == "zip_bomb"


@pytest.mark.parametrize("name", ["link.md", "link.html"])
def test_short_tagless_markup_extracts_without_warnings(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = extract(b"https://home.cern &amp; CERN", name).text

    assert text == "https://home.cern & CERN"


def test_html_preformatted_text_keeps_its_layout() -> None:
    markup = b"<p>Example:</p><pre>def score():\n    return 1</pre><p>Done   now.</p>"

    assert (
        extract(markup, "code.html").text == "Example:\n\ndef score():\n    return 1\n\nDone now."
    )


def test_blank_pdf_pages_keep_their_place() -> None:
    result = _extract_fixture("blank_middle_page.pdf")

    assert [segment.page for segment in result.segments] == [1, 2, 3]
    assert result.segments[1].text.strip() == ""
    assert "CERN in Geneva." in result.segments[2].text


@pytest.mark.parametrize(
    ("source", "name", "segments"),
    [
        # Two lists one after the other keep their own numbers.
        (
            b"<ol><li>a</li><li>b</li></ol><ol><li>c</li><li>d</li></ol>",
            "lists.html",
            [("list", "1. a\n2. b"), ("list", "1. c\n2. d")],
        ),
        # Text straight inside a list, or an item wrapped in a <div>, is not lost.
        (
            b"<ul>Intro<li>kept</li><div><li>wrapped</li></div></ul>",
            "loose.html",
            [("list", "- Intro\n- kept\n- wrapped")],
        ),
        # Code inside a step belongs to the step: the list goes on after it.
        (
            b"1. Build:\n\n   ```\n   make\n   ```\n2. Ship it.\n",
            "steps.md",
            [("list", "1. Build: ``` make ```\n2. Ship it.")],
        ),
        # A table of a header row only is a line of words.
        (b"| office | head count |\n|---|---|\n", "empty.md", [("prose", "office · head count")]),
        # A refused link keeps its label only, emphasis or parentheses in it or not.
        (
            b"[a *b*](javascript:alert(1)) and [x](javascript:alert(1)) end",
            "l.md",
            [("prose", "a b and x end")],
        ),
    ],
)
def test_odd_structure_extracts_whole(source: bytes, name: str, segments) -> None:
    assert [(s.kind, s.text) for s in extract(source, name).segments] == segments


def test_an_icon_title_never_heads_the_page() -> None:
    page = b"<html><head><title>Real</title></head><body><svg><title>Icon</title></svg><p>Text.</p>"

    assert extract(page, "page.html").segments[0].section == ("Real",)


def test_word_numbering_goes_on_after_a_note() -> None:
    import docx

    document = docx.Document()
    document.add_paragraph("Open the console.", style="List Number")
    document.add_paragraph("Pick the release.", style="List Number")
    document.add_paragraph("Note: this takes a minute.")
    document.add_paragraph("Click roll back.", style="List Number")
    buffer = io.BytesIO()
    document.save(buffer)

    text = extract(buffer.getvalue(), "rollback.docx").text

    assert "1. Open the console.\n2. Pick the release." in text
    assert "3. Click roll back." in text


def test_a_workbook_is_a_section_per_sheet_and_a_record_per_row() -> None:
    result = _extract_fixture("sample.xlsx")
    sheets = {tuple(segment.section) for segment in result.segments}
    assert sheets == {("Scientists",), ("Lab budgets",)}
    budgets = next(s for s in result.segments if tuple(s.section) == ("Lab budgets",))
    assert budgets.kind == "table"
    assert "Lab: Radium Institute · Budget 2026 (EUR): 1250000 · Head: Irène Joliot-Curie" in (
        budgets.text
    )


def test_a_presentation_is_a_section_per_slide_with_its_number_as_the_page() -> None:
    result = _extract_fixture("sample.pptx")
    by_page = {}
    for segment in result.segments:
        by_page.setdefault(segment.page, set()).add(tuple(segment.section))
    assert by_page == {
        1: {
            ("Radioactivity research at the University of Paris",),
            ("Radioactivity research at the University of Paris", "Speaker notes"),
        },
        2: {("Who leads each programme",)},
    }
    text = result.text
    assert "- The measurements used the electrometer built by Pierre Curie." in text
    assert "Programme: Piezoelectricity · Lead: Jacques Curie" in text


@pytest.mark.parametrize("name", ["sample.xlsx", "sample.pptx"])
def test_a_cut_off_workbook_or_presentation_is_corrupt_and_a_docx_renamed_is_a_mismatch(
    name,
) -> None:
    data = (FILES / name).read_bytes()
    with pytest.raises(ExtractionError) as cut:
        extract(data[: len(data) // 3], name)
    assert cut.value.code == "corrupt_file"
    with pytest.raises(ExtractionError) as renamed:
        extract((FILES / "sample.docx").read_bytes(), name)
    assert renamed.value.code == "content_mismatch"


def test_speaker_notes_are_a_section_of_their_slide_not_a_label_in_the_text() -> None:
    segments = _extract_fixture("sample.pptx").segments
    notes = [s for s in segments if "still radioactive today" in s.text]
    assert len(notes) == 1 and notes[0].section[-1] == "Speaker notes"
    assert len(notes[0].section) == 2  # under the slide's title
    assert "Speaker notes:" not in "".join(s.text for s in segments)


def test_a_pdf_passage_is_under_the_heading_its_font_sets_apart() -> None:
    from knowledge.ingest.extract import extract
    from tests.fixtures.make_files import build_pdf

    # As a word processor writes it: no blank lines, headings set larger and bold, one after a
    # list item and one after a line that ends without a full stop.
    data = build_pdf(
        [
            [
                ("Harbour Operations Handbook", 20),
                "This handbook is for every crew member of the harbour team.",
                ("Mooring", 14),
                "Check every line twice before the vessel is made fast:",
                "- bow and stern lines",
                "- spring lines",
                ("Fuel and bunkering", 14),
                "Bunkering is allowed between 06:00 and 22:00 at berth 4",
                ("Radio procedures", 14),
                "Call the harbour master on channel 12 before entering the basin.",
            ]
        ]
    )
    segments = extract(data, "handbook.pdf").segments
    section_of = {s.text.split("\n")[0][:20]: s.section for s in segments if s.text}
    assert section_of["Check every line twi"][-1] == "Mooring"
    assert section_of["Bunkering is allowed"][-1] == "Fuel and bunkering"
    assert section_of["Call the harbour mas"][-1] == "Radio procedures"
    assert not any("Mooring" in s.text or "Radio procedures" in s.text for s in segments)


@pytest.mark.parametrize(
    "title",
    ["Harbour Fuel - Deliveries, first quarter 2026", "Harbour Fuel - Deliveries 2026 (EUR)"],
)
def test_a_pdf_title_set_apart_by_a_gap_heads_the_table_under_it(title: str) -> None:
    from knowledge.ingest.extract import extract
    from tests.fixtures.make_files import build_pdf

    # One font throughout; only the empty lines set the title apart. pypdf's plain text keeps
    # no blank line, and the title ran into the sentence under it (a comma in it, or a
    # bracketed unit at its end, made it no heading): the table lost its caption.
    lines = [
        title,
        "",
        "Every delivery to the berths, with its amount.",
        "",
        "Berth      Supplier       Amount",
        "North      Atlantic Oil   36000",
        "South      Baltic Fuel    24000",
        "East       Atlantic Oil   18000",
    ]
    segments = extract(build_pdf([lines]), "deliveries.pdf").segments
    table = next(s for s in segments if s.kind == "table")
    prose = next(s for s in segments if s.kind == "prose")

    assert table.section == (title,)
    assert prose.text == "Every delivery to the berths, with its amount."


def test_a_double_spaced_pdf_keeps_its_sentences_whole_and_a_footer_is_no_heading() -> None:
    from knowledge.ingest.extract import extract
    from tests.fixtures.make_files import build_pdf

    # Every line a blank line apart: no step is larger than the page's usual one.
    said = [
        "Boats longer than twelve metres must book a berth in advance and",
        "pay the deposit on arrival at the",
        "Harbour Office",
        "before they tie up at the north pontoon.",
        "Fuel is sold at the south pontoon between eight and six.",
    ]
    spaced = [line for text in said for line in (text, "")][:-1]
    # A footer below a gap, on two pages.
    pages = [[*spaced, "", "", "Page 1"], ["Showers cost two euros.", "", "", "Page 2"]]
    segments = extract(build_pdf(pages), "rules.pdf").segments

    assert all(segment.section == () for segment in segments)
    assert "Harbour Office\nbefore they tie up" in segments[0].text


def test_a_sentence_ending_in_brackets_is_no_heading() -> None:
    from knowledge.ingest.plain import plain_structure

    segments = plain_structure([("Ask the harbour office (room 4).\n\nIt opens at eight.", None)])

    assert all(segment.section == () for segment in segments)


def test_csv_with_quotes_escaped_by_a_backslash_keeps_its_cells_whole() -> None:
    # As MySQL's SELECT ... INTO OUTFILE and some PHP exports write quotes: \" not "".
    data = (
        b'"No.","Title","Directed by"\n'
        b'"1","\\"Hair Today, Goon Tomorrow\\"","Jeff McCracken"\n'
        b'"2","Easy Street","Jeff McCracken"\n'
    )

    segment = extract(data, "episodes.csv").segments[0]

    assert segment.headers == ("No.", "Title", "Directed by")
    assert segment.text.splitlines()[0] == (
        'No.: 1 · Title: "Hair Today, Goon Tomorrow" · Directed by: Jeff McCracken'
    )


def test_csv_with_a_trailing_backslash_in_a_standard_cell_is_read_the_standard_way() -> None:
    data = b'folder,files\n"C:\\temp\\",2\n"D:\\data",3\n'  # "C:\temp\" ends with a backslash

    segment = extract(data, "folders.csv").segments[0]

    assert segment.text.splitlines() == [
        "folder: C:\\temp\\ · files: 2",
        "folder: D:\\data · files: 3",
    ]
