"""Supported upload file types and safe file names."""

from __future__ import annotations

import re
import unicodedata

# Images are read by OCR (knowledge/ingest/ocr.py); Pillow opens each with this plugin only, so
# a file is what its extension claims.
IMAGE_FORMATS: dict[str, str] = {
    "png": "PNG",
    "jpg": "JPEG",
    "jpeg": "JPEG",
    "tif": "TIFF",
    "tiff": "TIFF",
}
IMAGE_EXTENSIONS: frozenset[str] = frozenset(IMAGE_FORMATS)
DOCUMENT_EXTENSIONS: frozenset[str] = (
    frozenset({"pdf", "docx", "xlsx", "pptx", "md", "markdown", "html", "htm", "csv", "txt"})
    | IMAGE_EXTENSIONS
)
CODE_EXTENSIONS: frozenset[str] = frozenset(
    {
        "py", "js", "ts", "jsx", "tsx", "java", "c", "cpp", "h", "hpp", "cs", "go",
        "rs", "rb", "php", "swift", "kt", "scala", "sh", "sql", "r", "json", "yaml",
        "yml", "xml", "css", "toml",
    }
)  # fmt: skip
SUPPORTED_EXTENSIONS: frozenset[str] = DOCUMENT_EXTENSIONS | CODE_EXTENSIONS

KIND_PDF = "pdf"
KIND_DOCX = "docx"
KIND_XLSX = "xlsx"
KIND_PPTX = "pptx"
# The Office Open XML kinds: zip archives, checked as such before they are opened, and the
# member that tells each from the others.
OFFICE_KINDS: dict[str, str] = {
    KIND_DOCX: "word/document.xml",
    KIND_XLSX: "xl/workbook.xml",
    KIND_PPTX: "ppt/presentation.xml",
}
KIND_MARKDOWN = "markdown"
KIND_HTML = "html"
KIND_CSV = "csv"
KIND_TEXT = "text"
KIND_CODE = "code"
KIND_IMAGE = "image"

_DOCUMENT_KINDS: dict[str, str] = {
    "pdf": KIND_PDF,
    "docx": KIND_DOCX,
    "xlsx": KIND_XLSX,
    "pptx": KIND_PPTX,
    "md": KIND_MARKDOWN,
    "markdown": KIND_MARKDOWN,
    "html": KIND_HTML,
    "htm": KIND_HTML,
    "csv": KIND_CSV,
    "txt": KIND_TEXT,
    **dict.fromkeys(IMAGE_EXTENSIONS, KIND_IMAGE),
}

MAX_FILE_NAME_LENGTH = 200

# Characters that are unsafe or confusing in a file name on some platform.
_UNSAFE_CHARS = re.compile(r'[<>:"|?*\x00-\x1f\x7f]')


class UnsupportedFileType(ValueError):
    """The file name has no extension or one that is not supported."""

    code = "unsupported_type"


def file_extension(file_name: str) -> str:
    """Return the lowercased extension of a file name, or "" when it has none."""
    base = re.split(r"[\\/]", file_name)[-1].lstrip(".")
    if "." not in base:
        return ""
    return base.rsplit(".", 1)[1].strip().lower()


def file_kind(file_name: str) -> str:
    """Return the extraction kind for a file name, raising UnsupportedFileType."""
    extension = file_extension(file_name)
    if extension not in SUPPORTED_EXTENSIONS:
        raise UnsupportedFileType(_unsupported_message(file_name, extension))
    return _DOCUMENT_KINDS.get(extension, KIND_CODE)


def safe_file_name(name: str) -> str:
    """Return the base name of an upload, cleaned and cut to 200 characters."""
    # NFC so that the length limit and the extension check see composed characters.
    cleaned = unicodedata.normalize("NFC", name).replace("\x00", "")
    # Browsers on Windows may send the full client path; both separators count.
    base = re.split(r"[\\/]", cleaned)[-1]
    base = _UNSAFE_CHARS.sub("_", base)
    base = re.sub(r"\s+", " ", base).strip()
    # Leading dots would make a hidden file or a ".." component; trailing dots and
    # spaces are silently dropped by Windows and would change the extension.
    base = base.lstrip(". ").rstrip(". ")
    if "." not in base:
        raise UnsupportedFileType(_unsupported_message(name, ""))
    stem, extension = base.rsplit(".", 1)
    stem = stem.rstrip(". ")
    if extension.lower() not in SUPPORTED_EXTENSIONS:
        raise UnsupportedFileType(_unsupported_message(name, extension.lower()))
    if not stem:
        raise UnsupportedFileType(f"File name {name!r} has an extension but no name.")
    room = MAX_FILE_NAME_LENGTH - len(extension) - 1
    return f"{stem[:room].rstrip('. ')}.{extension}"


def _unsupported_message(file_name: str, extension: str) -> str:
    if not extension:
        return f"File name {file_name!r} has no extension."
    return f"File type .{extension} is not supported."
