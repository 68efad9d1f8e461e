"""The structure of plain text and of a PDF's pages, read from their layout.

A .txt file and a PDF's text keep no markup: headings, numbered and bulleted lists, tables
laid out in columns or tabs and lines of labelled amounts are recognised by how the lines sit
(`plain_structure`), and fed to the `StructureBuilder` every format's parser uses
(knowledge/ingest/structure.py).
"""

from __future__ import annotations

import re

from knowledge.ingest.structure import Segment, StructureBuilder, column_name

_NUMBERED = re.compile(r"^\s*(?:step\s+)?(\d{1,3})[.):]\s+(\S.*)$", re.IGNORECASE)
_BULLETED = re.compile(r"^\s*[-*•▪‣◦]\s+(\S.*)$")
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_TERMINAL = re.compile(r"[.!?;,…\"”’)]$")
# A currency or unit in brackets that ends a title ("Budget 2026 (GBP)", "(EUR thousands)",
# "(in hours)"); not "Flour (500 g)" or "(see below)".
_TRAILING_NOTE = re.compile(
    r"\w \((?:[kKmM] )?(?:[A-Z]{3}|[£$€¥%])(?: thousands| millions)?\)$|\w \(in [^()]{1,20}\)$"
)
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
    pending = _PendingLines(builder)
    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        heading = _line_heading(lines, index, width, paged=paged, framed=framed, fonts=fonts)
        if heading is not None:
            level, text = heading
            pending.heading(LEVEL_FRAMED if framed and index == 0 else level, text)
            pending.lead_in = text.rstrip(":") if level == LEVEL_LEAD_IN else ""
            continue
        found = _value_pairs(line) if pending.lead_in else None
        if found:
            pending.add_pairs(found)
            continue
        pending.close_pairs()
        pending.lead_in = ""
        topic = _numbered_heading(line, following) if following[:1].isupper() and not fonts else ""
        pending.add_line(line, topic)
    pending.close()


def _line_heading(
    lines: list[str], index: int, width: int, *, paged: bool, framed: bool, fonts: bool
) -> tuple[int, str] | None:
    """Return (level, text) when a paragraph's line opens a section here: it is a heading, and
    the paragraph's first line or after a finished sentence."""
    line = lines[index]
    following = lines[index + 1] if index + 1 < len(lines) else ""
    # The first line under a rule (----) is a title, whatever its length.
    line_width = 0 if framed and index == 0 else width
    heading = _plain_heading(
        line, following, alone=len(lines) == 1, first=index == 0, paged=paged, width=line_width
    )
    if fonts and heading is not None and heading[0] != LEVEL_LEAD_IN:
        return None
    if heading is not None and (index == 0 or _ends_sentence(lines[index - 1])):
        return heading
    return None


class _PendingLines:
    """A paragraph's lines not yet given to the builder: prose, a list item with its wrapped
    lines, and the amount lines under a lead-in."""

    def __init__(self, builder: StructureBuilder) -> None:
        self.builder = builder
        self.prose: list[str] = []
        self.item: list[str] = []
        # "The nightly caps are:" over lines of "Lisbon EUR 140 - Porto EUR 120": a table.
        self.lead_in = ""
        self.pairs: list[list[str]] = []

    def close_pairs(self) -> None:
        if len(self.pairs) >= MIN_PAIRS:
            self.builder.table(["", _value_header(self.lead_in)], self.pairs, caption=self.lead_in)
        else:
            self.prose.extend(f"{label} {value}" for label, value in self.pairs)
        self.pairs.clear()

    def close_item(self) -> None:
        if self.item:
            self.builder.list_item(self.item[0], "\n".join(self.item[1:]))
            self.item.clear()

    def close_prose(self) -> None:
        if self.prose:
            self.builder.paragraph("\n".join(self.prose))
            self.prose.clear()

    def close(self) -> None:
        # Amounts too few for a table go back to the prose, so it is closed last.
        self.close_item()
        self.close_pairs()
        self.close_prose()

    def heading(self, level: int, text: str) -> None:
        self.close()
        self.builder.heading(level, text)

    def add_pairs(self, found: list[list[str]]) -> None:
        self.close_item()
        self.close_prose()
        self.pairs.extend(found)

    def add_line(self, line: str, topic: str) -> None:
        """Add a line that is no heading and no amounts: a list item, a line of the item
        above it, or prose; `topic` when it is "1. Topic" over a line of prose."""
        marker = _NUMBERED.match(line) or _BULLETED.match(line)
        if marker and topic and not self.item:
            # "1. Ledger checkout" over a line of prose: an agenda item, not a list.
            self.close_prose()
            self.builder.heading(LEVEL_TOPIC, topic)
            return
        if marker:
            self.close_item()
            self.close_prose()
            number = marker.group(1) if marker.re is _NUMBERED else ""
            self.item.extend([f"{number}." if number else "-", marker.groups()[-1]])
        elif self.item and (line[:1] in (" ", "\t") or line.lstrip()[:1].islower()):
            # A wrapped line of the item above it: indented, or going on mid-sentence.
            self.item.append(line.strip())
        else:
            self.close_item()
            self.prose.append(line)


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
    ended = _TERMINAL.search(stripped) and not _TRAILING_NOTE.search(stripped)
    if len(words) > MAX_PLAIN_HEADING_WORDS or ended:
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
