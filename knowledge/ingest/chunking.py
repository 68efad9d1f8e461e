"""Split text into overlapping chunks that remember where they came from.

Prose and lists are split by LangChain's recursive algorithm within their section; a table
becomes one chunk per row (a record carrying its column headers) plus, for questions about
several rows, chunks of whole runs of rows. Every chunk keeps its section path, so the
headings above it are context for retrieval and display, never text to quote.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from knowledge.chunk_kinds import KIND_LIST, KIND_PROSE, KIND_ROW, KIND_TABLE
from knowledge.ingest.structure import section_line

DEFAULT_CHUNK_SIZE = 500
DEFAULT_CHUNK_OVERLAP = 50
# Paragraph, line, sentence, word, character: the coarsest that fits wins.
SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ", "")
# Segments (PDF pages) are joined with this to form the document text that offsets index.
SEGMENT_SEPARATOR = "\n\n"
LIST_CHUNK_FACTOR = 2
# A run of rows is chunked whole up to this many characters of records.
TABLE_CHUNK_CHARS = 1500
_NUMBERED_ITEM = re.compile(r"^(\d{1,3})\.\s")


@dataclass(frozen=True)
class TextSpan:
    """A chunk of text and its [char_start, char_end) offsets in the source."""

    text: str
    char_start: int
    char_end: int


@dataclass(frozen=True)
class Chunk:
    """A chunk of a document, numbered in reading order, with its page and section.

    `structure` holds what a kind needs beyond its text: a row's headers, cells and
    position, a run of rows, or how many items the list has.
    """

    ordinal: int
    text: str
    page: int | None
    char_start: int
    char_end: int
    section: tuple[str, ...] = ()
    kind: str = KIND_PROSE
    structure: dict[str, Any] | None = None

    @property
    def index_text(self) -> str:
        """Return what retrieval indexes: the section path (and caption), then the text."""
        return index_text(self.text, self.section, (self.structure or {}).get("caption", ""))


def index_text(text: str, section: Sequence[str], caption: str = "") -> str:
    """Return a chunk's text under its section path, as embedded and indexed for BM25."""
    path = list(section)
    if caption and (not path or path[-1] != caption):
        path.append(caption)
    line = section_line(path)
    return f"{line}\n{text}" if line else text


class SegmentLike(Protocol):
    """Anything with the text, page and structure of an extracted segment."""

    @property
    def text(self) -> str: ...

    @property
    def page(self) -> int | None: ...

    @property
    def section(self) -> tuple[str, ...]: ...

    @property
    def kind(self) -> str: ...

    @property
    def headers(self) -> tuple[str, ...]: ...

    @property
    def rows(self) -> tuple[tuple[str, ...], ...]: ...

    @property
    def caption(self) -> str: ...


def split_text(
    text: str,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
) -> list[TextSpan]:
    """Split text like LangChain's RecursiveCharacterTextSplitter, keeping offsets."""
    _check_sizes(chunk_size, chunk_overlap)
    splitter = _RecursiveSplitter(text, chunk_size, chunk_overlap)
    return [
        TextSpan(text=text[start:end], char_start=start, char_end=end)
        for start, end in splitter.split(0, len(text), SEPARATORS)
    ]


def join_segments(segments: Iterable[SegmentLike]) -> str:
    """Return the document text that chunk offsets refer to."""
    return SEGMENT_SEPARATOR.join(segment.text for segment in segments)


def chunk_segments(
    segments: Sequence[SegmentLike],
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
) -> list[Chunk]:
    """Chunk each segment separately, numbering chunks across the whole document."""
    _check_sizes(chunk_size, chunk_overlap)
    chunks: list[Chunk] = []
    offset = 0
    tables = 0  # the tables so far: each row names its table by this position
    for segment in segments:
        # Chunks never straddle two segments, so each keeps a single page and section.
        section = tuple(getattr(segment, "section", ()) or ())
        kind = getattr(segment, "kind", KIND_PROSE) or KIND_PROSE
        if kind == KIND_TABLE and getattr(segment, "rows", ()):
            pieces = _table_pieces(segment, chunk_size, chunk_overlap, tables)
            tables += 1
        else:
            structure = _list_structure(segment.text) if kind == KIND_LIST else None
            # A list is read by its numbers, so it is kept whole up to twice the chunk size.
            size = chunk_size * LIST_CHUNK_FACTOR if kind == KIND_LIST else chunk_size
            pieces = [
                (span, kind, structure) for span in split_text(segment.text, size, chunk_overlap)
            ]
        for span, piece_kind, structure in pieces:
            chunks.append(
                Chunk(
                    ordinal=len(chunks),
                    text=span.text,
                    page=segment.page,
                    char_start=offset + span.char_start,
                    char_end=offset + span.char_end,
                    section=section,
                    kind=piece_kind,
                    structure=structure,
                )
            )
        offset += len(segment.text) + len(SEGMENT_SEPARATOR)
    return chunks


def _list_structure(text: str) -> dict[str, Any]:
    """Return how many items a whole list has, so "the last step" can be told."""
    top = [line for line in text.split("\n") if line[:1] not in (" ", "\t")]
    numbers = [int(m.group(1)) for line in top if (m := _NUMBERED_ITEM.match(line))]
    return {"items": len(top), "numbered": bool(numbers), "last": max(numbers, default=len(top))}


