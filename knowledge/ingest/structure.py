"""A document's structure as extraction finds it: sections, paragraphs, lists and tables.

Flattening a document to text loses what a reader relies on, so extraction keeps it:

- a heading is never text of its own: it becomes the section path of what follows it
  (`("Onboarding", "First week")`), stored with each chunk, shown with each source and used
  in retrieval, so a heading can never be quoted as an answer;
- a numbered list keeps its numbers ("3. Ask IT for a laptop") and the heading it sits under;
- a table keeps its column headers, so each row can be read as a record
  ("office: Lisbon · head count: 42"), with the table's caption and the row's position.

Every format's parser feeds one `StructureBuilder`, which merges consecutive paragraphs of one
section into one prose segment (so plain prose chunks exactly as before) and consecutive list
items into one list segment. Plain text and PDF pages, which carry no markup, are read from
their layout by knowledge/ingest/plain.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from knowledge.chunk_kinds import KIND_LIST, KIND_PROSE, KIND_TABLE, SECTION_SEPARATOR

# What a segment is; a table segment becomes row chunks and chunks of runs of rows.
PROSE = KIND_PROSE
LIST = KIND_LIST
TABLE = KIND_TABLE

# Cells of a record are joined with this; a comma would be ambiguous inside values.
CELL_SEPARATOR = " · "
MAX_HEADING_CHARS = 300
MAX_SECTION_DEPTH = 8
# Deeper list items are indented no further: hostile pages nest lists thousands deep.
MAX_LIST_INDENT = 6
# Pseudo-levels below h6: a definition term or a <summary> heads only its own answer.
TERM_LEVEL = 7

_SPACE = re.compile(r"[ \t\r\f\v]+")


@dataclass(frozen=True)
class Segment:
    """A run of extracted text: its page, the headings it sits under, and what it is.

    A table segment also holds its header row and data rows; its text is one record per row.
    """

    text: str
    page: int | None = None
    section: tuple[str, ...] = ()
    kind: str = PROSE
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    caption: str = ""

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-able dict (the extraction sandbox sends segments as JSON)."""
        data: dict[str, Any] = {"text": self.text, "page": self.page}
        if self.section:
            data["section"] = list(self.section)
        if self.kind != PROSE:
            data["kind"] = self.kind
        if self.kind == TABLE:
            data.update(headers=list(self.headers), rows=[list(r) for r in self.rows])
            data["caption"] = self.caption
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Segment:
        """Return the segment `to_json` described."""
        return cls(
            text=data["text"],
            page=data.get("page"),
            section=tuple(data.get("section") or ()),
            kind=data.get("kind") or PROSE,
            headers=tuple(data.get("headers") or ()),
            rows=tuple(tuple(row) for row in data.get("rows") or ()),
            caption=data.get("caption") or "",
        )


def clean_cell(text: str) -> str:
    """Return a cell's or heading's text on one line with its whitespace collapsed."""
    return _SPACE.sub(" ", " ".join((text or "").split("\n"))).strip()


def column_name(name: str, index: int) -> str:
    """A header cell as a reader says it: "head_count" and "headCount" are "head count"."""
    name = name.strip()
    if name and " " not in name and ("_" in name or re.search(r"[a-z][A-Z]", name)):
        name = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name.replace("_", " ")).lower()
    return name or f"column {index + 1}"


def row_record(headers: tuple[str, ...] | list[str], cells: tuple[str, ...] | list[str]) -> str:
    """Return a table row as a record, "header: value · header: value", skipping empty cells."""
    pairs = []
    for index, value in enumerate(cells):
        value = clean_cell(value)
        if not value:
            continue
        name = headers[index] if index < len(headers) and headers[index] else ""
        pairs.append(f"{name}: {value}" if name else value)
    return CELL_SEPARATOR.join(pairs)


def section_line(section: tuple[str, ...] | list[str]) -> str:
    """Return a section path as one line: "Policy › Onboarding › First week"."""
    return SECTION_SEPARATOR.join(part for part in section if part)


