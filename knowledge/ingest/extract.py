"""Turn uploaded bytes into plain text segments, rejecting bad input with a code."""

from __future__ import annotations

import codecs
import csv
import datetime
import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import BinaryIO

from knowledge.ingest.filetypes import (
    KIND_CSV,
    KIND_DOCX,
    KIND_HTML,
    KIND_MARKDOWN,
    KIND_PDF,
    KIND_PPTX,
    KIND_TEXT,
    KIND_XLSX,
    OFFICE_KINDS,
    UnsupportedFileType,
    file_kind,
)
from knowledge.ingest.markup import html_structure, markdown_structure
from knowledge.ingest.structure import Segment, StructureBuilder, plain_structure

# Stable error codes: callers store and match on these, so never rename one.
CONTENT_MISMATCH = "content_mismatch"
CORRUPT_FILE = "corrupt_file"
ENCRYPTED_PDF = "encrypted_pdf"
ZIP_BOMB = "zip_bomb"
NO_TEXT = "no_text"
UNSUPPORTED_TYPE = "unsupported_type"

DEFAULT_MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024
MAX_COMPRESSION_RATIO = 100
# Small members compress far better than 100:1 when they are mostly boilerplate
# XML, so the ratio only counts for members big enough to hurt.
RATIO_CHECK_MIN_BYTES = 1024 * 1024
MAX_ZIP_MEMBERS = 10_000

# Acrobat accepts a header anywhere in the first 1024 bytes; real files rely on it.
_PDF_HEADER_WINDOW = 1024


@dataclass(frozen=True)
class ExtractedText:
    """The text of one file, in reading order."""

    segments: list[Segment] = field(default_factory=list)
    encoding: str | None = None

    @property
    def text(self) -> str:
        """Return the whole document text with segments joined by a blank line."""
        return "\n\n".join(segment.text for segment in self.segments)


