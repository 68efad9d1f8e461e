"""Web pages kept in sync: crawl one site from a start URL, index its pages, and re-sync them.

A sync fetches the start page and the same-site pages it links to, breadth first, down to the
source's depth and up to its page cap, honouring robots.txt. Each page is a document of the
knowledge base (its URL as `external_id`): a page whose bytes changed is indexed again, a page
that answers 404 or 410 (or is no longer linked) is removed, the rest are left alone. Each sync
writes its progress and counts on the source; a periodic task re-syncs sources that are due.

The pages are fetched, and every URL checked against server-side request forgery, by
knowledge/web_fetch.py.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from adrag_site import jobs
from adrag_site.errors import ServiceError
from knowledge.ingestion import document_ingest_run
from knowledge.models import Document, KnowledgeBase, WebSource
from knowledge.services import document_delete, document_upload
from knowledge.web_fetch import (
    USER_AGENT,
    FetchError,
    check_url,
    fetch,
    robots_rules,
    same_site_links,
)

logger = logging.getLogger(__name__)

MIN_EVERY_MINUTES = 15
# Fetches of one sync, failures and robots refusals included, are capped at this many times
# its page cap; a sync running longer than WEB_SYNC_MAX_SECONDS stops where it is.
ATTEMPTS_PER_PAGE = 3
# A sync that has run this long without ending belongs to a worker that died.
STUCK_SYNC = timedelta(hours=1)
MAX_DEPTH = 3
# Skipped links listed in a sync's report, at most (all are counted).
SKIPPED_LISTED = 50


def page_file_name(url: str, kind: str) -> str:
    """Return a document name for a page: its host and path, with the page's extension."""
    parts = urlsplit(url)
    path = re.sub(r"[^A-Za-z0-9._/-]+", "-", parts.path.strip("/")) or "index"
    name = f"{parts.hostname}/{path}".replace("/", "_")
    if parts.query:
        name += "_" + re.sub(r"[^A-Za-z0-9]+", "-", parts.query)[:40]
    return f"{name[:180]}.{kind}"


@dataclass
class SyncCounts:
    pages: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: int = 0
    skipped: int = 0
    # What was skipped and why: links that cannot be read, pages robots.txt refuses (at most
    # SKIPPED_LISTED of them).
    skipped_links: list[dict] = field(default_factory=list)

    def skip(self, url: str, reason: str) -> None:
        self.skipped += 1
        if len(self.skipped_links) < SKIPPED_LISTED:
            self.skipped_links.append({"url": url[:300], "reason": reason})

    def as_dict(self) -> dict:
        return {**self.__dict__, "skipped_links": list(self.skipped_links)}


def web_source_create(
    *, kb: KnowledgeBase, user, url: str, depth: int, every_minutes: int, max_pages: int
) -> WebSource:
    """Add a web source to a knowledge base (which the user may write to) and queue its sync."""
    url = check_url(url)
    if every_minutes and every_minutes < MIN_EVERY_MINUTES:
        raise ServiceError(
            400, "invalid_request", f"every_minutes must be 0 or at least {MIN_EVERY_MINUTES}."
        )
    source = WebSource.objects.create(
        knowledge_base=kb,
        url=url,
        depth=depth,
        max_pages=max_pages,
        every_minutes=every_minutes,
        created_by=user,
        status=WebSource.Status.QUEUED,
    )
    web_source_queue(source=source)
    return source


def web_source_queue(*, source: WebSource) -> WebSource:
    """Queue a sync now (a sync already queued or running is left to finish)."""
    WebSource.objects.filter(id=source.id).exclude(status=WebSource.Status.SYNCING).update(
        status=WebSource.Status.QUEUED
    )
    # One queued sync per source: asking again while one waits changes nothing.
    jobs.job_defer(
        "knowledge.sync_web_source", queueing_lock=f"web-source-{source.id}", source_id=source.id
    )
    source.refresh_from_db()
    return source


def web_source_delete(*, source: WebSource) -> int:
    """Remove a web source and the documents of its pages that no other source of the
    knowledge base reaches; return how many documents were removed."""
    removed = sum(_leave(source, document) for document in list(source.documents.all()))
    source.delete()
    return removed


def _leave(source: WebSource, document: Document) -> bool:
    """Take a page from a source: the document goes only when no other source reaches it.
    Returns whether it went."""
    if document.web_sources.exclude(id=source.id).exists():
        document.web_sources.remove(source)
        return False
    document_delete(document=document)
    return True


def web_sources_due() -> list[int]:
    """Return the ids of the sources whose next sync is due (for the periodic task)."""
    now = timezone.now()
    due = Q(
        every_minutes__gt=0,
        next_sync_at__lte=now,
        status__in=[WebSource.Status.IDLE, WebSource.Status.FAILED],
    )
    # A sync left `syncing` by a worker that died is started again.
    stuck = Q(status=WebSource.Status.SYNCING, sync_started_at__lt=now - STUCK_SYNC)
    return list(WebSource.objects.filter(due | stuck).values_list("id", flat=True))


