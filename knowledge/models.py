"""Knowledge bases, their documents, and the three stores over their chunks."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models
from pgvector.django import VectorField

from knowledge.chunk_kinds import KIND_LIST, KIND_PROSE, KIND_ROW, KIND_TABLE

EMBEDDING_DIMENSIONS = 384


class KnowledgeBase(models.Model):
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="knowledge_bases"
    )
    team = models.ForeignKey(
        Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="knowledge_bases"
    )
    # BM25 statistics over this KB's chunks, kept in step with the chunks in the same transaction.
    chunk_count = models.PositiveIntegerField(default=0)
    token_total = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="kb_unique_name_per_owner"),
        ]

    def __str__(self) -> str:
        return self.name


class Document(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        EXTRACTING = "extracting"
        CHUNKING = "chunking"
        EMBEDDING = "embedding"
        INDEXING = "indexing"
        READY = "ready"
        FAILED = "failed"
        CANCELLED = "cancelled"

    ACTIVE_STATUSES = (
        Status.QUEUED,
        Status.EXTRACTING,
        Status.CHUNKING,
        Status.EMBEDDING,
        Status.INDEXING,
    )

    knowledge_base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="documents"
    )
    file_name = models.CharField(max_length=255)
    # An id from the source collection (a BEIR `_id`), for documents ingested from a corpus;
    # a web page's URL.
    external_id = models.CharField(max_length=2000, blank=True, default="")
    # The web sources of the knowledge base that reach this page (none: an upload). A page
    # leaves the knowledge base when the last of them stops reaching it or is deleted.
    web_sources = models.ManyToManyField(
        "knowledge.WebSource", blank=True, related_name="documents"
    )
    # Stored by content hash, never by name: two files with one name never overwrite each other.
    stored_path = models.CharField(max_length=300)
    sha256 = models.CharField(max_length=64)
    size = models.BigIntegerField()
    file_type = models.CharField(max_length=16)
    encoding = models.CharField(max_length=40, blank=True, default="")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    cancel_requested = models.BooleanField(default=False)
    error = models.TextField(blank=True, default="")
    error_code = models.CharField(max_length=40, blank=True, default="")
    page_count = models.PositiveIntegerField(null=True, blank=True)
    # The pages read by OCR, and those no reading could turn into text, each
    # {"page", "reason", "message"} (knowledge/ingest/ocr.py).
    ocr_pages = models.JSONField(default=list, blank=True)
    unreadable_pages = models.JSONField(default=list, blank=True)
    # Where OCR read each line of each page it read: {"<page>": [[left, top, right, bottom,
    # text], ...]}, fractions of the page; the viewer marks a cited passage on the scan.
    ocr_boxes = models.JSONField(default=dict, blank=True)
    chunk_count = models.PositiveIntegerField(default=0)
    entity_count = models.PositiveIntegerField(default=0)
    edge_count = models.PositiveIntegerField(default=0)
    job_id = models.BigIntegerField(null=True, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    indexed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["knowledge_base", "sha256"], name="document_unique_content_per_kb"
            ),
        ]
        indexes = [models.Index(fields=["knowledge_base", "status"])]

    def __str__(self) -> str:
        return self.file_name

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE_STATUSES


class Chunk(models.Model):
    class Kind(models.TextChoices):
        PROSE = KIND_PROSE
        LIST = KIND_LIST
        ROW = KIND_ROW, "table row"
        TABLE = KIND_TABLE, "table rows"

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    knowledge_base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="chunks"
    )
    ordinal = models.PositiveIntegerField()
    text = models.TextField()
    text_md5 = models.CharField(max_length=32)
    page = models.PositiveIntegerField(null=True, blank=True)
    char_start = models.PositiveIntegerField()
    char_end = models.PositiveIntegerField()
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)
    bm25_length = models.PositiveIntegerField()
    # The headings the chunk sits under, outermost first: context, never text to quote.
    section = models.JSONField(default=list, blank=True)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.PROSE)
    # A row's headers, cells and position; a run of rows; a list's item count.
    structure = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["document_id", "ordinal"]
        constraints = [
            models.UniqueConstraint(fields=["document", "ordinal"], name="chunk_unique_ordinal"),
        ]
        # Dense search goes through one partial HNSW index per large knowledge base
        # (knowledge/vector_index.py), built outside migrations; a small KB is searched
        # exactly through the knowledge-base index.
        # (knowledge_base, id): also the chunks after a KB's term-block watermark, as a range.
        indexes = [models.Index(fields=["knowledge_base", "id"], name="chunk_kb_id")]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.ordinal}"


class Table(models.Model):
    """A table of a document kept as data (knowledge/tables/): its typed columns and what
    normalising it dropped; its rows are `TableRow`s. Written and deleted with the document's
    chunks (knowledge/index.py)."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="tables")
    knowledge_base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="tables"
    )
    # The table's position among the document's tables.
    ordinal = models.PositiveIntegerField()
    caption = models.TextField(blank=True, default="")
    section = models.JSONField(default=list, blank=True)
    page = models.PositiveIntegerField(null=True, blank=True)
    # [{"name", "type": number|date|duration|text, "unit"}], in column order.
    columns = models.JSONField(default=list)
    row_count = models.PositiveIntegerField(default=0)
    # Rows and marks normalising left out: [{"row", "reason", "cells"}].
    dropped = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["document_id", "ordinal"]
        constraints = [
            models.UniqueConstraint(fields=["document", "ordinal"], name="table_unique_ordinal"),
        ]
        indexes = [models.Index(fields=["knowledge_base", "id"], name="table_kb_id")]

    def __str__(self) -> str:
        return f"{self.document_id}/table {self.ordinal + 1}"