class ExtractionError(Exception):
    """A file could not be turned into text; `code` is stable and machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


def extract(
    data: bytes,
    file_name: str,
    *,
    max_uncompressed_bytes: int = DEFAULT_MAX_UNCOMPRESSED_BYTES,
) -> ExtractedText:
    """Return the text of an uploaded file, raising ExtractionError for bad input."""
    try:
        kind = file_kind(file_name)
    except UnsupportedFileType as exc:
        raise ExtractionError(UNSUPPORTED_TYPE, str(exc)) from exc

    if kind == KIND_PDF:
        result = _extract_pdf(data)
    elif kind == KIND_DOCX:
        result = _extract_docx(data, max_uncompressed_bytes=max_uncompressed_bytes)
    elif kind == KIND_XLSX:
        result = _extract_xlsx(
            data, caption=PurePath(file_name).stem, max_uncompressed_bytes=max_uncompressed_bytes
        )
    elif kind == KIND_PPTX:
        result = _extract_pptx(data, max_uncompressed_bytes=max_uncompressed_bytes)
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
        raise ExtractionError(NO_TEXT, f"{file_name!r} contains no extractable text.")
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


def _extract_pdf(data: bytes) -> ExtractedText:
    reader = open_pdf(io.BytesIO(data))
    try:
        pages = list(reader.pages)
        if not pages:
            raise ExtractionError(CORRUPT_FILE, "The PDF has no readable pages.")
        texts = [_normalise_newlines(page.extract_text() or "") for page in pages]
    except ExtractionError:
        raise
    except Exception as exc:  # noqa: BLE001 - pypdf raises many types on bad input
        raise ExtractionError(CORRUPT_FILE, f"The PDF could not be read: {exc}") from exc
    segments = plain_structure([(text, number) for number, text in enumerate(texts, start=1)])
    # Blank pages stay, so page numbers and the page count match the file.
    present = {segment.page for segment in segments}
    blanks = [Segment(text="", page=n) for n in range(1, len(texts) + 1) if n not in present]
    segments = sorted([*segments, *blanks], key=lambda segment: segment.page or 0)
    return ExtractedText(segments=segments)


# --- DOCX --------------------------------------------------------------------------


def check_zip_archive(
    data: bytes | BinaryIO, *, max_uncompressed_bytes: int, kind: str = KIND_DOCX
) -> zipfile.ZipFile:
    """Return the opened Office archive (DOCX, XLSX, PPTX) after checking its declared sizes,
    never inflating it, and that it holds the member of its kind."""
    label = kind.upper()
    source = io.BytesIO(data) if isinstance(data, bytes | bytearray) else data
    head = source.read(4)
    source.seek(0)
    if head != b"PK\x03\x04":
        raise ExtractionError(
            CONTENT_MISMATCH, f"The file has a .{kind} name but is not a {label}."
        )
    try:
        archive = zipfile.ZipFile(source)
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise ExtractionError(CORRUPT_FILE, f"The {label} archive is damaged: {exc}") from exc

    if len(members) > MAX_ZIP_MEMBERS:
        raise ExtractionError(ZIP_BOMB, f"The archive has {len(members)} members.")
    # zipfile stops inflating a member at its declared size and fails the CRC, so
    # trusting the central directory's sizes here is safe.
    total = sum(member.file_size for member in members)
    if total > max_uncompressed_bytes:
        raise ExtractionError(
            ZIP_BOMB,
            f"The archive would expand to {total} bytes (limit {max_uncompressed_bytes}).",
        )
    for member in members:
        if member.file_size <= RATIO_CHECK_MIN_BYTES:
            continue
        ratio = member.file_size / max(member.compress_size, 1)
        if ratio > MAX_COMPRESSION_RATIO:
            raise ExtractionError(
                ZIP_BOMB,
                f"Member {member.filename!r} has a compression ratio of {ratio:.0f}:1.",
            )
    if OFFICE_KINDS[kind] not in {member.filename for member in members}:
        raise ExtractionError(CONTENT_MISMATCH, f"The archive is not a {OFFICE_NAMES[kind]}.")
    return archive


OFFICE_NAMES = {
    KIND_DOCX: "Word document",
    KIND_XLSX: "Excel workbook",
    KIND_PPTX: "PowerPoint presentation",
}


def _extract_docx(data: bytes, *, max_uncompressed_bytes: int) -> ExtractedText:
    check_zip_archive(data, max_uncompressed_bytes=max_uncompressed_bytes)

    import docx

    try:
        document = docx.Document(io.BytesIO(data))
        builder = StructureBuilder()
        _docx_structure(document, builder)
        segments = builder.build()
    except Exception as exc:  # noqa: BLE001 - python-docx/lxml raise many types
        raise ExtractionError(CORRUPT_FILE, f"The DOCX could not be read: {exc}") from exc
    return ExtractedText(segments=segments)


_DOCX_HEADING = re.compile(r"^(?:heading\s*(\d)|title)$", re.IGNORECASE)


def _docx_structure(document: object, builder: StructureBuilder) -> None:
    """Add a Word body's headings, paragraphs, list items and tables in document order."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    numbers: dict[tuple[str, int], int] = {}
    for block in document.iter_inner_content():  # type: ignore[attr-defined]
        if isinstance(block, Table):
            rows = [_docx_row(row) for row in block.rows]
            rows = [row for row in rows if any(row)]
            if len(rows) > 1:
                builder.table(rows[0], rows[1:])
            elif rows:
                builder.table([], rows)
            continue
        if not isinstance(block, Paragraph) or not block.text.strip():
            continue
        style = (block.style.name if block.style is not None else "") or ""
        heading = _DOCX_HEADING.match(style.strip())
        if heading:
            numbers.clear()
            builder.heading(int(heading.group(1) or 0), block.text)
            continue
        marker, depth = _docx_list_marker(block, style, numbers)
        if marker:
            builder.list_item(marker, block.text, depth)
        else:
            # Word's numbering goes on after a note between items; a heading restarts it.
            builder.paragraph(block.text)


