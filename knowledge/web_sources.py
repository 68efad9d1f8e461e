"""Web pages kept in sync: crawl one site from a start URL, index its pages, and re-sync them.

A sync fetches the start page and the same-site pages it links to, breadth first, down to the
source's depth and up to its page cap, honouring robots.txt. Each page is a document of the
knowledge base (its URL as `external_id`): a page whose bytes changed is indexed again, a page
that answers 404 or 410 (or is no longer linked) is removed, the rest are left alone. Each sync
writes its progress and counts on the source; a periodic task re-syncs sources that are due.

Server-side request forgery: every URL, each redirect hop included, must be http(s) and
resolve only to public addresses; private, loopback, link-local (cloud metadata at
169.254.169.254), multicast and reserved ones are refused unless WEB_SOURCES_ALLOWED_HOSTS
names the host or its network. The check runs before each request; a name that resolves to
another address between the check and the connection (DNS rebinding) is the residual risk.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import re
import socket
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import timedelta
from urllib import robotparser
from urllib.parse import urldefrag, urljoin, urlsplit

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from adrag_site import jobs
from adrag_site.errors import ServiceError
from knowledge.ingestion import document_ingest_run
from knowledge.models import Document, KnowledgeBase, WebSource
from knowledge.services import document_delete, document_upload

logger = logging.getLogger(__name__)

USER_AGENT = "adRAG-web-source/1.0"
MAX_REDIRECTS = 5
PAGE_TYPES = {"text/html": "html", "application/xhtml+xml": "html", "text/plain": "txt"}
GONE = (404, 410)
MIN_EVERY_MINUTES = 15
MAX_LINKS_PER_PAGE = 500
# Fetches of one sync, failures and robots refusals included, are capped at this many times
# its page cap; a sync running longer than WEB_SYNC_MAX_SECONDS stops where it is.
ATTEMPTS_PER_PAGE = 3
# A sync that has run this long without ending belongs to a worker that died.
STUCK_SYNC = timedelta(hours=1)
MAX_DEPTH = 3
# Skipped links listed in a sync's report, at most (all are counted).
SKIPPED_LISTED = 50


class FetchError(Exception):
    """A page could not be fetched; `gone` when the server says it no longer exists."""

    def __init__(self, message: str, *, gone: bool = False) -> None:
        super().__init__(message)
        self.gone = gone


@dataclass(frozen=True)
class Allowed:
    """One WEB_SOURCES_ALLOWED_HOSTS entry: a host name, an address or a network, with a port
    or a range of ports (`intranet.example:8080`, `10.0.0.0/8:8000-8999`, `[fd00::1]:443`);
    without one, only the URL scheme's default port."""

    host: str
    network: ipaddress._BaseNetwork | None
    ports: tuple[int, int] | None  # None: the default port of the URL's scheme


_ENTRY = re.compile(
    r"^(?:\[(?P<v6>[^\]]+)\](?P<v6net>/\d+)?|(?P<host>[^:\[\]]+))"
    r"(?::(?P<low>\d{1,5})(?:-(?P<high>\d{1,5}))?)?$"
)


def parse_allowed(entry: str) -> Allowed | None:
    """Return an allow-list entry read, or None when it is not one (it then allows nothing)."""
    text = entry.strip().lower()
    match = _ENTRY.match(text)
    if match is None:
        # A bare IPv6 address or network, with no port: "fd00::/8".
        try:
            return Allowed(text, ipaddress.ip_network(text, strict=False), None)
        except ValueError:
            return None
    host = match["v6"] + (match["v6net"] or "") if match["v6"] else match["host"]
    try:
        network = ipaddress.ip_network(host, strict=False)
    except ValueError:
        network = None
    ports = None
    if match["low"]:
        low = int(match["low"])
        high = int(match["high"] or low)
        if not 0 < low <= high <= 65535:
            return None
        ports = (low, high)
    return Allowed(host, network, ports)


def _allowed_entries() -> list[Allowed]:
    entries = (parse_allowed(entry) for entry in settings.WEB_SOURCES_ALLOWED_HOSTS)
    return [entry for entry in entries if entry is not None]