def web_source_sync(*, source_id: int, ingest_inline: bool = False) -> WebSource:
    """Crawl a source's site and bring its documents in line with the pages found. Whatever
    happens, the source ends idle or failed, never left syncing."""
    source = WebSource.objects.select_related("knowledge_base", "created_by").get(id=source_id)
    WebSource.objects.filter(id=source.id).update(
        status=WebSource.Status.SYNCING,
        progress_done=0,
        progress_total=1,
        error="",
        sync_started_at=timezone.now(),
    )
    counts = SyncCounts()
    try:
        error = _crawl(source, counts, ingest_inline=ingest_inline)
    except Exception as exc:  # noqa: BLE001 - the source must not stay `syncing`
        logger.exception("web source %s failed", source.id)
        error = f"The sync failed: {type(exc).__name__}"
    now = timezone.now()
    WebSource.objects.filter(id=source.id).update(
        status=WebSource.Status.FAILED if error else WebSource.Status.IDLE,
        error=error,
        counts=counts.as_dict(),
        last_synced_at=now,
        next_sync_at=now + timedelta(minutes=source.every_minutes)
        if source.every_minutes
        else None,
        progress_done=counts.pages,
        progress_total=counts.pages,
    )
    source.refresh_from_db()
    logger.info("web source %s synced: %s", source.id, counts.as_dict())
    return source


def _crawl(source: WebSource, counts: SyncCounts, *, ingest_inline: bool) -> str:
    """Fetch the pages breadth first and index them; remove the gone ones. Return an error for
    the source ("" when the start page was read)."""
    existing = {doc.external_id: doc for doc in source.documents.all()}
    seen: set[str] = set()
    gone: set[str] = set()
    robots = robots_rules(source.url)
    queue: deque[tuple[str, int]] = deque([(source.url, 0)])
    queued = {source.url}
    error = ""
    attempts = 0
    stop_at = time.monotonic() + settings.WEB_SYNC_MAX_SECONDS
    while queue and counts.pages < source.max_pages:
        if attempts >= ATTEMPTS_PER_PAGE * source.max_pages or time.monotonic() > stop_at:
            break
        attempts += 1
        url, level = queue.popleft()
        if not robots.can_fetch(USER_AGENT, url):
            counts.skip(url, "robots.txt does not allow it")
            continue
        try:
            final, body, kind = fetch(url, start=source.url)
        except FetchError as exc:
            counts.failed += 1
            if exc.gone:
                gone.add(url)
            if url == source.url:
                error = f"The start page could not be fetched: {exc}"
            logger.info("web source %s: %s failed (%s)", source.id, url, exc)
            continue
        counts.pages += 1
        seen.add(url)
        if kind == "html" and level < source.depth:
            _queue_links(source, final, body, level, counts, queue, queued)
        WebSource.objects.filter(id=source.id).update(
            progress_done=counts.pages, progress_total=min(len(queued), source.max_pages)
        )
        _sync_page(source, url, body, kind, existing.get(url), counts, ingest_inline)
    if not error:
        _remove_gone(source, existing, counts, gone, kept=seen | queued, complete=not queue)
    return error


def _queue_links(source, url, body, level, counts, queue, queued) -> None:
    """Queue a page's same-site links not queued yet, one level down; count the bad ones."""
    bad: list[dict] = []
    links = same_site_links(url, body, source.url, bad)
    for item in bad:
        counts.skip(item["url"], item["reason"])
    for link in links:
        if link not in queued:
            queued.add(link)
            queue.append((link, level + 1))


def _sync_page(source, url, body, kind, old, counts: SyncCounts, ingest_inline: bool) -> None:
    """Index a fetched page (its old version, if any, replaced) and count what happened to it;
    ingest it here and now when the sync runs inline."""
    document = _index_page(
        source, url, body, kind, old, defer_job=not ingest_inline, upload=document_upload
    )
    if document is None:
        counts.failed += 1
    elif old is None:
        counts.added += 1
    elif document.id == old.id:
        counts.unchanged += 1
    else:
        counts.updated += 1
    if document is not None and ingest_inline and document.status == Document.Status.QUEUED:
        document_ingest_run(document_id=document.id)


def _remove_gone(source, existing, counts: SyncCounts, gone, *, kept, complete: bool) -> None:
    """Take the pages that are gone off the source."""
    # A page that is gone, or no longer reached from the start page, leaves the knowledge base;
    # one that failed for another reason (a timeout) keeps its last version, and nothing is
    # removed when the crawl was cut short.
    for url, document in existing.items():
        if url in gone or (complete and url not in kept):
            _leave(source, document)
            counts.removed += 1


def _index_page(source, url, body, kind, old, *, defer_job: bool, upload) -> Document | None:
    """Store a page as a document (the same bytes: the same document); drop its old version."""
    if old is not None and old.sha256 == hashlib.sha256(body).hexdigest():
        return old
    try:
        document, _ = upload(
            kb=source.knowledge_base,
            file_name=page_file_name(url, kind),
            data=body,
            user=source.created_by,
            external_id=url,
            defer_job=defer_job,
        )
    except ServiceError as exc:
        logger.info("web source %s: %s not indexed (%s)", source.id, url, exc.message)
        return None
    Document.objects.filter(id=document.id).update(external_id=url)
    document.web_sources.add(source)
    if old is not None and old.id != document.id:
        # The new version belongs to every source the old one did.
        document.web_sources.add(*old.web_sources.all())
        document_delete(document=old)
    return document
