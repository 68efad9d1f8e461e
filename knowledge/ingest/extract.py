"""Turn uploaded bytes into plain text segments, rejecting bad input with a code.

`extract` picks the reader for a file's kind: text, Markdown, HTML, CSV, PDF and images here,
Office files in `office.py`; what they return and raise is in `extracted.py`."""

from __future__ import annotations

import codecs
import csv
import io
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePath
from typing import BinaryIO

from knowledge.ingest.extracted import (
    CONTENT_MISMATCH,
    CORRUPT_FILE,
    ENCRYPTED_PDF,
    NO_TEXT,
    OCR_DISABLED,
    UNSUPPORTED_TYPE,
    ExtractedText,
    ExtractionError,
)
from knowledge.ingest.filetypes import (
    IMAGE_FORMATS,
    KIND_CSV,
    KIND_HTML,
    KIND_IMAGE,
    KIND_MARKDOWN,
    KIND_PDF,
    KIND_TEXT,
    OFFICE_KINDS,
    UnsupportedFileType,
    file_extension,
    file_kind,
)
from knowledge.ingest.gaps import drawn_lines, paragraph_gaps, running_heads
from knowledge.ingest.markup import html_structure, markdown_structure
from knowledge.ingest.ocr import (
    OVER_PAGE_LIMIT,
    OcrOptions,
    PageText,
    describe_problem,
    image_frames,
    page_has_images,
    read_pages,
    render_pdf_page,
)
from knowledge.ingest.office import extract_office
from knowledge.ingest.plain import plain_structure
from knowledge.ingest.structure import Segment, StructureBuilder, column_name

DEFAULT_MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024

# Acrobat accepts a header anywhere in the first 1024 bytes; real files rely on it.
_PDF_HEADER_WINDOW = 1024
# A PDF page whose text layer has fewer characters than this, and which draws an image, is
# read by OCR (a scan often carries a page number or a scanner's stamp as its only text).
OCR_BELOW_CHARS = 40


def extract(
    data: bytes,
    file_name: str,
    *,
    max_uncompressed_bytes: int = DEFAULT_MAX_UNCOMPRESSED_BYTES,
    ocr: OcrOptions | None = None,
) -> ExtractedText:
    """Return the text of an uploaded file, raising ExtractionError for bad input.

    With `ocr`, scanned PDF pages and images are read by OCR; without it, an image is
    refused and a scanned page is blank.
    """
    try:
        kind = file_kind(file_name)
    except UnsupportedFileType as exc:
        raise ExtractionError(UNSUPPORTED_TYPE, str(exc)) from exc

    if kind == KIND_PDF:
        result = _extract_pdf(data, ocr)
    elif kind == KIND_IMAGE:
        result = _extract_image(data, file_name, ocr)
    elif kind in OFFICE_KINDS:
        result = extract_office(
            data,
            kind,
            caption=PurePath(file_name).stem,
            max_uncompressed_bytes=max_uncompressed_bytes,
        )
    else:
        text, encoding = decode_text(data)
        if kind == KIND_HTML:
            segments = html_structure(text)
        elif kind == KIND_MARKDOWN:
            segments = markdown_structure(text)
        elif kind == KIND_CSV:
            segments = csv_structure(text, caption=PurePath(file_name).stem)
        elif kind == KIND_TEXT:
            segments = plain_structure([(text, None)])
        else:
            # Code is taken as it is: its layout is its structure.
            segments = [Segment(text=text)]
        result = ExtractedText(segments=segments, encoding=encoding)

    # Blank pages stay, so page numbers and the page count match the file.
    if not any(segment.text.strip() for segment in result.segments):
        message = f"{file_name!r} contains no extractable text."
        if result.unreadable_pages:
            first = result.unreadable_pages[0]
            where = f"page {first['page']}: " if first["page"] else ""
            message = f"{file_name!r} contains no readable text ({where}{first['message']})."
        raise ExtractionError(NO_TEXT, message)
    return result


# --- text decoding -----------------------------------------------------------------

