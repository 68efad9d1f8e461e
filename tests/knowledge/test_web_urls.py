"""Every URL a web source meets goes through one reader that never raises
(knowledge/web_fetch.py `read_url`), and a page holding any links syncs without an exception
escaping and without a request to a refused address. Property-based, with Hypothesis."""

from __future__ import annotations

from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge import web_fetch
from knowledge.web_fetch import join_url, read_url

# URL-shaped strings: a scheme, a host of many shapes (brackets, ports, user info), a path.
HOSTS = st.one_of(
    st.text(max_size=20),
    st.from_regex(r"\[[0-9a-fz:.]{0,12}\]?(:[0-9a-z]{0,7})?", fullmatch=True),
    st.from_regex(r"[a-z0-9.-]{1,15}(:[0-9]{0,7})?", fullmatch=True),
    st.sampled_from(["127.0.0.1", "[::1]", "169.254.169.254", "user:pw@10.0.0.1", "0x7f.1"]),
)
URLS = st.one_of(
    st.text(max_size=60),
    st.builds(
        lambda scheme, host, path: f"{scheme}{host}{path}",
        st.sampled_from(["http://", "https://", "ftp://", "//", "", "http:/"]),
        HOSTS,
        st.text(max_size=20),
    ),
)


@given(URLS)
@settings(max_examples=400, deadline=None)
def test_reading_any_url_never_raises(url) -> None:
    read = read_url(url)
    assert read.ok == (not read.reason)
    if read.ok:
        assert read.scheme in ("http", "https") and read.host and 0 < read.port < 65536
    joined = join_url("http://site.example/a/", url)
    assert joined.ok == (not joined.reason)


@given(st.lists(URLS, max_size=8))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_page_of_any_links_yields_only_readable_same_site_links(links) -> None:
    body = "".join(f"<a href='{link}'>x</a>" for link in links).encode("utf-8", "replace")
    bad: list[dict] = []
    found = web_fetch.same_site_links("http://site.example/", body, "http://site.example/", bad)
    for link in found:
        read = read_url(link)
        assert read.ok and read.host == "site.example" and read.port == 80
    assert all(item["reason"] for item in bad)


@given(URLS)
@settings(max_examples=200, deadline=None)
def test_no_request_leaves_for_a_url_that_is_refused(url) -> None:
    # Names resolve to a loopback address, none allowed: every fetch must be refused before a
    # connection is made (a FetchError), and nothing else may escape.
    loopback = [(2, 1, 6, "", ("127.0.0.1", 80))]
    with (
        mock.patch.object(web_fetch.socket, "getaddrinfo", return_value=loopback),
        mock.patch.object(web_fetch, "_pinned_session") as session,
        mock.patch.object(web_fetch, "_allowed_entries", return_value=[]),
    ):
        try:
            web_fetch.fetch(url, start="http://site.example/")
        except web_fetch.FetchError:
            pass
        session.assert_not_called()
