"""Turn uploaded bytes into plain text segments, rejecting bad input with a code."""

from __future__ import annotations

import codecs
import csv
import io
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

from bs4 import BeautifulSoup, Comment, NavigableString, PageElement, Tag

from knowledge.ingest.filetypes import (
    KIND_CSV,
    KIND_DOCX,
    KIND_HTML,
    KIND_MARKDOWN,
    KIND_PDF,
    UnsupportedFileType,
    file_kind,
)

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

_DROPPED_HTML_TAGS = (
    "script", "style", "noscript", "template", "head", "iframe", "object", "embed",
    "svg", "canvas", "applet", "frame", "frameset", "meta", "link", "base",
)  # fmt: skip
# Blocks that read as paragraphs get a blank line, so the chunker can split there.
_PARAGRAPH_TAGS = frozenset(
    {
        "p", "div", "section", "article", "main", "aside", "header", "footer", "nav",
        "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "table", "blockquote",
        "pre", "figure", "figcaption", "form", "fieldset", "address", "details",
        "summary", "hr", "body", "title",
    }
)  # fmt: skip
_LINE_TAGS = frozenset({"li", "tr", "dt", "dd", "caption", "legend", "option", "br"})
_CELL_TAGS = frozenset({"td", "th"})

_UNSAFE_LINK_SCHEMES = ("javascript:", "vbscript:", "data:", "file:")


@dataclass(frozen=True)
class Segment:
    """A run of extracted text, with its 1-based page number when the format has pages."""

    text: str
    page: int | None = None


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
    else:
        text, encoding = decode_text(data)
        if kind == KIND_HTML:
            text = html_to_text(text)
        elif kind == KIND_MARKDOWN:
            text = markdown_to_text(text)
        elif kind == KIND_CSV:
            text = csv_to_text(text)
        result = ExtractedText(segments=[Segment(text=text)], encoding=encoding)

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


def _extract_pdf(data: bytes) -> ExtractedText:
    if b"%PDF-" not in data[:_PDF_HEADER_WINDOW]:
        raise ExtractionError(CONTENT_MISMATCH, "The file has a .pdf name but is not a PDF.")

    from pypdf import PasswordType, PdfReader

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            # Many PDFs carry only an owner password (print/copy restrictions) and
            # open with an empty user password; those are readable, so accept them.
            try:
                opened = reader.decrypt("")
            except Exception as exc:  # noqa: BLE001 - unsupported algorithm, bad key
                raise ExtractionError(
                    ENCRYPTED_PDF, "The PDF is encrypted and cannot be opened."
                ) from exc
            if opened == PasswordType.NOT_DECRYPTED:
                raise ExtractionError(ENCRYPTED_PDF, "The PDF is password-protected.")
        pages = list(reader.pages)
        if not pages:
            raise ExtractionError(CORRUPT_FILE, "The PDF has no readable pages.")
        segments = [
            Segment(text=_normalise_newlines(page.extract_text() or ""), page=number)
            for number, page in enumerate(pages, start=1)
        ]
    except ExtractionError:
        raise
    except Exception as exc:  # noqa: BLE001 - pypdf raises many types on bad input
        raise ExtractionError(CORRUPT_FILE, f"The PDF could not be read: {exc}") from exc
    return ExtractedText(segments=segments)


# --- DOCX --------------------------------------------------------------------------


def check_zip_archive(data: bytes | BinaryIO, *, max_uncompressed_bytes: int) -> zipfile.ZipFile:
    """Return the opened archive after checking its declared sizes, never inflating it."""
    source = io.BytesIO(data) if isinstance(data, bytes | bytearray) else data
    head = source.read(4)
    source.seek(0)
    if head != b"PK\x03\x04":
        raise ExtractionError(CONTENT_MISMATCH, "The file has a .docx name but is not a DOCX.")
    try:
        archive = zipfile.ZipFile(source)
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise ExtractionError(CORRUPT_FILE, f"The DOCX archive is damaged: {exc}") from exc

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
    return archive