@dataclass
class _Pending:
    kind: str
    section: tuple[str, ...]
    page: int | None
    parts: list[str] = field(default_factory=list)


class StructureBuilder:
    """Collect headings, paragraphs, list items and tables into segments in reading order."""

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.page: int | None = None
        self._headings: list[tuple[int, str]] = []
        # The page each open heading was seen on.
        self._heading_pages: list[int | None] = []
        self._pending: _Pending | None = None
        # How many paragraphs, items and tables were added, and that count when each
        # open heading was seen.
        self._content_count = 0
        self._content_at: list[int] = []

    @property
    def section(self) -> tuple[str, ...]:
        return tuple(text for _, text in self._headings)

    def heading(self, level: int, text: str) -> None:
        """Open a section: it replaces the headings at its level and below."""
        text = clean_cell(text)[:MAX_HEADING_CHARS].rstrip(":").strip()
        if not text:
            return
        while self._headings and self._headings[-1][0] >= level:
            self._close_heading()
        if len(self._headings) < MAX_SECTION_DEPTH:
            self._headings.append((level, text))
            self._content_at.append(self._content_count)
            self._heading_pages.append(self.page)

    def _close_heading(self) -> None:
        # A heading nothing followed (a sign-off, a label) keeps its words, as a paragraph.
        _, text = self._headings.pop()
        page = self._heading_pages.pop()
        if self._content_at.pop() == self._content_count:
            # On the heading's own page, not the page where the next heading closed it.
            current, self.page = self.page, page
            self.paragraph(text)
            self.page = current

    def close_terms(self) -> None:
        """End the sections a definition term or a summary opened."""
        while self._headings and self._headings[-1][0] >= TERM_LEVEL:
            self._close_heading()

    def paragraph(self, text: str) -> None:
        """Add a paragraph to the current section's prose."""
        text = text.strip("\n")
        if text.strip():
            self._add(PROSE, text)

    def list_item(self, marker: str, text: str, depth: int = 0) -> None:
        """Add a list item, keeping its number ("3.") or bullet ("-") and its nesting."""
        text = " ".join(line.strip() for line in text.strip().split("\n") if line.strip())
        if text:
            self._add(LIST, f"{'   ' * min(depth, MAX_LIST_INDENT)}{marker} {text}")

    def table(self, headers: list[str], rows: list[list[str]], caption: str = "") -> None:
        """Add a table: its header row (possibly empty) and its data rows."""
        headers = [clean_cell(name) for name in headers]
        width = max([len(headers), *(len(row) for row in rows)], default=0)
        rows = [[clean_cell(cell) for cell in row] for row in rows]
        rows = [row + [""] * (width - len(row)) for row in rows if any(row)]
        if not rows:
            # A header row alone is a line of words, not an empty table.
            self.paragraph(" · ".join(name for name in headers if name))
            return
        self._content_count += 1
        self.flush()
        records = [row_record(headers, row) for row in rows]
        self.segments.append(
            Segment(
                text="\n".join(records),
                page=self.page,
                section=self.section,
                kind=TABLE,
                headers=tuple(headers),
                rows=tuple(tuple(row) for row in rows),
                caption=clean_cell(caption),
            )
        )

    def _add(self, kind: str, text: str) -> None:
        self._content_count += 1
        pending = self._pending
        if pending and (pending.kind, pending.section, pending.page) != (
            kind,
            self.section,
            self.page,
        ):
            self.flush()
            pending = None
        if pending is None:
            pending = self._pending = _Pending(kind, self.section, self.page)
        pending.parts.append(text)

    def flush(self) -> None:
        """Close the paragraph or list being collected."""
        pending = self._pending
        self._pending = None
        if pending is None or not pending.parts:
            return
        separator = "\n" if pending.kind == LIST else "\n\n"
        self.segments.append(
            Segment(
                text=separator.join(pending.parts),
                page=pending.page,
                section=pending.section,
                kind=pending.kind,
            )
        )

    def build(self) -> list[Segment]:
        """Return the segments; headings nothing followed are kept as paragraphs."""
        while self._headings:
            self._close_heading()
        self.flush()
        return self.segments