_UTF16_32_BOMS = (
    # UTF-32 first: its little-endian BOM starts with the UTF-16 one.
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_text(data: bytes) -> tuple[str, str]:
    """Return the decoded text and the encoding name, rejecting binary content."""
    # A BOM is an explicit declaration, and UTF-16/32 legitimately contain NUL bytes.
    for bom, encoding in _UTF16_32_BOMS:
        if data.startswith(bom):
            try:
                return _normalise_newlines(data.decode(encoding)), encoding
            except UnicodeDecodeError:
                break
    if b"\x00" in data:
        raise ExtractionError(CONTENT_MISMATCH, "The file contains binary data, not text.")
    try:
        return _normalise_newlines(data.decode("utf-8-sig")), "utf-8"
    except UnicodeDecodeError:
        pass

    text, encoding = _detect_legacy_encoding(data)
    return _normalise_newlines(text), encoding


# Detector scores within this margin are indistinguishable on short texts.
_CHAOS_MARGIN = 0.05


def _detect_legacy_encoding(data: bytes) -> tuple[str, str]:
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        raise ExtractionError(CONTENT_MISMATCH, "The file's text encoding is not recognised.")
    best = matches[0]
    # On a few lines of French or German the detector often ranks a Baltic or
    # Central European code page first ("prčs" for "près"); Windows-1252 is by far
    # the likeliest legacy encoding of an upload, so it wins any near tie.
    for match in matches:
        if match.chaos > best.chaos + _CHAOS_MARGIN:
            continue
        if "cp1252" in match.could_be_from_charset:
            try:
                return data.decode("cp1252"), "cp1252"
            except UnicodeDecodeError:
                break
    return str(best), best.encoding


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- PDF ---------------------------------------------------------------------------


def open_pdf(source: BinaryIO):
    """Return a pypdf reader of a PDF, opened with the empty password if it is encrypted.

    Raises ExtractionError: not a PDF, encrypted beyond the empty password, or unreadable.
    Many PDFs carry only an owner password (print/copy restrictions) and open with an empty
    user password; those are readable, so they are accepted.
    """
    if b"%PDF-" not in source.read(_PDF_HEADER_WINDOW):
        raise ExtractionError(CONTENT_MISMATCH, "The file has a .pdf name but is not a PDF.")
    source.seek(0)
    from pypdf import PasswordType, PdfReader

    try:
        reader = PdfReader(source, strict=False)
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except Exception as exc:  # noqa: BLE001 - unsupported algorithm, bad key
                raise ExtractionError(
                    ENCRYPTED_PDF, "The PDF is encrypted and cannot be opened."
                ) from exc
            if opened == PasswordType.NOT_DECRYPTED:
                raise ExtractionError(ENCRYPTED_PDF, "The PDF is password-protected.")
    except ExtractionError:
        raise
    except Exception as exc:  # noqa: BLE001 - pypdf raises many types on bad input
        raise ExtractionError(CORRUPT_FILE, f"The PDF could not be read: {exc}") from exc
    return reader


def _extract_pdf(data: bytes, ocr: OcrOptions | None) -> ExtractedText:
    reader = open_pdf(io.BytesIO(data))
    try:
        pages = list(reader.pages)
        if not pages:
            raise ExtractionError(CORRUPT_FILE, "The PDF has no readable pages.")
        fonts = [_page_fonts(page) for page in pages]
        headings = font_headings(fonts)
        running = running_heads([page.lines for page in fonts])
        texts = [
            _heading_lines(paragraph_gaps(page.text, page.lines, running), headings)
            for page in fonts
        ]
    except ExtractionError:
        raise
    except Exception as exc:  # noqa: BLE001 - pypdf raises many types on bad input
        raise ExtractionError(CORRUPT_FILE, f"The PDF could not be read: {exc}") from exc
    ocr_pages: list[int] = []
    unreadable: list[dict] = []
    boxes: dict[str, list] = {}
    if ocr is not None and any(_needs_ocr(text) for text in texts):
        for read in _ocr_pdf_pages(data, texts, ocr):
            if read.problem:
                # A page with some text of its own (a figure's caption) is not unreadable.
                if not texts[read.page - 1].strip():
                    unreadable.append(_unreadable(read, ocr))
            elif len(read.text.strip()) > len(texts[read.page - 1].strip()):
                texts[read.page - 1] = read.text
                ocr_pages.append(read.page)
                boxes[str(read.page)] = [list(box) for box in read.boxes]
    segments = plain_structure(
        [(text, number) for number, text in enumerate(texts, start=1)], headings=headings
    )
    # Blank pages stay, so page numbers and the page count match the file.
    present = {segment.page for segment in segments}
    blanks = [Segment(text="", page=n) for n in range(1, len(texts) + 1) if n not in present]
    segments = sorted([*segments, *blanks], key=lambda segment: segment.page or 0)
    return ExtractedText(
        segments=segments, ocr_pages=ocr_pages, unreadable_pages=unreadable, ocr_boxes=boxes
    )


# A line set at least this much larger than the document's body text is a heading.
HEADING_SIZE_RATIO = 1.15
HEADING_MAX_CHARS = 120
# Headings are levels from here on (the largest size first), below the framed-title level.
FIRST_FONT_LEVEL = 1


@dataclass
class _PageFonts:
    """A PDF page's text; for each piece of it, its size on the page and whether bold; and its
    lines as drawn (their text without spaces, and whether a gap sets the next one apart)."""

    text: str
    fragments: list[tuple[str, float, bool]]
    lines: list[tuple[str, bool]]


def _page_fonts(page) -> _PageFonts:
    fragments: list[tuple[str, float, bool]] = []
    placed: list[tuple[str, float, float]] = []  # (text, height on the page, size)

    def visit(text, cm, tm, font, size) -> None:
        if not text.strip():
            return
        scale = math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3]) or 1.0
        bold = "bold" in str((font or {}).get("/BaseFont", "")).lower()
        fragments.append((" ".join(text.split()), round(float(size or 0) * scale, 1), bold))
        height = float(tm[4]) * float(cm[1]) + float(tm[5]) * float(cm[3]) + float(cm[5])
        placed.append((text, height, float(size or 0) * scale))

    text = _normalise_newlines(page.extract_text(visitor_text=visit) or "")
    return _PageFonts(text, fragments, drawn_lines(placed))