def _extract_docx(data: bytes, *, max_uncompressed_bytes: int) -> ExtractedText:
    archive = check_zip_archive(data, max_uncompressed_bytes=max_uncompressed_bytes)
    if "word/document.xml" not in archive.namelist():
        raise ExtractionError(CONTENT_MISMATCH, "The archive is not a Word document.")

    import docx

    try:
        document = docx.Document(io.BytesIO(data))
        blocks = _docx_blocks(document)
    except Exception as exc:  # noqa: BLE001 - python-docx/lxml raise many types
        raise ExtractionError(CORRUPT_FILE, f"The DOCX could not be read: {exc}") from exc
    return ExtractedText(segments=[Segment(text="\n\n".join(blocks))])


def _docx_blocks(container: object) -> list[str]:
    """Return paragraphs and tables (one line per row) of a DOCX body or cell, in order."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    blocks: list[str] = []
    for block in container.iter_inner_content():  # type: ignore[attr-defined]
        if isinstance(block, Paragraph):
            if block.text.strip():
                blocks.append(block.text)
        elif isinstance(block, Table):
            rows: list[str] = []
            for row in block.rows:
                cells: list[str] = []
                seen: set[int] = set()
                for cell in row.cells:
                    # A merged cell is returned once per grid column it spans.
                    if id(cell._tc) in seen:
                        continue
                    seen.add(id(cell._tc))
                    cell_text = " ".join(_docx_blocks(cell)).strip()
                    if cell_text:
                        cells.append(cell_text)
                if cells:
                    rows.append(" | ".join(cells))
            if rows:
                blocks.append("\n".join(rows))
    return blocks


# --- HTML --------------------------------------------------------------------------


def html_to_text(markup: str) -> str:
    """Return the visible text of an HTML document, one block per paragraph."""
    soup = BeautifulSoup(_quiet_markup(markup), "lxml")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    _drop_invisible(soup)
    pieces: list[str] = [title] if title else []
    # Breaks wait until the next visible text so that nested blocks and the
    # whitespace between them give one separator, not a pile of blank lines.
    pending = "\n\n" if title else ""
    # An explicit stack instead of recursion: hostile pages nest thousands deep.
    stack: list[tuple[PageElement, bool]] = [(soup, False)]
    pre_depth = 0
    while stack:
        node, leaving = stack.pop()
        if isinstance(node, Tag):
            if node.name == "pre":
                pre_depth += -1 if leaving else 1
            pending = max(pending, _block_break(node.name), key=_BREAK_RANK.index)
            if not leaving:
                stack.append((node, True))
                stack.extend((child, False) for child in reversed(node.contents))
        # Subclasses (comments, doctypes, CDATA) are not visible text.
        elif type(node) is NavigableString:
            text = _MARKERS.sub("", str(node))
            if pre_depth:
                # Keep code layout through the whitespace tidying below.
                text = text.translate(_PRE_TO_MARKERS)
            else:
                text = re.sub(r"\s+", " ", text)
                if not text.strip():
                    pending = max(pending, text, key=_BREAK_RANK.index)
                    continue
            if pieces:
                pieces.append(pending)
            pieces.append(text)
            pending = ""
    return _tidy_lines("".join(pieces)).translate(_MARKERS_TO_PRE).strip()


_BREAK_RANK = ["", " ", "\n", "\n\n"]
_MARKERS = re.compile("[\x00-\x02]")
_PRE_TO_MARKERS = str.maketrans({"\n": "\x00", " ": "\x01", "\t": "\x02"})
_MARKERS_TO_PRE = str.maketrans({"\x00": "\n", "\x01": " ", "\x02": "\t"})


def _quiet_markup(markup: str) -> str:
    # Beautiful Soup warns that short input without tags "looks like a URL or a
    # filename"; an empty element keeps it quiet without touching warning filters.
    return markup if "<" in markup else "<span></span>" + markup


def _drop_invisible(soup: BeautifulSoup) -> None:
    for tag in soup.find_all(_DROPPED_HTML_TAGS):
        tag.decompose()
    for comment in soup.find_all(string=lambda value: isinstance(value, Comment)):
        comment.extract()


def _block_break(name: str) -> str:
    if name in _PARAGRAPH_TAGS:
        return "\n\n"
    if name in _LINE_TAGS:
        return "\n"
    if name in _CELL_TAGS:
        return " "
    return ""


def _tidy_lines(text: str) -> str:
    lines = [re.sub(r"\s+", " ", line).strip() for line in text.split("\n")]
    return "\n".join(lines)


# --- Markdown ----------------------------------------------------------------------

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# A code span may wrap lines but, as in CommonMark, never crosses a blank line.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)
_AUTOLINK = re.compile(r"<((?:https?|ftp)://[^\s<>]+|mailto:[^\s<>]+)>", re.IGNORECASE)
_INLINE_LINK = re.compile(r"!?\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?(?:\s+[^)\n]*)?\)")
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.MULTILINE)
_PLACEHOLDER = "\ue000{}\ue001"
_PLACEHOLDER_PATTERN = re.compile("\ue000(\\d+)\ue001")


def markdown_to_text(markdown: str) -> str:
    """Return markdown source with raw HTML and script-capable links removed."""
    protected: list[str] = []

    def protect(value: str) -> str:
        protected.append(value)
        return _PLACEHOLDER.format(len(protected) - 1)

    # Private-use characters would collide with the placeholders.
    markdown = markdown.replace("\ue000", "").replace("\ue001", "")
    # Code is shown literally by markdown, so tags inside it are text, not markup.
    markdown = _protect_fenced_code(markdown, protect)
    markdown = _CODE_SPAN.sub(lambda match: protect(match.group(0)), markdown)
    markdown = _LINK_DEFINITION.sub(
        lambda match: "" if _is_unsafe_url(match.group(1)) else protect(match.group(0)),
        markdown,
    )
    markdown = _INLINE_LINK.sub(_neutralise_link, markdown)
    # Autolinks look like tags to an HTML parser, which would swallow them.
    markdown = _AUTOLINK.sub(lambda match: protect(match.group(0)), markdown)

    # html.parser keeps surrounding text and whitespace untouched, unlike lxml which
    # would build a full document around the fragment.
    soup = BeautifulSoup(_quiet_markup(markdown), "html.parser")
    _drop_invisible(soup)
    # Removed blocks leave runs of blank lines behind.
    text = re.sub(r"\n[ \t]*\n(?:[ \t]*\n)+", "\n\n", soup.get_text())
    for _ in range(2):  # a protected link may contain a protected code span
        text = _PLACEHOLDER_PATTERN.sub(lambda match: protected[int(match.group(1))], text)
    return text


def _protect_fenced_code(markdown: str, protect: Callable[[str], str]) -> str:
    out: list[str] = []
    fence: list[str] = []
    marker = ""
    for line in markdown.splitlines(keepends=True):
        if marker:
            fence.append(line)
            stripped = line.strip()
            if stripped.startswith(marker) and set(stripped) == {marker[0]}:
                out.append(protect("".join(fence)))
                fence, marker = [], ""
            continue
        match = _FENCE_OPEN.match(line)
        if match:
            marker = match.group(1)
            fence = [line]
        else:
            out.append(line)
    if fence:
        out.append(protect("".join(fence)))
    return "".join(out)


def _is_unsafe_url(url: str) -> bool:
    compact = re.sub(r"[\s\x00-\x1f]", "", url).lower()
    return compact.startswith(_UNSAFE_LINK_SCHEMES)


def _neutralise_link(match: re.Match[str]) -> str:
    label, url = match.groups()
    if _is_unsafe_url(url):
        # Keep the words a reader saw, drop the target a renderer could run.
        return label
    return match.group(0)


# --- CSV ---------------------------------------------------------------------------


def csv_to_text(text: str) -> str:
    """Return one "column: value, ..." line per CSV row, named by the header row."""
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
        return ""
    header = [name.strip() for name in rows[0]]
    if len(rows) == 1:
        return ", ".join(name for name in header if name)
    lines = []
    for row in rows[1:]:
        pairs = []
        for index, value in enumerate(row):
            value = value.strip()
            if not value:
                continue
            name = header[index] if index < len(header) and header[index] else f"column {index + 1}"
            pairs.append(f"{name}: {value}")
        lines.append(", ".join(pairs))
    return "\n".join(lines)
