"""A knowledge base of real files of seven types, each with its own upload time, for the
metadata-filter tests (tests/knowledge/test_filters.py, the API and the portal tests)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.models import Document
from tests.fixtures.make_files import build_pdf

# The document every filter test tries to leak: each store ranks it first for its own words.
TARGET = "apollo.pdf"
TARGET_QUERY = (
    "Margaret Hamilton wrote the Apollo Guidance Computer flight software at MIT for NASA"
)


@dataclass(frozen=True)
class Spec:
    name: str
    text: str
    uploaded: datetime


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


SPECS = [
    Spec(
        "apollo.pdf",
        TARGET_QUERY + ". The lunar module landed because priority scheduling shed low "
        "priority tasks when the guidance computer overloaded.",
        _at("2024-01-10T09:00:00"),
    ),
    Spec(
        "voyager.docx",
        "The Voyager Golden Record carries sounds and greetings from Earth. Carl Sagan chose "
        "its music for NASA, and both probes have crossed the heliopause.",
        _at("2024-03-05T12:00:00"),
    ),
    Spec(
        "hubble.md",
        "# Hubble Space Telescope\n\nAstronauts repaired the mirror of the Hubble Space "
        "Telescope for NASA with corrective optics in 1993.",
        _at("2024-05-20T15:00:00"),
    ),
    Spec(
        "webb.markdown",
        "# James Webb Space Telescope\n\nThe James Webb Space Telescope observes infrared "
        "light behind a sunshield near the second Lagrange point for NASA and ESA.",
        _at("2024-06-02T08:00:00"),
    ),
    Spec(
        "cassini.html",
        "Cassini Huygens orbited Saturn for NASA and ESA and dropped the Huygens probe onto "
        "the moon Titan.",
        _at("2024-07-01T10:00:00"),
    ),
    Spec(
        "juno.csv",
        "Juno measured the gravity and magnetic field of Jupiter for NASA from a polar orbit.",
        _at("2024-09-15T11:00:00"),
    ),
    Spec(
        "rosetta.txt",
        "Rosetta chased comet Churyumov Gerasimenko for ESA and released the Philae lander "
        "onto its icy surface.",
        _at("2024-11-30T23:30:00"),
    ),
]


def _docx(text: str) -> bytes:
    import docx

    document = docx.Document()
    document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _file_bytes(spec: Spec) -> bytes:
    extension = spec.name.rsplit(".", 1)[1]
    if extension == "pdf":
        # One sentence per line, as a PDF sets text.
        return build_pdf([[line.strip() + "." for line in spec.text.split(".") if line.strip()]])
    if extension == "docx":
        return _docx(spec.text)
    if extension == "html":
        return (
            f"<!doctype html><html><head><title>Cassini</title></head><body><p>{spec.text}</p>"
            "</body></html>"
        ).encode()
    if extension == "csv":
        return f"mission,finding\nJuno,{spec.text}\n".encode()
    return spec.text.encode()


def ingest_filter_corpus(kb, user=None) -> dict[str, Document]:
    """Ingest the seven files into `kb`, set their upload times, return them by file name."""
    summary = documents_ingest_inline(
        kb=kb, items=[TextItem(spec.name, _file_bytes(spec)) for spec in SPECS], user=user
    )
    assert summary["ready"] == len(SPECS), summary
    documents = {}
    for spec in SPECS:
        document = Document.objects.get(knowledge_base=kb, file_name=spec.name)
        # The upload time is set by the database on insert; the tests need known ones.
        Document.objects.filter(id=document.id).update(created_at=spec.uploaded)
        document.refresh_from_db()
        documents[spec.name] = document
    return documents


def passes(document: Document, filters: dict) -> bool:
    """Tell, in plain Python, whether a document passes a filter (the tests' oracle)."""
    if filters.get("documents") and document.id not in filters["documents"]:
        return False
    if filters.get("file_types"):
        wanted = {kind.lower().lstrip(".") for kind in filters["file_types"]}
        for same in ({"md", "markdown"}, {"html", "htm"}):
            if wanted & same:
                wanted |= same
        if document.file_type.lower() not in wanted:
            return False
    after, before = filters.get("uploaded_after"), filters.get("uploaded_before")
    if after and document.created_at < _bound(after, end=False):
        return False
    if before and document.created_at >= _bound(before, end=True):
        return False
    return True


def _bound(text: str, *, end: bool) -> datetime:
    from datetime import timedelta

    if len(text) == 10:  # a date: midnight UTC, and an upper bound includes the whole day
        day = datetime.fromisoformat(text).replace(tzinfo=UTC)
        return day + timedelta(days=1) if end else day
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