def _address_allowed(
    host: str, address: ipaddress._BaseAddress, port: int, default_port: int
) -> bool:
    for entry in _allowed_entries():
        if entry.ports is None:
            if port != default_port:
                continue
        elif not entry.ports[0] <= port <= entry.ports[1]:
            continue
        if entry.host == host.lower():
            return True
        if entry.network is not None and address.version == entry.network.version:
            if address in entry.network:
                return True
    return False


@dataclass(frozen=True)
class UrlCheck:
    """What `read_url` made of a URL: the URL without its fragment, its parts, or why not."""

    url: str
    scheme: str = ""
    host: str = ""
    port: int = 0
    reason: str = ""

    @property
    def ok(self) -> bool:
        return not self.reason


def read_url(url) -> UrlCheck:
    """Read a URL (submitted, found in a page, a redirect's target): the one place a URL is
    parsed. It never raises: a URL that cannot be read comes back with its reason."""
    text = str(url or "").strip()
    try:
        text = urldefrag(text)[0]
        parts = urlsplit(text)
        hostname = parts.hostname
        port = parts.port
    except ValueError as exc:
        return UrlCheck(text, reason=f"The URL cannot be read: {exc}.")
    if parts.scheme not in ("http", "https") or not hostname:
        return UrlCheck(text, reason="The URL must be an http or https address.")
    if parts.username or parts.password:
        return UrlCheck(text, reason="The URL must not carry a user name or password.")
    default = 443 if parts.scheme == "https" else 80
    return UrlCheck(text, parts.scheme, hostname, port or default)


def join_url(base: str, link: str) -> UrlCheck:
    """Return a link of a page (or a redirect's Location) read against the page's URL."""
    try:
        joined = urljoin(base, str(link))
    except ValueError as exc:
        return UrlCheck(str(link)[:300], reason=f"The URL cannot be read: {exc}.")
    return read_url(joined)


def check_url(url: str) -> str:
    """Return the URL without its fragment if it may be fetched; raise ServiceError 400.

    The host must resolve, and every address it resolves to must be public or allowed.
    """
    return _checked(url)[0]


def _checked(url: str) -> tuple[str, str]:
    """Return the URL without its fragment and the address to connect to (checked)."""
    read = read_url(url)
    if not read.ok:
        raise ServiceError(400, "invalid_url", read.reason)
    default = 443 if read.scheme == "https" else 80
    try:
        infos = socket.getaddrinfo(read.host, read.port, type=socket.SOCK_STREAM)
    except (OSError, ValueError, UnicodeError) as exc:
        raise ServiceError(400, "invalid_url", f"The host {read.host!r} does not resolve.") from exc
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%", 1)[0])
        if not address.is_global and not _address_allowed(read.host, address, read.port, default):
            raise ServiceError(
                400,
                "forbidden_address",
                f"{read.host}:{read.port} is a private, loopback or link-local address; only "
                "public addresses may be fetched unless WEB_SOURCES_ALLOWED_HOSTS names it "
                "with this port.",
            )
    return read.url, infos[0][4][0]


def _same_site(url: str, start: str) -> bool:
    a, b = read_url(url), read_url(start)
    return a.ok and b.ok and (a.scheme, a.host, a.port) == (b.scheme, b.host, b.port)


def _pinned_session(url: str, address: str):
    """Return a requests session that connects to the checked address, never resolving the
    name again (no DNS rebinding), with TLS still verified for the name."""
    import requests
    from requests.adapters import HTTPAdapter

    hostname = urlsplit(url).hostname

    class PinnedAdapter(HTTPAdapter):
        def init_poolmanager(self, *args, **kwargs):
            kwargs["server_hostname"] = hostname
            kwargs["assert_hostname"] = hostname
            super().init_poolmanager(*args, **kwargs)

    session = requests.Session()
    session.mount("https://", PinnedAdapter())
    return session


def _pinned_url(url: str, address: str) -> str:
    parts = urlsplit(url)
    host = f"[{address}]" if ":" in address else address
    netloc = f"{host}:{parts.port}" if parts.port else host
    return parts._replace(netloc=netloc).geturl()


