"""Light checks of an upload, cheap enough for the web request: no extraction happens here.

What a request may afford: the name and size, the first bytes (is a .pdf a PDF, is a .txt
text), a PDF's trailer and page tree (encrypted? how many pages?) and an Office file's (DOCX,
XLSX, PPTX) zip directory (declared sizes and ratios, never inflated). Everything else (the
text itself, a PDF without any) is found by the worker, which extracts in a sandbox (knowledge/ingest/sandbox.py).
"""

from __future__ import annotations

import codecs
import warnings
from dataclasses import dataclass
from typing import BinaryIO

from knowledge.ingest.extract import decode_text, extract, open_pdf
from knowledge.ingest.extracted import (
    CONTENT_MISMATCH,
    CORRUPT_FILE,
    NO_TEXT,
    OCR_DISABLED,
    ExtractionError,
)
from knowledge.ingest.filetypes import (
    IMAGE_FORMATS,
    KIND_IMAGE,
    KIND_PDF,
    OFFICE_KINDS,
    file_extension,
    file_kind,
)
from knowledge.ingest.ocr import MAX_IMAGE_PIXELS
from knowledge.ingest.office import check_zip_archive

TOO_MANY_PAGES = "too_many_pages"
IMAGE_TOO_LARGE = "image_too_large"
# Text files up to this size are extracted whole in the request (cheap), so one without any
# text is refused at once; larger ones are sniffed from their first bytes.
SMALL_TEXT_BYTES = 256 * 1024
SNIFF_BYTES = 64 * 1024
_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


@dataclass(frozen=True)
class FileFacts:
    """What the light checks learnt of a file."""

    kind: str
    pages: int | None = None


def inspect_upload(
    stream: BinaryIO,
    file_name: str,
    *,
    size: int,
    max_pdf_pages: int,
    max_docx_bytes: int,
    ocr_enabled: bool = True,
) -> FileFacts:
    """Check an upload without extracting it; raise ExtractionError with a stable code."""
    kind = file_kind(file_name)
    stream.seek(0)
    if kind == KIND_PDF:
        return FileFacts(kind=kind, pages=_inspect_pdf(stream, max_pdf_pages))
    if kind == KIND_IMAGE:
        if not ocr_enabled:
            raise ExtractionError(
                OCR_DISABLED,
                f"{file_name!r} is an image, and reading images (OCR) is switched off.",
            )
        return FileFacts(kind=kind, pages=_inspect_image(stream, file_name, max_pdf_pages))
    if kind in OFFICE_KINDS:
        check_zip_archive(stream, max_uncompressed_bytes=max_docx_bytes, kind=kind)
        return FileFacts(kind=kind)
    if size <= SMALL_TEXT_BYTES:
        extract(stream.read(), file_name)  # raises no_text, content_mismatch
        return FileFacts(kind=kind)
    sample = stream.read(SNIFF_BYTES)
    if not sample.startswith(_BOMS):
        # Cut at a line end so a multi-byte character is not split; the decoder then judges
        # the sample as it will judge the whole file.
        sample = sample[: sample.rfind(b"\n") + 1] or sample
    text, _ = decode_text(sample)
    if not text.strip():
        raise ExtractionError(NO_TEXT, f"{file_name!r} starts with {len(sample)} blank bytes.")
    return FileFacts(kind=kind)


def _inspect_pdf(stream: BinaryIO, max_pages: int) -> int:
    reader = open_pdf(stream)
    try:
        pages = len(reader.pages)
    except Exception as exc:  # noqa: BLE001 - pypdf raises many types on bad input
        raise ExtractionError(CORRUPT_FILE, f"The PDF could not be read: {exc}") from exc
    if pages == 0:
        raise ExtractionError(CORRUPT_FILE, "The PDF has no readable pages.")
    if pages > max_pages:
        raise ExtractionError(TOO_MANY_PAGES, f"The PDF has {pages} pages (limit {max_pages}).")
    return pages


def _inspect_image(stream: BinaryIO, file_name: str, max_pages: int) -> int:
    """Check an image's headers (format, each frame's size, frame count) without decoding it.

    Frames are counted by seeking, at most `max_pages` + 1 of them: a TIFF's frame count is
    a walk down a chain of directories a hostile file may make very long.
    """
    from PIL import Image, UnidentifiedImageError

    extension = file_extension(file_name)
    formats = [IMAGE_FORMATS[extension]]
    frames = 0
    try:
        with warnings.catch_warnings():
            # Sizes between Pillow's warning and its error are judged below, by our own cap.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(stream, formats=formats)
        with image:
            while frames <= max_pages:
                try:
                    image.seek(frames)
                except EOFError:
                    break
                width, height = image.size
                if width * height > MAX_IMAGE_PIXELS:
                    raise ExtractionError(
                        IMAGE_TOO_LARGE,
                        f"The image is {width} × {height} pixels "
                        f"(limit {MAX_IMAGE_PIXELS:,} pixels).",
                    )
                frames += 1
    except ExtractionError:
        raise
    except Image.DecompressionBombError as exc:
        raise ExtractionError(IMAGE_TOO_LARGE, f"{file_name!r} is too large an image.") from exc
    except UnidentifiedImageError as exc:
        raise ExtractionError(
            CONTENT_MISMATCH, f"The file has a .{extension} name but is not such an image."
        ) from exc
    except Exception as exc:  # noqa: BLE001 - Pillow raises many types on bad input
        raise ExtractionError(CORRUPT_FILE, f"The image could not be read: {exc}") from exc
    if frames > max_pages:
        raise ExtractionError(TOO_MANY_PAGES, f"The image has over {max_pages} pages.")
    if frames == 0:
        raise ExtractionError(CORRUPT_FILE, "The image has no frame.")
    return frames