def _docx_row(row: object) -> list[str]:
    cells: list[str] = []
    seen: set[int] = set()
    for cell in row.cells:  # type: ignore[attr-defined]
        # A merged cell is returned once per grid column it spans.
        if id(cell._tc) in seen:
            continue
        seen.add(id(cell._tc))
        texts = [p.text for p in cell.paragraphs if p.text.strip()]
        # A table inside a cell stays in that cell, row by row.
        for table in cell.tables:
            texts.extend(" ".join(c.text for c in inner.cells) for inner in table.rows)
        cells.append(" ".join(texts))
    return cells


def _docx_list_marker(
    paragraph: object, style: str, numbers: dict[tuple[str, int], int]
) -> tuple[str, int]:
    """Return ("3.", level) for the third item of a numbered list, ("-", level) for a bullet,
    ("", 0) for prose."""
    lowered = style.lower()
    properties = paragraph._p.pPr  # type: ignore[attr-defined]
    numbering = properties.numPr if properties is not None else None
    if numbering is None and not lowered.startswith("list"):
        return "", 0
    ordered = "number" in lowered
    key, level = (style, 0), 0
    if numbering is not None and numbering.numId is not None:
        level = int(numbering.ilvl.val) if numbering.ilvl is not None else 0
        key = (f"num{numbering.numId.val}", level)
        ordered = ordered or _docx_numbering_is_ordered(paragraph, numbering.numId.val, level)
        # A new item one level up restarts the deeper levels' counts, as Word does.
        for deeper in [k for k in numbers if k[0] == key[0] and k[1] > level]:
            del numbers[deeper]
    if not ordered:
        return "-", level
    numbers[key] = numbers.get(key, 0) + 1
    return f"{numbers[key]}.", level


def _docx_numbering_is_ordered(paragraph: object, num_id: int, level: int) -> bool:
    try:
        numbering = paragraph.part.numbering_part.element  # type: ignore[attr-defined]
        ns = {"w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main"}
        abstract = numbering.xpath(
            f"./w:num[@w:numId='{num_id}']/w:abstractNumId/@w:val", namespaces=ns
        )
        formats = numbering.xpath(
            f"./w:abstractNum[@w:abstractNumId='{abstract[0]}']/w:lvl[@w:ilvl='{level}']/w:numFmt/@w:val",
            namespaces=ns,
        )
        return bool(formats) and formats[0] not in ("bullet", "none")
    except Exception:  # noqa: BLE001 - no numbering part, or an unusual one: call it a bullet
        return False


# --- XLSX and PPTX -----------------------------------------------------------------


def _cell_text(value: object) -> str:
    """Return a spreadsheet cell as a person reads it: dates as ISO dates, 3.0 as 3."""
    if value is None:
        return ""
    if isinstance(value, datetime.datetime):
        return value.date().isoformat() if value.time() == datetime.time() else value.isoformat()
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _extract_xlsx(data: bytes, *, caption: str, max_uncompressed_bytes: int) -> ExtractedText:
    """Return a workbook: one section per sheet (its name), each sheet a table whose first
    non-empty row names the columns and each other row is a record (as a CSV's)."""
    check_zip_archive(data, max_uncompressed_bytes=max_uncompressed_bytes, kind=KIND_XLSX)
    from openpyxl import load_workbook

    builder = StructureBuilder()
    try:
        # Cached values, not formulas: what the sheet shows.
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        try:
            for sheet in workbook.worksheets:
                rows = [[_cell_text(v) for v in row] for row in sheet.iter_rows(values_only=True)]
                rows = [row for row in rows if any(row)]
                if not rows:
                    continue
                width = max(max((i + 1 for i, c in enumerate(row) if c), default=0) for row in rows)
                rows = [row[:width] + [""] * (width - len(row)) for row in rows]
                builder.heading(1, sheet.title)
                if len(rows) == 1:
                    builder.paragraph(", ".join(cell for cell in rows[0] if cell))
                else:
                    header = [_column_name(name, i) for i, name in enumerate(rows[0])]
                    builder.table(header, rows[1:], caption=f"{caption}: {sheet.title}")
        finally:
            workbook.close()
        segments = builder.build()
    except ExtractionError:
        raise
    except Exception as exc:  # noqa: BLE001 - openpyxl/lxml raise many types
        raise ExtractionError(CORRUPT_FILE, f"The XLSX could not be read: {exc}") from exc
    return ExtractedText(segments=segments)


