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
items into one list segment.
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


# --- plain text and PDF pages ---------------------------------------------------------

_NUMBERED = re.compile(r"^\s*(?:step\s+)?(\d{1,3})[.):]\s+(\S.*)$", re.IGNORECASE)
_BULLETED = re.compile(r"^\s*[-*•▪‣◦]\s+(\S.*)$")
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_TERMINAL = re.compile(r"[.!?;,…\"”’)]$")
MAX_PLAIN_HEADING_WORDS = 10
MAX_LEAD_IN_WORDS = 5


_SEPARATOR_LINE = re.compile(r"^\s*([-=_*~#])\1{2,}\s*$")


def plain_structure(
    pages: list[tuple[str, int | None]], headings: dict[str, int] | None = None
) -> list[Segment]:
    """Return the structure of plain text (a .txt file, or a PDF's pages) by its layout.

    A short line that stands alone, opens a paragraph, or (in a PDF, which puts no blank
    line under a heading) follows a finished sentence, and starts with a capital or a digit
    and ends without punctuation, is a heading; one framed by rule lines (----) heads the
    others; "1. Topic" alone before prose is a numbered heading; a short line ending in a
    colon ("Decisions:") heads what follows it one level down; "1." / "1)" / "Step 1:" lines
    are numbered items and "-" lines bullets, each taking the wrapped lines that follow it;
    lines of labelled amounts under a lead-in ("The nightly caps are:" over "Lisbon EUR 140 -
    Porto EUR 120") are a two-column table named by the lead-in; a paragraph whose every line
    holds tab-separated cells (a pasted spreadsheet, or a table OCR found on a scan) is a table
    under its first line's headers. `headings` (a PDF's, by its fonts: knowledge/ingest/
    extract.py) are lines known to be headings, with their levels: such a line standing alone
    opens its section, whatever its neighbours.
    """
    headings = headings or {}
    # Fonts that set two lines or more apart as headings are trusted over the layout (a title
    # alone in a larger size is no sign that the other headings are).
    fonts = len(headings) >= 2
    builder = StructureBuilder()
    for text, page in pages:
        builder.flush()
        builder.page = page
        width = max((len(line.strip()) for line in text.split("\n")), default=0)
        paragraphs = _plain_paragraphs(text)
        for index, (paragraph, framed) in enumerate(paragraphs):
            if paragraph.strip() in headings:
                builder.heading(headings[paragraph.strip()], paragraph.strip())
                continue
            following = paragraphs[index + 1][0] if index + 1 < len(paragraphs) else ""
            # A document whose fonts say which lines are headings needs no guess from layout.
            numbered = "" if fonts else _numbered_heading(paragraph, following)
            if numbered:
                builder.heading(LEVEL_TOPIC, numbered)
                continue
            rows = _tab_rows(paragraph)
            if rows:
                builder.table([column_name(n, i) for i, n in enumerate(rows[0])], rows[1:])
                continue
            before, rows, after = _aligned_rows(paragraph)
            if rows:
                # A PDF keeps no blank line around a table: the lines before and after it
                # are paragraphs of their own.
                if before:
                    _plain_paragraph(
                        builder, before, width, paged=page is not None, framed=framed, fonts=fonts
                    )
                builder.table([column_name(n, i) for i, n in enumerate(rows[0])], rows[1:])
                if after:
                    _plain_paragraph(
                        builder, after, width, paged=page is not None, framed=False, fonts=fonts
                    )
                continue
            _plain_paragraph(
                builder, paragraph, width, paged=page is not None, framed=framed, fonts=fonts
            )
    return builder.build()


# Levels of plain-text headings: framed by rule lines, a topic, a lead-in ("Decisions:").
LEVEL_FRAMED, LEVEL_TOPIC, LEVEL_LEAD_IN = 1, 2, 3
MAX_NUMBERED_HEADING_WORDS = 8


def _tab_rows(paragraph: str) -> list[list[str]] | None:
    """Return the cells of a paragraph whose lines (two at least) all hold the same number of
    tab-separated cells, the header row's all filled (an indented paragraph is no table)."""
    lines = paragraph.split("\n")
    if len(lines) < 2 or not all("\t" in line for line in lines):
        return None
    rows = [[cell.strip() for cell in line.split("\t")] for line in lines]
    if len({len(row) for row in rows}) != 1 or not all(rows[0]):
        return None
    if not all(sum(bool(cell) for cell in row) >= 2 for row in rows):
        return None
    return rows