class TableRow(models.Model):
    """One data row of a table: its cells as written, their normalised values (a number, a
    length of time in seconds, "YYYY-MM-DD" with "xx" for unknown parts, text, or null), and
    the row chunk that holds it, which answers cite."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="rows")
    # The row's number in its table as written (1-based; dropped rows leave gaps).
    number = models.PositiveIntegerField()
    chunk = models.ForeignKey(
        Chunk, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    cells = models.JSONField(default=list)
    values = models.JSONField(default=list)

    class Meta:
        ordering = ["table_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="tablerow_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.table_id}#{self.number}"


class Posting(models.Model):
    """One BM25 posting: how often a term occurs in a chunk."""

    chunk = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="postings")
    knowledge_base = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="+")
    term = models.CharField(max_length=100)
    tf = models.PositiveIntegerField()
    # The chunk's BM25 length, copied here so scoring is an index-only scan of this table.
    chunk_length = models.PositiveIntegerField()

    class Meta:
        # Ordered by chunk within a term and KB, so the postings written after a KB's term
        # blocks (chunk_id > watermark, knowledge/term_blocks.py) are one range of it.
        indexes = [
            models.Index(
                fields=["term", "knowledge_base", "chunk"],
                include=["tf", "chunk_length"],
                name="posting_term_kb_chunk",
            )
        ]
        constraints = [
            models.UniqueConstraint(fields=["chunk", "term"], name="posting_unique_term"),
        ]


class TermStat(models.Model):
    """A term's statistics in one knowledge base, kept in step with its postings.

    `df` is how many chunks hold the term (BM25's document frequency). `max_impact` is the
    largest BM25 tf factor, tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)), of any of its
    postings when the KB's average chunk length was `impact_avgdl`; at another average A the
    factor is at most max_impact x max(1, A / impact_avgdl). It only widens while rows come
    and go, so the bound stays safe without a rescan (knowledge/retrieval/bm25.py).
    """

    pk = models.CompositePrimaryKey("knowledge_base_id", "term")
    knowledge_base = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="+")
    term = models.CharField(max_length=100)
    df = models.PositiveIntegerField()
    max_impact = models.FloatField()
    impact_avgdl = models.FloatField()


class TermBlockSet(models.Model):
    """A large KB's postings copied into one row per term (`TermBlock`), as of `watermark`.

    BM25 reads a common term's postings as three arrays instead of one row each; postings
    of chunks after the watermark are read from `Posting` (knowledge/term_blocks.py).
    """

    knowledge_base = models.OneToOneField(
        KnowledgeBase, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    # Every chunk of the KB with an id up to this one was committed when the copy was made.
    watermark = models.BigIntegerField()
    # The KB's chunks up to the watermark at the copy, to tell how stale the copy is.
    chunk_count = models.PositiveIntegerField()
    built_at = models.DateTimeField()
    build_seconds = models.FloatField(default=0.0)


class TermBlock(models.Model):
    """One term's postings in one KB, up to its `TermBlockSet`'s watermark, as arrays: chunk
    ids (big-endian int8, ascending), tfs and chunk lengths (big-endian int4), position by
    position."""

    pk = models.CompositePrimaryKey("knowledge_base_id", "term")
    # The primary key's index leads with the KB: a second index would only tempt the planner
    # into reading every term of a KB to find a query's few.
    knowledge_base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    term = models.CharField(max_length=100)
    df = models.PositiveIntegerField()
    chunk_ids = models.BinaryField()
    tfs = models.BinaryField()
    lengths = models.BinaryField()


class Entity(models.Model):
    knowledge_base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="entities"
    )
    name = models.CharField(max_length=200)

    class Meta:
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(fields=["knowledge_base", "name"], name="entity_unique_name"),
        ]

    def __str__(self) -> str:
        return self.name


class ChunkEntity(models.Model):
    """An edge of the entity graph: a chunk mentions an entity `weight` times."""

    chunk = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="entity_edges")
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="chunk_edges")
    knowledge_base = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="+")
    weight = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["chunk", "entity"], name="edge_unique_pair"),
        ]
        indexes = [models.Index(fields=["entity", "chunk"], name="edge_entity_chunk")]


class WebSource(models.Model):
    """Web pages kept in sync with a knowledge base: a start URL, crawled on one site to a depth,
    re-synced every `every_minutes` (knowledge/web_sources.py). Its pages are its documents."""

    class Status(models.TextChoices):
        IDLE = "idle"
        QUEUED = "queued"
        SYNCING = "syncing"
        FAILED = "failed"

    knowledge_base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="web_sources"
    )
    url = models.URLField(max_length=2000)
    depth = models.PositiveSmallIntegerField(default=1)
    max_pages = models.PositiveIntegerField(default=50)
    every_minutes = models.PositiveIntegerField(default=0, help_text="0: only when asked")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    # The sync in progress or the last one: pages done and found, and what changed.
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    sync_started_at = models.DateTimeField(null=True, blank=True)
    last_synced_at = models.DateTimeField(null=True, blank=True)
    next_sync_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.url