def _extract_pptx(data: bytes, *, max_uncompressed_bytes: int) -> ExtractedText:
    """Return a presentation: each slide a section under its title (its number as the page),
    with its text boxes, tables and speaker notes."""
    check_zip_archive(data, max_uncompressed_bytes=max_uncompressed_bytes, kind=KIND_PPTX)
    from pptx import Presentation

    builder = StructureBuilder()
    try:
        presentation = Presentation(io.BytesIO(data))
        for number, slide in enumerate(presentation.slides, start=1):
            builder.page = number
            title_shape = slide.shapes.title
            title = (title_shape.text or "").strip() if title_shape is not None else ""
            builder.heading(1, title or f"Slide {number}")
            for shape in slide.shapes:
                if title_shape is not None and shape.shape_id == title_shape.shape_id:
                    continue
                _pptx_shape(shape, builder)
            if slide.has_notes_slide:
                notes = (slide.notes_slide.notes_text_frame.text or "").strip()
                if notes:
                    builder.paragraph(f"Speaker notes: {notes}")
        segments = builder.build()
    except ExtractionError:
        raise
    except Exception as exc:  # noqa: BLE001 - python-pptx/lxml raise many types
        raise ExtractionError(CORRUPT_FILE, f"The PPTX could not be read: {exc}") from exc
    return ExtractedText(segments=segments)


def _pptx_shape(shape: object, builder: StructureBuilder) -> None:
    """Add a slide shape's text: a table's rows, a text frame's paragraphs (bullets as list
    items), a group's shapes."""
    if getattr(shape, "has_table", False) and shape.has_table:  # type: ignore[attr-defined]
        rows = [[cell.text.strip() for cell in row.cells] for row in shape.table.rows]  # type: ignore[attr-defined]
        rows = [row for row in rows if any(row)]
        if len(rows) > 1:
            builder.table(rows[0], rows[1:])
        elif rows:
            builder.table([], rows)
        return
    if hasattr(shape, "shapes"):  # a group
        for inner in shape.shapes:  # type: ignore[attr-defined]
            _pptx_shape(inner, builder)
        return
    if not getattr(shape, "has_text_frame", False):
        return
    for paragraph in shape.text_frame.paragraphs:  # type: ignore[attr-defined]
        text = "".join(run.text for run in paragraph.runs).strip() or paragraph.text.strip()
        if not text:
            continue
        if paragraph.level > 0:
            builder.list_item("-", text, paragraph.level - 1)
        else:
            builder.paragraph(text)


# --- CSV ---------------------------------------------------------------------------


def _column_name(name: str, index: int) -> str:
    name = name.strip()
    # "head_count" and "headCount" are how spreadsheets spell "head count".
    if name and " " not in name and ("_" in name or re.search(r"[a-z][A-Z]", name)):
        name = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name.replace("_", " ")).lower()
    return name or f"column {index + 1}"


def csv_structure(text: str, *, caption: str = "") -> list[Segment]:
    """Return a CSV as one table: its first row names the columns, each other row a record."""
    sample = text[: 64 * 1024]
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = [
            row for row in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in row)
        ]
    except csv.Error as exc:
        raise ExtractionError(CORRUPT_FILE, f"The CSV could not be parsed: {exc}") from exc
    if not rows:
        return []
    builder = StructureBuilder()
    if len(rows) == 1:
        builder.paragraph(", ".join(name.strip() for name in rows[0] if name.strip()))
    else:
        header = [_column_name(name, i) for i, name in enumerate(rows[0])]
        builder.table(header, rows[1:], caption=caption)
    return builder.build()
