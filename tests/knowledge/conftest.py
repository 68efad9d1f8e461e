from __future__ import annotations

from pathlib import Path

import pytest

FILES = Path(__file__).resolve().parent.parent / "fixtures" / "files"


def is_image(path: Path) -> bool:
    """Whether a sample is an image: read by OCR, seconds each, so most corpora leave them out
    (tests/knowledge/test_ocr.py and test_extract.py read them)."""
    from knowledge.ingest.filetypes import IMAGE_EXTENSIONS

    return path.suffix.lstrip(".").lower() in IMAGE_EXTENSIONS


@pytest.fixture
def kb(user):
    from knowledge.services import kb_create

    return kb_create(owner=user, name="Research")


@pytest.fixture
def upload(auth_client, kb):
    """Upload files (paths or (name, bytes) pairs) into `kb` and return the response."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    def _upload(*files, kb_id=None, client=None):
        payload = []
        for item in files:
            if isinstance(item, (str, Path)):
                path = FILES / item if not Path(item).is_absolute() else Path(item)
                payload.append(SimpleUploadedFile(path.name, path.read_bytes()))
            else:
                name, data = item
                payload.append(SimpleUploadedFile(name, data))
        return (client or auth_client).post(
            f"/api/knowledge-bases/{kb_id or kb.id}/documents",
            {"file": payload},
            format="multipart",
        )

    return _upload


def run_ingestion(document_id: int):
    """Run the ingestion job body for a document in this process."""
    from knowledge.ingestion import document_ingest_run

    return document_ingest_run(document_id=document_id)
