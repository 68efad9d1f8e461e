"""The unit every store returns: one chunk with its store's own score."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from knowledge.ingest.chunking import index_text
from knowledge.models import Chunk
from knowledge.retrieval.db import retrieval_alias

SOURCE_VECTOR = "vector"
SOURCE_BM25 = "bm25"
SOURCE_GRAPH = "graph"
SOURCE_WEB = "web"
SOURCE_TABLE = "table"


@dataclass
class Hit:
    """A retrieved passage. `score` is on its own store's scale; only `rerank_score` compares."""

    text: str
    source_type: str
    score: float
    chunk_id: int | None = None
    document_id: int | None = None
    knowledge_base_id: int | None = None
    file_name: str = ""
    page: int | None = None
    url: str = ""
    title: str = ""
    external_id: str = ""
    rank: int = 0
    fusion_score: float = 0.0
    rerank_score: float | None = None
    found_by: list[str] = field(default_factory=list)
    # The headings above the passage, what it is (prose, list, row, table) and its structure.
    section: list[str] = field(default_factory=list)
    kind: str = ""
    structure: dict | None = None

    @property
    def text_md5(self) -> str:
        return hashlib.md5(self.text.encode()).hexdigest()

    @property
    def index_text(self) -> str:
        """Return the passage under its section path: what was embedded, and what is reranked."""
        return index_text(self.text, self.section, (self.structure or {}).get("caption", ""))

    def to_state(self) -> dict:
        """Return a JSON-able dict for pipeline state and run records."""
        return {
            "chunk_id": self.chunk_id,
            "document_id": self.document_id,
            "knowledge_base_id": self.knowledge_base_id,
            "text": self.text,
            "source_type": self.source_type,
            "score": self.score,
            "file_name": self.file_name,
            "page": self.page,
            "url": self.url,
            "title": self.title,
            "external_id": self.external_id,
            "rank": self.rank,
            "fusion_score": self.fusion_score,
            "rerank_score": self.rerank_score,
            "found_by": list(self.found_by),
            "section": list(self.section),
            "kind": self.kind,
            "structure": self.structure,
        }

    @classmethod
    def from_state(cls, data: dict) -> Hit:
        return cls(**{key: data.get(key) for key in cls.__dataclass_fields__ if key in data})


def hit_ref(hit: dict) -> int | str:
    """Return what names a hit in a run's events: its chunk id, else its URL (a web result)."""
    chunk_id = hit.get("chunk_id")
    return chunk_id if chunk_id is not None else (hit.get("url") or hit.get("title") or "")


def hydrate(scored: list[tuple[int, float]], source_type: str) -> list[Hit]:
    """Load chunk text and document fields for (chunk_id, score) pairs, keeping their order."""
    if not scored:
        return []
    rows = {
        row["id"]: row
        for row in Chunk.objects.using(retrieval_alias())
        .filter(id__in=[chunk_id for chunk_id, _ in scored])
        .values(
            "id",
            "text",
            "page",
            "document_id",
            "knowledge_base_id",
            "document__file_name",
            "document__external_id",
            "section",
            "kind",
            "structure",
        )
    }
    hits = []
    for rank, (chunk_id, score) in enumerate(scored, start=1):
        row = rows.get(chunk_id)
        if row is None:  # deleted between the search and this read
            continue
        hits.append(
            Hit(
                text=row["text"],
                source_type=source_type,
                score=float(score),
                chunk_id=chunk_id,
                document_id=row["document_id"],
                knowledge_base_id=row["knowledge_base_id"],
                file_name=row["document__file_name"],
                page=row["page"],
                external_id=row["document__external_id"],
                rank=rank,
                found_by=[source_type],
                section=list(row["section"] or []),
                kind=row["kind"],
                structure=row["structure"],
            )
        )
    return hits
