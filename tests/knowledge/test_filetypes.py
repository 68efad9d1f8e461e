"""Supported extensions, extraction kinds and safe upload names."""

from __future__ import annotations

import pytest

from knowledge.ingest.filetypes import (
    CODE_EXTENSIONS,
    DOCUMENT_EXTENSIONS,
    SUPPORTED_EXTENSIONS,
    UnsupportedFileType,
    file_kind,
    safe_file_name,
)


def test_there_are_15_document_and_27_code_extensions() -> None:
    assert len(DOCUMENT_EXTENSIONS) == 15
    assert len(CODE_EXTENSIONS) == 27
    assert SUPPORTED_EXTENSIONS == DOCUMENT_EXTENSIONS | CODE_EXTENSIONS


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("report.pdf", "pdf"),
        ("Report.PDF", "pdf"),
        ("letter.docx", "docx"),
        ("notes.md", "markdown"),
        ("notes.markdown", "markdown"),
        ("page.html", "html"),
        ("page.htm", "html"),
        ("table.csv", "csv"),
        ("readme.txt", "text"),
        ("scan.png", "image"),
        ("Photo.JPG", "image"),
        ("pages.tiff", "image"),
        ("main.py", "code"),
        ("config.yml", "code"),
        ("analysis.r", "code"),
    ],
)
def test_file_kind(name: str, kind: str) -> None:
    assert file_kind(name) == kind


@pytest.mark.parametrize("name", ["clip.mp4", "Makefile", "archive.tar.gz", ".pdf", ""])
def test_file_kind_rejects_unknown_or_missing_extensions(name: str) -> None:
    with pytest.raises(UnsupportedFileType):
        file_kind(name)


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("../../etc/passwd.txt", "passwd.txt"),
        ("C:\\x\\y.txt", "y.txt"),
        ("/var/www/../secret.md", "secret.md"),
        ("repo\x00rt.pdf", "report.pdf"),
        ("...hidden.csv", "hidden.csv"),
        ("  Marie Curie notes.docx  ", "Marie Curie notes.docx"),
        ("what?is<this>.py", "what_is_this_.py"),
        ("trailing dots.txt...", "trailing dots.txt"),
    ],
)
def test_safe_file_name_strips_paths_and_dangerous_characters(name: str, safe: str) -> None:
    assert safe_file_name(name) == safe


def test_safe_file_name_limits_length_and_keeps_the_extension() -> None:
    safe = safe_file_name("a" * 500 + ".markdown")

    assert len(safe) == 200
    assert safe.endswith("a.markdown")


@pytest.mark.parametrize(
    "name", ["../../etc/passwd", "C:\\x\\y.exe", "..", ".", "", "\x00", "notes.", ".txt"]
)
def test_safe_file_name_rejects_names_without_a_supported_extension(name: str) -> None:
    with pytest.raises(ValueError):
        safe_file_name(name)
