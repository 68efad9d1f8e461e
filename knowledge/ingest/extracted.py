"""What extraction returns and how it fails, shared by every extractor: the text of a file
(ExtractedText) and ExtractionError with its stable codes.

`extract.py` picks the extractor for a file's kind and holds the plain-text, PDF, image and
CSV ones; `office.py` holds the Office ones. Both build on this module, so neither needs the
other's internals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from knowledge.ingest.structure import Segment

# Stable error codes: callers store and match on these, so never rename one.
CONTENT_MISMATCH = "content_mismatch"
CORRUPT_FILE = "corrupt_file"
ENCRYPTED_PDF = "encrypted_pdf"
ZIP_BOMB = "zip_bomb"
NO_TEXT = "no_text"
UNSUPPORTED_TYPE = "unsupported_type"
OCR_DISABLED = "ocr_disabled"


@dataclass(frozen=True)
class ExtractedText:
    """The text of one file, in reading order."""

    segments: list[Segment] = field(default_factory=list)
    encoding: str | None = None
    # The pages read by OCR, and those that could not be read: {"page", "reason", "message"}.
    ocr_pages: list[int] = field(default_factory=list)
    unreadable_pages: list[dict] = field(default_factory=list)
    # Where OCR read each line of a page: {"<page>": [[left, top, right, bottom, text], ...]}.
    ocr_boxes: dict[str, list] = field(default_factory=dict)

    def to_json(self) -> dict:
        """Return a JSON-able dict (the extraction sandbox sends its result as JSON)."""
        return {
            "segments": [segment.to_json() for segment in self.segments],
            "encoding": self.encoding,
            "ocr_pages": self.ocr_pages,
            "unreadable_pages": self.unreadable_pages,
            "ocr_boxes": self.ocr_boxes,
        }

    @classmethod
    def from_json(cls, data: dict) -> ExtractedText:
        """Return the result `to_json` described."""
        return cls(
            segments=[Segment.from_json(segment) for segment in data["segments"]],
            encoding=data.get("encoding"),
            ocr_pages=list(data.get("ocr_pages") or []),
            unreadable_pages=list(data.get("unreadable_pages") or []),
            ocr_boxes=dict(data.get("ocr_boxes") or {}),
        )

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