def fetch(url: str, *, start: str) -> tuple[str, bytes, str]:
    """Return (final URL, body, kind) of a same-site page, following redirects on the site, each
    hop checked; raise FetchError. The connection goes to the address that was checked."""
    import requests

    limit = settings.WEB_PAGE_MAX_BYTES
    timeout = settings.WEB_FETCH_TIMEOUT_SECONDS
    for _ in range(MAX_REDIRECTS + 1):
        try:
            url, address = _checked(url)
        except ServiceError as exc:
            raise FetchError(exc.message) from exc
        deadline = time.monotonic() + 3 * timeout  # a server that trickles bytes is cut off
        try:
            with _pinned_session(url, address) as session:
                response = session.get(
                    _pinned_url(url, address),
                    headers={"User-Agent": USER_AGENT, "Host": urlsplit(url).netloc},
                    timeout=timeout,
                    allow_redirects=False,
                    stream=True,
                )
                with response:
                    if response.is_redirect:
                        target = join_url(url, response.headers.get("Location", ""))
                        if not target.ok:
                            raise FetchError(f"redirected to {target.url}: {target.reason}")
                        if not _same_site(target.url, start):
                            raise FetchError(f"redirected off the site, to {target.url}", gone=True)
                        url = target.url
                        continue
                    if response.status_code in GONE:
                        raise FetchError(f"HTTP {response.status_code}", gone=True)
                    if response.status_code != 200:
                        raise FetchError(f"HTTP {response.status_code}")
                    media = response.headers.get("Content-Type", "").split(";", 1)[0]
                    kind = PAGE_TYPES.get(media.strip().lower())
                    if kind is None:
                        raise FetchError(f"not a page: {media or 'no content type'}")
                    body = bytearray()
                    for block in response.iter_content(64 * 1024):
                        body += block
                        if len(body) > limit:
                            raise FetchError(f"over {limit} bytes")
                        if time.monotonic() > deadline:
                            raise FetchError("the page took too long")
                    return url, bytes(body), kind
        except requests.RequestException as exc:
            raise FetchError(f"{type(exc).__name__}: {exc}") from exc
    raise FetchError("too many redirects")


def _links(url: str, body: bytes, start: str, bad: list[dict] | None = None) -> list[str]:
    """Return the same-site links of a page; a link that cannot be read is added to `bad`
    ({url, reason}) and the others are still followed."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(body, "html.parser")
    found = []
    for anchor in soup.find_all("a", href=True, limit=MAX_LINKS_PER_PAGE):
        href = str(anchor["href"]).strip()
        if href.lower().startswith(("mailto:", "tel:", "javascript:", "data:")):
            continue
        target = join_url(url, href)
        if not target.ok:
            if bad is not None:
                bad.append({"url": target.url[:300], "reason": target.reason})
            continue
        if _same_site(target.url, start):
            found.append(target.url)
    return list(dict.fromkeys(found))


def _robots(start: str) -> robotparser.RobotFileParser:
    parser = robotparser.RobotFileParser()
    parts = urlsplit(read_url(start).url)
    try:
        _, body, _ = fetch(f"{parts.scheme}://{parts.netloc}/robots.txt", start=start)
        parser.parse(body.decode("utf-8", "replace").splitlines())
    except FetchError:
        parser.parse([])  # no robots.txt: everything may be fetched
    return parser


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
    robots = _robots(source.url)
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
            bad: list[dict] = []
            links = _links(final, body, source.url, bad)
            for item in bad:
                counts.skip(item["url"], item["reason"])
            for link in links:
                if link not in queued:
                    queued.add(link)
                    queue.append((link, level + 1))
        WebSource.objects.filter(id=source.id).update(
            progress_done=counts.pages, progress_total=min(len(queued), source.max_pages)
        )
        old = existing.get(url)
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
    # A page that is gone, or no longer reached from the start page, leaves the knowledge base;
    # one that failed for another reason (a timeout) keeps its last version, and nothing is
    # removed when the crawl was cut short.
    complete = not queue
    if not error:
        for url, document in existing.items():
            if url in gone or (complete and url not in seen and url not in queued):
                _leave(source, document)
                counts.removed += 1
    return error


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