# Cells of a line laid out in columns: separated by a tab or by three spaces or more.
_COLUMN_GAP = re.compile(r"\t+|\s{3,}")
# A table laid out in columns has a header line and at least this many rows.
MIN_ALIGNED_ROWS = 2


def _aligned_rows(paragraph: str) -> tuple[str, list[list[str]], str]:
    """Return the lines before a table laid out in columns (a PDF's, whose text keeps the
    spaces between columns), its rows (the header first), and the lines after it; no rows
    when the paragraph holds no such table. A table is a run of lines that all hold the
    same number of cells (two or more, separated by wide gaps), its header's all filled."""
    lines = paragraph.split("\n")
    cells = [[cell for cell in _COLUMN_GAP.split(line.strip()) if cell] for line in lines]
    best = (0, 0)
    start = 0
    while start < len(lines):
        width = len(cells[start])
        end = start
        while end + 1 < len(lines) and len(cells[end + 1]) == width:
            end += 1
        if width >= 2 and end - start >= MIN_ALIGNED_ROWS and end - start + 1 > best[1] - best[0]:
            best = (start, end + 1)
        start = end + 1
    if best == (0, 0):
        return paragraph, [], ""
    first, last = best
    return "\n".join(lines[:first]), cells[first:last], "\n".join(lines[last:])


def _plain_paragraphs(text: str) -> list[tuple[str, bool]]:
    """Return the paragraphs of a text, each marked when a rule line (----) sits above it."""
    paragraphs: list[tuple[str, bool]] = []
    lines: list[str] = []
    framed = after_rule = False
    for line in [*text.split("\n"), ""]:
        rule = bool(_SEPARATOR_LINE.match(line))
        if rule or not line.strip():
            if lines:
                paragraphs.append(("\n".join(lines), framed))
                lines = []
            if rule:
                after_rule = True
            continue
        if not lines:
            framed, after_rule = after_rule, False
        lines.append(line)
    return paragraphs


def _numbered_heading(paragraph: str, following: str) -> str:
    """Return the topic of a paragraph that is just "1. Topic" before prose, else ""."""
    if "\n" in paragraph.strip():
        return ""
    match = _NUMBERED.match(paragraph)
    if not match or _NUMBERED.match(following) or _BULLETED.match(following):
        return ""
    if _TERMINAL.search(paragraph.strip()) or following[:1] in (" ", "\t"):
        return ""
    topic = match.group(2).strip()
    if len(topic.split()) > MAX_NUMBERED_HEADING_WORDS or not following:
        return ""
    return topic if topic[:1].isupper() else ""


def _plain_paragraph(
    builder: StructureBuilder,
    paragraph: str,
    width: int,
    *,
    paged: bool,
    framed: bool,
    fonts: bool = False,
) -> None:
    """Add a paragraph's headings, prose, list items and amount lists. With `fonts` (a PDF
    whose fonts set its headings apart) only a lead-in ("The nightly caps are:") is read as a
    heading from the layout."""
    lines = [line.rstrip() for line in paragraph.split("\n") if line.strip()]
    prose: list[str] = []
    item: list[str] = []
    # "The nightly caps are:" over lines of "Lisbon EUR 140 - Porto EUR 120": a table.
    lead_in = ""
    pairs: list[list[str]] = []

    def close_pairs() -> None:
        if len(pairs) >= MIN_PAIRS:
            builder.table(["", _value_header(lead_in)], pairs, caption=lead_in)
        else:
            prose.extend(f"{label} {value}" for label, value in pairs)
        pairs.clear()

    def close_item() -> None:
        if item:
            builder.list_item(item[0], "\n".join(item[1:]))
            item.clear()

    def close_prose() -> None:
        if prose:
            builder.paragraph("\n".join(prose))
            prose.clear()

    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        # The first line under a rule (----) is a title, whatever its length.
        line_width = 0 if framed and index == 0 else width
        heading = _plain_heading(
            line, following, alone=len(lines) == 1, first=index == 0, paged=paged, width=line_width
        )
        if fonts and heading is not None and heading[0] != LEVEL_LEAD_IN:
            heading = None
        if heading is not None and (index == 0 or _ends_sentence(lines[index - 1])):
            close_item()
            close_pairs()
            close_prose()
            level, text = heading
            builder.heading(LEVEL_FRAMED if framed and index == 0 else level, text)
            lead_in = text.rstrip(":") if level == LEVEL_LEAD_IN else ""
            continue
        found = _value_pairs(line) if lead_in else None
        if found:
            close_item()
            close_prose()
            pairs.extend(found)
            continue
        close_pairs()
        lead_in = ""
        marker = _NUMBERED.match(line) or _BULLETED.match(line)
        topic = _numbered_heading(line, following) if following[:1].isupper() and not fonts else ""
        if marker and topic and not item:
            # "1. Ledger checkout" over a line of prose: an agenda item, not a list.
            close_prose()
            builder.heading(LEVEL_TOPIC, topic)
            continue
        if marker:
            close_item()
            close_prose()
            number = marker.group(1) if marker.re is _NUMBERED else ""
            item.extend([f"{number}." if number else "-", marker.groups()[-1]])
        elif item and (line[:1] in (" ", "\t") or line.lstrip()[:1].islower()):
            # A wrapped line of the item above it: indented, or going on mid-sentence.
            item.append(line.strip())
        else:
            close_item()
            prose.append(line)
    close_item()
    close_pairs()
    close_prose()