def font_headings(pages: list[_PageFonts]) -> dict[str, int]:
    """Return the lines a PDF's fonts set apart as headings, with their levels: set larger
    than the body text (the size most characters have), the largest size first; then bold
    lines at the body size. A word processor's PDF puts no blank line around a heading, and
    one after a list item or an unfinished sentence would otherwise stay in the text, its
    passages under the heading before it (or under the document's title)."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for fragment, size, _ in page.fragments:
            sizes[size] += len(fragment)
    if not sizes:
        return {}
    body = sizes.most_common(1)[0][0]
    candidates = [
        (fragment, size, bold)
        for page in pages
        for fragment, size, bold in page.fragments
        if len(fragment) <= HEADING_MAX_CHARS and not fragment.endswith((".", ",", ";"))
    ]
    larger = sorted({size for _, size, _ in candidates if size >= body * HEADING_SIZE_RATIO})
    levels = {size: FIRST_FONT_LEVEL + rank for rank, size in enumerate(reversed(larger))}
    bold_level = FIRST_FONT_LEVEL + len(larger)
    found: dict[str, int] = {}
    for fragment, size, bold in candidates:
        level = levels.get(size) or (bold_level if bold and body <= size else None)
        if level is not None:
            found.setdefault(fragment, level)
    return found


def _heading_lines(text: str, headings: dict[str, int]) -> str:
    """Return a page's text with each heading line alone between blank lines (split from the
    text pypdf ran it into, when it did)."""
    if not headings:
        return text
    lines: list[str] = []
    for line in text.split("\n"):
        said = " ".join(line.split())
        lead = next(
            (h for h in headings if said != h and said.startswith(h) and said[len(h)].isupper()),
            None,
        )
        if said in headings:
            lines += ["", said, ""]
        elif lead is not None:
            lines += ["", lead, "", said[len(lead) :]]
        else:
            lines.append(line)
    return "\n".join(lines)


def _needs_ocr(text: str) -> bool:
    return len("".join(text.split())) < OCR_BELOW_CHARS


def _ocr_pdf_pages(data: bytes, texts: list[str], ocr: OcrOptions) -> list[PageText]:
    """OCR the pages of a PDF that have (almost) no text layer but draw an image."""
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(data)
        scanned = [
            index
            for index, text in enumerate(texts)
            if _needs_ocr(text) and index < len(document) and page_has_images(document, index)
        ]
    except Exception as exc:  # noqa: BLE001 - PDFium raises its own error on bad input
        raise ExtractionError(CORRUPT_FILE, f"The PDF's pages could not be drawn: {exc}") from exc
    pages = ((index + 1, lambda index=index: render_pdf_page(document, index)) for index in scanned)
    try:
        return read_pages(pages, len(scanned), ocr)
    finally:
        document.close()


def _unreadable(read: PageText, ocr: OcrOptions) -> dict:
    return {
        "page": read.page,
        "reason": read.problem,
        "message": describe_problem(read.problem, ocr.page_seconds),
    }


# --- images ------------------------------------------------------------------------


def _extract_image(data: bytes, file_name: str, ocr: OcrOptions | None) -> ExtractedText:
    """Read an image (a multi-page TIFF page by page) with OCR."""
    if ocr is None:
        raise ExtractionError(
            OCR_DISABLED, f"{file_name!r} is an image, and reading images (OCR) is switched off."
        )
    try:
        count, loaders = image_frames(data, IMAGE_FORMATS[file_extension(file_name)])
    except Exception as exc:  # noqa: BLE001 - Pillow raises many types on bad input
        raise ExtractionError(CORRUPT_FILE, f"The image could not be read: {exc}") from exc
    # Each frame is a page (a multi-page TIFF has many), so a citation can name it.
    reads = read_pages(enumerate(loaders[: ocr.max_pages], start=1), count, ocr)
    reads += [
        PageText(page=number, problem=OVER_PAGE_LIMIT)
        for number in range(ocr.max_pages + 1, count + 1)
    ][:1]
    segments = plain_structure([(read.text, read.page) for read in reads if read.text])
    present = {segment.page for segment in segments}
    blanks = [Segment(text="", page=n) for n in range(1, min(count, ocr.max_pages) + 1)]
    return ExtractedText(
        segments=sorted(
            [*segments, *(b for b in blanks if b.page not in present)],
            key=lambda segment: segment.page or 0,
        ),
        ocr_pages=[read.page for read in reads if read.text],
        unreadable_pages=[_unreadable(read, ocr) for read in reads if read.problem],
        ocr_boxes={
            str(read.page): [list(box) for box in read.boxes] for read in reads if read.text
        },
    )


# --- CSV ---------------------------------------------------------------------------


def csv_rows(text: str) -> list[list[str]]:
    """Return a CSV's rows that are not blank, read in its dialect: the sniffed one, or the same
    with quotes escaped by a backslash (\\" as MySQL's and some PHP exports write them) when that
    reads as many rows as wide as the header. Read the standard way, such a file keeps the
    backslashes in its cells, or splits a quoted cell at its commas and shifts the rest of the
    row into the wrong columns."""
    sample = text[: 64 * 1024]
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = _rows_in(text, dialect)
        if '\\"' in sample:
            escaped = _rows_in(text, dialect, escapechar="\\", doublequote=False)
            if _as_wide_as_the_header(escaped) >= _as_wide_as_the_header(rows):
                rows = escaped
    except csv.Error as exc:
        raise ExtractionError(CORRUPT_FILE, f"The CSV could not be parsed: {exc}") from exc
    return rows


def _rows_in(text: str, dialect, **options) -> list[list[str]]:
    reader = csv.reader(io.StringIO(text), dialect, **options)
    return [row for row in reader if any(c.strip() for c in row)]


def _as_wide_as_the_header(rows: list[list[str]]) -> int:
    return sum(len(row) == len(rows[0]) for row in rows[1:]) if rows else 0


def csv_structure(text: str, *, caption: str = "") -> list[Segment]:
    """Return a CSV as one table: its first row names the columns, each other row a record."""
    rows = csv_rows(text)
    if not rows:
        return []
    builder = StructureBuilder()
    if len(rows) == 1:
        builder.paragraph(", ".join(name.strip() for name in rows[0] if name.strip()))
    else:
        header = [column_name(name, i) for i, name in enumerate(rows[0])]
        builder.table(header, rows[1:], caption=caption)
    return builder.build()
