"""The API's documentation page in a real browser, under the portal's Content-Security-Policy."""

from __future__ import annotations

import pytest

from tests.portal.conftest import DESKTOP

pytestmark = pytest.mark.slow


@pytest.fixture
def docs_page(portal, browser, django_user_model):
    django_user_model.objects.create_user("dora", password="dora-pass-123")
    url = portal.url
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(20_000)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on(
        "console",
        lambda message: (
            problems.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    portal.sign_in(page, "dora")
    yield page, url, problems
    context.close()


def test_swagger_ui_renders_every_operation_without_a_csp_violation(docs_page):
    page, url, problems = docs_page
    page.goto(url + "/api/docs")
    page.locator(".opblock").first.wait_for()
    operations = page.evaluate(
        "fetch('/api/schema?format=json').then(r => r.json()).then(s => "
        "Object.values(s.paths).reduce((n, ops) => n + Object.keys(ops).length, 0))"
    )
    assert page.locator(".opblock").count() == operations >= 20
    assert problems == []