# A label and its amount: "Munich EUR 180", "Austin USD 210", "Standard 8 h", "Dublin €190".
_PAIR = re.compile(
    r"^(?P<label>[A-ZÀ-Þ][\w'’.&/ -]{0,40}?)\s+"
    r"(?P<value>(?:[A-Z]{3}\s?|[$€£¥])\d[\d,.]*(?:\s?[A-Z]{3})?|\d[\d,.]*\s?(?:%|[A-Z]{3}|[a-z]{1,5})?)$"
)
_PAIR_SEPARATOR = re.compile(r"\s+[-–—·|]\s+|\s*;\s*|\s{2,}")
MIN_PAIRS = 3


def _value_pairs(line: str) -> list[list[str]] | None:
    """Return the [label, amount] pairs a line of them holds, else None."""
    parts = [part.strip() for part in _PAIR_SEPARATOR.split(line.strip()) if part.strip()]
    matches = [_PAIR.match(part) for part in parts]
    if not parts or not all(matches):
        return None
    return [[match.group("label"), match.group("value")] for match in matches]


def _value_header(lead_in: str) -> str:
    """Return a column name from a lead-in: "The nightly caps are" gives "nightly cap"."""
    name = re.sub(r"^(?:the|our|your|these|current)\s+", "", lead_in.strip(), flags=re.I)
    name = re.sub(r"\s+(?:are|is|were|was|as follows|below)$", "", name, flags=re.I)
    words = name.split()
    if words and words[-1].endswith("s") and not words[-1].endswith("ss"):
        words[-1] = words[-1][:-1]
    return " ".join(words) or "value"


def _plain_heading(
    line: str, following: str, *, alone: bool, first: bool, paged: bool, width: int
) -> tuple[int, str] | None:
    """Return (level, text) when a line of plain text is a heading, else None."""
    stripped = line.strip()
    match = _MARKDOWN_HEADING.match(stripped)
    if match:
        return len(match.group(1)), match.group(2)
    words = stripped.split()
    if ": " in stripped or " - " in stripped[:3]:
        # "Attendees: Ana, Ben" is a labelled value, not a heading.
        return None
    if stripped.endswith(":") and len(words) <= MAX_LEAD_IN_WORDS and (alone or following):
        return (LEVEL_LEAD_IN, stripped[:-1]) if stripped[:1].isupper() else None
    if len(words) > MAX_PLAIN_HEADING_WORDS or _TERMINAL.search(stripped):
        return None
    if not (stripped[:1].isupper() or stripped[:1].isdigit()) or _NUMBERED.match(stripped):
        return None
    if _BULLETED.match(stripped):
        return None
    if alone:
        # A paragraph of one short unpunctuated line.
        return LEVEL_TOPIC, stripped
    if not following or not (first or paged):
        return None
    # A short line above a capitalised one: a PDF puts no blank line under its headings,
    # and notes often none under their titles.
    opens = following[:1].isupper() or _NUMBERED.match(following) or _BULLETED.match(following)
    if (width and len(stripped) > 0.6 * width) or not opens:
        return None
    return LEVEL_TOPIC, stripped


def _ends_sentence(line: str) -> bool:
    stripped = line.rstrip()
    return bool(_TERMINAL.search(stripped)) or stripped.endswith(":")