def _table_pieces(
    segment: SegmentLike, chunk_size: int, chunk_overlap: int, table: int = 0
) -> list[tuple[TextSpan, str, dict[str, Any]]]:
    """Return a chunk per row, then chunks of consecutive rows for questions about several.
    `table` is the table's position among the document's tables (knowledge/tables/)."""
    headers = list(segment.headers)
    rows = [list(row) for row in segment.rows]
    caption = segment.caption
    lines = segment.text.split("\n")
    starts = []
    position = 0
    for line in lines:
        starts.append(position)
        position += len(line) + 1
    pieces: list[tuple[TextSpan, str, dict[str, Any]]] = []
    for number, (line, start, row) in enumerate(zip(lines, starts, rows), start=1):
        structure = {
            "headers": headers, "cells": row, "row": number, "rows": len(rows), "caption": caption,
            "table": table,
        }  # fmt: skip
        if len(line) <= chunk_size * 2:
            pieces.append((TextSpan(line, start, start + len(line)), KIND_ROW, structure))
            continue
        # A row too long to read as one record is split like prose, each piece still a row.
        for span in split_text(line, chunk_size, chunk_overlap):
            piece = TextSpan(span.text, start + span.char_start, start + span.char_end)
            pieces.append((piece, KIND_ROW, structure))
    if len(rows) < 2:
        return pieces
    first = 0
    while first < len(rows):
        last, size = first, len(lines[first])
        while last + 1 < len(rows) and size + 1 + len(lines[last + 1]) <= TABLE_CHUNK_CHARS:
            last += 1
            size += 1 + len(lines[last])
        if last > first:
            start, end = starts[first], starts[last] + len(lines[last])
            structure = {
                "headers": headers,
                "rows": rows[first : last + 1],
                "first_row": first + 1,
                "row_count": len(rows),
                "caption": caption,
                "table": table,
            }
            text = "\n".join(lines[first : last + 1])
            pieces.append((TextSpan(text, start, end), KIND_TABLE, structure))
        first = last + 1
    return pieces


def _check_sizes(chunk_size: int, chunk_overlap: int) -> None:
    if chunk_size <= 0:
        raise ValueError(f"chunk_size must be > 0, got {chunk_size}")
    if chunk_overlap < 0:
        raise ValueError(f"chunk_overlap must be >= 0, got {chunk_overlap}")
    if chunk_overlap > chunk_size:
        raise ValueError(
            f"chunk_overlap ({chunk_overlap}) is larger than chunk_size ({chunk_size})"
        )


Span = tuple[int, int]


class _RecursiveSplitter:
    """LangChain's algorithm (keep_separator="start", strip_whitespace) on offsets.

    Pieces keep their separator at the start, so every merged chunk is one
    contiguous slice of the source and its offsets are exact.
    """

    def __init__(self, text: str, chunk_size: int, chunk_overlap: int) -> None:
        self.text = text
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap

    def split(self, start: int, end: int, separators: Sequence[str]) -> list[Span]:
        piece = self.text[start:end]
        separator = separators[-1]
        remaining: Sequence[str] = ()
        for index, candidate in enumerate(separators):
            if candidate == "":
                separator = candidate
                break
            if candidate in piece:
                separator = candidate
                remaining = separators[index + 1 :]
                break

        chunks: list[Span] = []
        small: list[Span] = []
        for split_start, split_end in self._pieces(start, end, separator):
            if split_end - split_start < self.chunk_size:
                small.append((split_start, split_end))
                continue
            if small:
                chunks.extend(self._merge(small))
                small = []
            if remaining:
                chunks.extend(self.split(split_start, split_end, remaining))
            else:
                # LangChain emits an unsplittable piece as is, unstripped.
                chunks.append((split_start, split_end))
        if small:
            chunks.extend(self._merge(small))
        return chunks

    def _pieces(self, start: int, end: int, separator: str) -> list[Span]:
        if not separator:
            return [(index, index + 1) for index in range(start, end)]
        cuts = [start]
        cuts.extend(
            start + match.start()
            for match in re.finditer(re.escape(separator), self.text[start:end])
        )
        cuts.append(end)
        return [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]

    def _merge(self, splits: list[Span]) -> list[Span]:
        merged: list[Span] = []
        current: deque[Span] = deque()
        total = 0
        for split in splits:
            length = split[1] - split[0]
            if total + length > self.chunk_size and current:
                span = self._stripped(current[0][0], current[-1][1])
                if span is not None:
                    merged.append(span)
                # Drop pieces from the front until what is left fits as the overlap.
                while total > self.chunk_overlap or (
                    total + length > self.chunk_size and total > 0
                ):
                    first = current.popleft()
                    total -= first[1] - first[0]
            current.append(split)
            total += length
        if current:
            span = self._stripped(current[0][0], current[-1][1])
            if span is not None:
                merged.append(span)
        return merged

    def _stripped(self, start: int, end: int) -> Span | None:
        chunk = self.text[start:end]
        stripped = chunk.strip()
        if not stripped:
            return None
        start += len(chunk) - len(chunk.lstrip())
        return start, start + len(stripped)
