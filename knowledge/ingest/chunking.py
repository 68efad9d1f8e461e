"""Split text into overlapping chunks that remember where they came from."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

DEFAULT_CHUNK_SIZE = 500
DEFAULT_CHUNK_OVERLAP = 50
# Paragraph, line, sentence, word, character: the coarsest that fits wins.
SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ", "")
# Segments (PDF pages) are joined with this to form the document text that offsets index.
SEGMENT_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class TextSpan:
    """A chunk of text and its [char_start, char_end) offsets in the source."""

    text: str
    char_start: int
    char_end: int


@dataclass(frozen=True)
class Chunk:
    """A chunk of a document, numbered in reading order, with its page when known."""

    ordinal: int
    text: str
    page: int | None
    char_start: int
    char_end: int


class SegmentLike(Protocol):
    """Anything with the text and page of an extracted segment."""

    @property
    def text(self) -> str: ...

    @property
    def page(self) -> int | None: ...


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
    for segment in segments:
        # Chunks never straddle two segments, so each keeps a single page number.
        for span in split_text(segment.text, chunk_size, chunk_overlap):
            chunks.append(
                Chunk(
                    ordinal=len(chunks),
                    text=span.text,
                    page=segment.page,
                    char_start=offset + span.char_start,
                    char_end=offset + span.char_end,
                )
            )
        offset += len(segment.text) + len(SEGMENT_SEPARATOR)
    return chunks


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
