"""Browser tests of the portal: Playwright driving Debian's chromium against a live web server and a
Procrastinate worker on this test run's database (the live stack of tests/queries)."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.live import LiveStack
from tests.support import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # One renderer and no GPU process: fewer processes to start and feed on a 2-core machine
    # (site isolation is a defence against other sites' pages, and here there are none). Not
    # --disable-features: Playwright passes its own, and Chromium keeps only the last one.
    "--in-process-gpu",
    "--disable-site-isolation-trials",
    "--renderer-process-limit=1",
]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
# The portal tests need only the scripted model.
PLUGINS = "scripted=tests.queries.plugin:ScriptedFromFile"


@pytest.fixture(autouse=True)
def _allow_orm_beside_playwright(monkeypatch):
    # Playwright's sync API keeps an event loop in this thread, which Django's async-safety
    # check mistakes for async code calling the ORM. Only these tests skip the check, only in
    # this process: child processes never inherit it (tests.support.child_env drops it).
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@dataclass
class Portal:
    url: str
    stack: LiveStack

    def scripts(self, scripts: dict) -> None:
        self.stack.write_scripts(scripts)

    def sign_in(self, page, username: str, path: str = "/") -> None:
        """Open `path` (by default the chat page) in `page` signed in as `username`, through a
        session (see `session_sign_in`)."""
        session_sign_in(
            page, self.url, username, secret_key=self.stack.env["SECRET_KEY"], path=path
        )


# Another origin's front end that the shared portal allows (FRONTEND_URL), and one it does not
# know of (CORS_ALLOWED_ORIGINS names only a front end that never runs here).
# tests/portal/test_cross_origin.py serves the allowed one on this socket, bound once per test
# process and kept open: its port stays this process's own until the process ends.
_front_end_socket: list[socket.socket] = []
ALLOWED_ELSEWHERE = "https://app.example.test"


def front_end_socket() -> socket.socket:
    if not _front_end_socket:
        sock = socket.create_server(("127.0.0.1", 0))
        _front_end_socket.append(sock)
    return _front_end_socket[0]


def front_end_origin() -> str:
    return f"http://127.0.0.1:{front_end_socket().getsockname()[1]}"


@pytest.fixture
def portal_stack(_shared_stacks, django_db_blocker, tmp_path_factory):
    """One web process and worker shared by consecutive browser tests (the portal uploads, so
    the worker ingests too)."""
    from tests import live

    with django_db_blocker.unblock():
        return live.shared(
            "portal_stack",
            tmp_path_factory.mktemp("portal"),
            env={
                "ADRAG_PROVIDER_PLUGINS": PLUGINS,
                # FRONTEND_URL may carry a path: its origin is what is allowed.
                "FRONTEND_URL": front_end_origin() + "/index.html",
                "CORS_ALLOWED_ORIGINS": ALLOWED_ELSEWHERE,
            },
            queues="runs,default,ingest",
        )


@pytest.fixture
def portal(portal_stack, transactional_db) -> Portal:
    """The shared portal; each test makes its own users and data."""
    return Portal(url=portal_stack.url, stack=portal_stack)


@pytest.fixture(scope="session")
def _browser_closer():
    from tests import live

    yield
    live.close_browser()


@pytest.fixture
def browser(_browser_closer):
    """Chromium, launched once and shared by consecutive browser tests. Playwright's sync API
    keeps an event loop in this thread while it runs, which Django's async-safety check takes
    for async code calling the ORM: the browser is closed before any test that needs none
    (tests/conftest.py)."""
    from playwright.sync_api import sync_playwright

    from tests import live

    return live.shared_browser(
        lambda: sync_playwright().start(),
        lambda playwright: playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS),
    )


class PageProblems:
    """Script errors and CSP violations a page reported; a finished page has none."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def watch(self, page) -> None:
        page.on("pageerror", lambda error: self.messages.append(f"page error: {error}"))
        page.on(
            "console",
            lambda message: (
                self.messages.append(f"console at {page.url}: {message.text[:90]}")
                if message.type == "error" and "Content Security Policy" in message.text
                else None
            ),
        )


@pytest.fixture
def new_page(browser):
    """Open pages in fresh browser contexts (one per signed-in user); check them for script errors."""
    contexts = []
    problems = PageProblems()

    def _new_page(viewport: dict | None = None):
        # Reduced motion: the running stage's dot stops pulsing (app.css honours the setting), so
        # the renderer does not repaint at every frame while a test waits on a run.
        context = browser.new_context(viewport=viewport or DESKTOP, reduced_motion="reduce")
        context.set_default_timeout(20_000)
        contexts.append(context)
        page = context.new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        problems.watch(page)
        return page

    yield _new_page
    for context in contexts:
        context.close()
    assert problems.messages == [], "\n".join(problems.messages)


def sign_in(page, url: str, username: str, password: str) -> None:
    page.goto(url + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(url + "/")
    assert page.locator(".topbar .user").inner_text() == username


def session_sign_in(page, url: str, username: str, *, secret_key: str, path: str = "/") -> None:
    """Open `path` (by default the chat page) signed in as `username`, with a session made here
    instead of through the sign-in form, for the tests that are about something else: the form
    costs each of them about half a second more (the sign-in page and its POST). The form is
    what tests/portal/test_pages.py's first test and test_every_page.py sign in with. The
    session is the server's own: made with its SECRET_KEY in the database it reads, for the
    backend a password sign-in records, so the server checks it as any other. Opening the
    test's first page directly, not the chat page and then that page, saves a page load."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client, override_settings

    user = get_user_model().objects.get(username=username)
    client = Client()
    with override_settings(SECRET_KEY=secret_key):
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": url}])
    page.goto(url + path)
    assert page.locator(".topbar .user").inner_text() == username


def ask_offline(page, query: str, timeout: int = 90_000) -> None:
    """Ask the chat page a question with the offline extractive provider and wait for it."""
    page.wait_for_selector("#chat[data-ready='1']")
    page.select_option("#provider", "extractive")
    page.get_by_label("Your question").fill(query)
    page.get_by_role("button", name="Ask").click()
    page.wait_for_selector("#chat[data-state='succeeded']", timeout=timeout)


def screenshot(page, name: str, full_page: bool = True) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(path), full_page=full_page)
    return path
