"""Office Open XML files, DOCX, XLSX and PPTX: their zip checks and their structure.

Each is a zip archive, checked from its central directory (never inflated) before it is opened:
too many members, declared sizes over the budget or a compression ratio past MAX_COMPRESSION_RATIO
are a zip bomb; the member that names its kind must be there. Word documents keep their
headings, lists and tables (python-docx); workbooks are a section per sheet and a record per
row (openpyxl); presentations a section per slide with its notes (python-pptx).
"""

from __future__ import annotations

import datetime
import io
import re
import zipfile
from typing import BinaryIO

from knowledge.ingest.extracted import (
    CONTENT_MISMATCH,
    CORRUPT_FILE,
    ZIP_BOMB,
    ExtractedText,
    ExtractionError,
)
from knowledge.ingest.filetypes import KIND_DOCX, KIND_PPTX, KIND_XLSX, OFFICE_KINDS
from knowledge.ingest.structure import StructureBuilder, column_name

MAX_COMPRESSION_RATIO = 100
# Small members compress far better than 100:1 when they are mostly boilerplate
# XML, so the ratio only counts for members big enough to hurt.
RATIO_CHECK_MIN_BYTES = 1024 * 1024
MAX_ZIP_MEMBERS = 10_000

# The section a slide's speaker notes go under (after the slide's title).
NOTES_SECTION = "Speaker notes"


def extract_office(
    data: bytes, kind: str, *, caption: str, max_uncompressed_bytes: int
) -> ExtractedText:
    """Return the text of a DOCX, XLSX or PPTX file."""
    if kind == KIND_DOCX:
        return _extract_docx(data, max_uncompressed_bytes=max_uncompressed_bytes)
    if kind == KIND_XLSX:
        return _extract_xlsx(data, caption=caption, max_uncompressed_bytes=max_uncompressed_bytes)
    return _extract_pptx(data, max_uncompressed_bytes=max_uncompressed_bytes)


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
                    header = [column_name(name, i) for i, name in enumerate(rows[0])]
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
                    # A section of the slide, not a label in the text: an answer quoting
                    # the notes does not begin "Speaker notes:".
                    builder.heading(2, NOTES_SECTION)
                    builder.paragraph(notes)
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
