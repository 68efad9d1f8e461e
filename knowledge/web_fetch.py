"""Fetching a web source's pages safely: URLs read and checked, pages fetched, links found.

Server-side request forgery: every URL, each redirect hop included, must be http(s) and
resolve only to public addresses; private, loopback, link-local (cloud metadata at
169.254.169.254), multicast and reserved ones are refused unless WEB_SOURCES_ALLOWED_HOSTS
names the host or its network. The check runs before each request; a name that resolves to
another address between the check and the connection (DNS rebinding) is the residual risk.
The sync that uses them is knowledge/web_sources.py.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import time
from dataclasses import dataclass
from urllib import robotparser
from urllib.parse import urldefrag, urljoin, urlsplit

from django.conf import settings

from adrag_site.errors import ServiceError

USER_AGENT = "adRAG-web-source/1.0"
MAX_REDIRECTS = 5
PAGE_TYPES = {"text/html": "html", "application/xhtml+xml": "html", "text/plain": "txt"}
GONE = (404, 410)
MAX_LINKS_PER_PAGE = 500


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


def same_site_links(url: str, body: bytes, start: str, bad: list[dict] | None = None) -> list[str]:
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


def robots_rules(start: str) -> robotparser.RobotFileParser:
    parser = robotparser.RobotFileParser()
    parts = urlsplit(read_url(start).url)
    try:
        _, body, _ = fetch(f"{parts.scheme}://{parts.netloc}/robots.txt", start=start)
        parser.parse(body.decode("utf-8", "replace").splitlines())
    except FetchError:
        parser.parse([])  # no robots.txt: everything may be fetched
    return parser
