"""The portal in a real browser: sign in, upload, ask, watch, stop, resume, replay, stay safe."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.models import KnowledgeBase
from knowledge.services import kb_create
from queries.models import QueryRun
from tests.portal.conftest import PHONE, screenshot, sign_in
from tests.queries.pipeline.scripted import PLAN_RETRIEVE, PLAN_WEB, answer, verdict
from tests.support import ROOT

pytestmark = pytest.mark.slow

STAGES = [
    "planner",
    "retrieval",
    "external_tools",
    "aggregator",
    "reranker",
    "compressor",
    "reasoning",
    "reflection",
]
FILES = ROOT / "tests" / "fixtures" / "files"
CURIE = "Marie Curie discovered polonium and radium in 1898. She won two Nobel Prizes, in physics and in chemistry."


def long_text() -> str:
    """A text long enough for several embedding batches (32 chunks each)."""
    sections = [CURIE]
    for n in range(1, 300):
        sections.append(
            f"Laboratory notebook entry {n}. The sample of pitchblende number {n} was weighed, "
            f"dissolved in acid and its activity measured with the electrometer on day {n}. "
            f"Assistant {n % 7} recorded a reading of {n * 3} units and stored the residue in jar {n}."
        )
    return "\n\n".join(sections)


def stage_statuses(page) -> dict[str, str]:
    return page.eval_on_selector_all(
        "#run-view [data-stage]",
        "rows => Object.fromEntries(rows.map(r => [r.dataset.stage, r.dataset.status]))",
    )


def ask(page, query: str, provider: str) -> None:
    page.wait_for_selector("#chat[data-ready='1']")
    page.select_option("#provider", provider)
    page.get_by_label("Your question").fill(query)
    page.get_by_role("button", name="Ask").click()


def wait_state(page, state: str, timeout: float = 60_000) -> None:
    page.wait_for_selector(f"#chat[data-state='{state}']", timeout=timeout)


def current_run_id(page) -> str:
    match = re.search(r"[?&]run=([0-9a-f-]{36})", page.url)
    assert match, page.url
    return match.group(1)


def no_xss(page) -> None:
    assert page.evaluate("typeof window.__xss") == "undefined"


def test_sign_in_upload_ask_cite_replay_and_sign_out(portal, new_page, django_user_model, tmp_path):
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    alice.groups.add(Group.objects.create(name="Curie lab"))
    page = new_page()
    page.goto(portal.url + "/")
    page.wait_for_url(re.compile(r"/accounts/login/\?next=/$"))
    screenshot(page, "login")
    sign_in(page, portal.url, "alice", "alice-pass-123")

    # A knowledge base, and a long text uploaded through the page: its bar moves, then it is ready.
    page.goto(portal.url + "/knowledge/")
    page.locator("#kb-create-form").get_by_label("Name").fill("Physics")
    page.locator("#kb-create-form").get_by_label("Description").fill("Radioactivity notes")
    page.get_by_role("button", name="Create").click()
    page.wait_for_selector("#kb-title:text('Physics')")
    assert "Curie lab" in page.inner_text("#team-list")
    page.get_by_text("Rename, describe or share").click()
    page.get_by_label("Team sharing").select_option(label="Curie lab")
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector("#kb-team-badge:text('shared with Curie lab')")
    assert KnowledgeBase.objects.get(name="Physics").team.name == "Curie lab"
    notebook = tmp_path / "curie-notebook.txt"
    notebook.write_text(long_text())
    page.set_input_files("#file-input", str(notebook))
    page.evaluate(
        """() => { window.__bar = []; window.__sampler = setInterval(() => {
             const row = document.querySelector('#upload-list li[data-document-id]');
             if (row) window.__bar.push([row.dataset.status, row.querySelector('progress').value]);
           }, 50); }"""
    )
    page.get_by_role("button", name="Upload").click()
    page.wait_for_selector("#upload-list li[data-status='ready']", timeout=120_000)
    # The last sample is taken now: under load the sampler's timer may not have run between
    # the row turning ready and this call.
    samples = page.evaluate(
        """() => { clearInterval(window.__sampler);
             const row = document.querySelector('#upload-list li[data-document-id]');
             window.__bar.push([row.dataset.status, row.querySelector('progress').value]);
             return window.__bar; }"""
    )
    before_ready = [value for status, value in samples if status != "ready"]
    assert len(set(before_ready)) >= 2, samples
    assert any(0 < value < 100 for value in before_ready), samples
    assert [value for status, value in samples if status == "ready"][-1] == 100
    assert any(status == "embedding" for status, _ in samples), samples
    row = page.locator("#doc-rows tr[data-status='ready']")
    assert "curie-notebook.txt" in row.inner_text()
    assert int(row.locator("td").nth(2).inner_text().replace(",", "")) > 64
    page.wait_for_selector("#kb-stats .chip")
    # A PDF whose second page is a scan: the row says which page OCR read.
    page.set_input_files("#file-input", str(FILES / "scanned.pdf"))
    page.get_by_role("button", name="Upload").click()
    scanned = page.locator("#doc-rows tr[data-status='ready']", has_text="scanned.pdf")
    scanned.wait_for(timeout=120_000)
    assert "page 2 read by OCR" in scanned.inner_text()
    screenshot(page, "knowledge")
    # Its first page also speaks of Marie Curie; the question below is the notebook's.
    page.once("dialog", lambda dialog: dialog.accept())
    scanned.get_by_role("button", name="Delete scanned.pdf").click()
    scanned.wait_for(state="detached")

    # Ask with the offline provider: eight rows finish and the answer cites its source card.
    page.goto(portal.url + "/")
    ask(page, "What did Marie Curie discover?", "extractive")
    wait_state(page, "succeeded")
    statuses = stage_statuses(page)
    assert statuses == {
        stage: "skipped" if stage == "external_tools" else "complete" for stage in STAGES
    }
    details = {
        stage: page.inner_text(f"#run-view [data-stage='{stage}'] [data-role=stage-details]")
        for stage in STAGES
    }
    assert re.search(r"vector\s*\d+", details["retrieval"]) and re.search(
        r"bm25\s*\d+", details["retrieval"]
    )
    assert "graph" in details["retrieval"] and "dedup" in details["aggregator"]
    assert "scores" in details["reranker"] and "grounded" in details["reflection"]
    assert "skipped" in details["compressor"] or "ratio" in details["compressor"]
    assert all(
        page.inner_text(f"#run-view [data-stage='{s}'] [data-role=stage-time]") for s in STAGES
    )
    answer_text = page.inner_text("#run-view [data-role=answer]")
    assert "polonium" in answer_text
    cite = page.locator("#run-view a.cite").first
    index = cite.get_attribute("data-cite")
    card = page.locator(f"#chat-source-{index}")
    assert card.get_attribute("open") is None
    cite.click()
    page.wait_for_selector(f"#chat-source-{index}[open]")
    assert "curie-notebook.txt" in card.locator("summary").first.inner_text()
    # The card opens the document at the passage (the source's additive ids).
    assert re.match(
        r"/documents/\d+/\?chunk=\d+$", card.locator(".source-open a").get_attribute("href")
    )
    card.locator(".full-content summary").click()
    assert "polonium" in card.locator("pre").inner_text()
    run_id = current_run_id(page)
    screenshot(page, "chat-answer")
    page.set_viewport_size(PHONE)
    screenshot(page, "chat-phone")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.click("#theme-toggle")
    assert page.get_attribute("html", "data-theme") == "dark"
    screenshot(page, "chat-dark")
    page.click("#theme-toggle")

    # History lists the run; its page replays the stored events to the same answer.
    page.goto(portal.url + "/history/")
    row = page.locator(f"#run-rows tr[data-run-id='{run_id}']")
    assert "succeeded" in row.inner_text() and "extractive" in row.inner_text()
    screenshot(page, "history")
    row.get_by_role("link").click()
    page.wait_for_url(f"{portal.url}/history/{run_id}/")
    page.wait_for_selector("#replay[data-replay='ready']")
    page.select_option("#replay-speed", "instant")
    page.get_by_role("button", name="Replay").click()
    page.wait_for_selector("#replay[data-replay='done']")
    assert page.inner_text("#run-view [data-role=answer]") == answer_text
    assert stage_statuses(page) == statuses
    page.select_option("#replay-speed", "4")
    page.get_by_role("button", name="Replay").click()
    page.wait_for_selector("#replay[data-replay='done']", timeout=30_000)
    assert page.inner_text("#run-view [data-role=answer]") == answer_text
    screenshot(page, "replay")

    # The default provider chosen on the providers page is the chat's starting choice.
    page.goto(portal.url + "/providers/")
    page.locator("[data-provider='scripted']").get_by_role(
        "button", name="Use as my default"
    ).click()
    page.wait_for_selector("#default-summary[data-provider='scripted']")
    screenshot(page, "providers")
    page.goto(portal.url + "/")
    page.wait_for_selector("#chat[data-ready='1']")
    assert page.input_value("#provider") == "scripted" and page.input_value("#model") == "scripted"

    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(re.compile(r"/accounts/login/$"))
    assert page.locator(".topbar .user").count() == 0
    page.goto(portal.url + "/history/")
    page.wait_for_url(re.compile(r"/accounts/login/"))


def test_retry_stop_and_resume_after_refresh(portal, new_page, django_user_model):
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    kb = kb_create(owner=alice, name="Physics")
    documents_ingest_inline(
        kb=kb,
        items=[
            TextItem("curie.txt", CURIE.encode()),
            TextItem("risotto.txt", b"Risotto is cooked with arborio rice and stock added slowly."),
        ],
    )
    retry_q, stop_q, resume_q = (
        "What did Curie find?",
        "A slow question about Curie",
        "Curie, resumed",
    )
    web_q = "What is new about Curie on the web?"
    portal.scripts(
        {
            web_q: {"planner": [PLAN_WEB], "reasoning": [answer()], "reflection": [verdict()]},
            retry_q: {
                "planner": [PLAN_RETRIEVE],
                "reasoning": [
                    answer("Curie found uranium [1]."),
                    answer("Curie found radium [1]."),
                ],
                "reflection": [
                    verdict(False, True, ["uranium unsupported"], "stick to [1]"),
                    "Curie radium",
                    verdict(),
                ],
                "_delays": {"reasoning": 1.5},
            },
            stop_q: {
                "planner": [PLAN_RETRIEVE],
                "reasoning": [answer()],
                "reflection": [verdict()],
                "_delays": {"reasoning": 30},
            },
            resume_q: {
                "planner": [PLAN_RETRIEVE],
                "reasoning": [answer()],
                "reflection": [verdict()],
                "_delays": {"reasoning": 4},
            },
        }
    )
    page = new_page()
    portal.sign_in(page, "alice")

    # A retry resets the rows after planning and says which attempt is running.
    ask(page, retry_q, "scripted")
    page.wait_for_function(
        """() => document.querySelector('[data-role=attempt]').textContent.includes('Attempt 2 of 3')
             && document.querySelector('#run-view [data-stage=reflection]').dataset.status === 'idle'
             && document.querySelector('#run-view [data-stage=planner]').dataset.status === 'complete'"""
    )
    assert "retrying: stick to [1]" in page.inner_text("[data-role=attempt]")
    wait_state(page, "succeeded")
    assert page.inner_text("#run-view [data-role=answer]").startswith("Curie found radium")
    assert set(stage_statuses(page).values()) <= {"complete", "skipped"}
    assert "retries" in page.inner_text("#run-view [data-role=meta]")

    # Stop cancels the run on the server, and the page says so.
    ask(page, stop_q, "scripted")
    page.wait_for_selector("#run-view [data-stage=reasoning][data-status=running]")
    stopped_id = current_run_id(page)
    page.get_by_role("button", name="Stop").click()
    wait_state(page, "cancelled", timeout=20_000)
    assert "Cancelled" in page.inner_text("#run-view [data-role=error]")
    assert page.locator("#run-view [data-stage=reasoning]").get_attribute("data-status") == "error"
    assert page.is_hidden("#stop-button")
    assert QueryRun.objects.get(id=stopped_id).status == "cancelled"

    # A refresh mid-run resumes the same run from its log: the rows continue, the answer arrives.
    ask(page, resume_q, "scripted")
    page.wait_for_selector("#run-view [data-stage=reasoning][data-status=running]")
    run_id = current_run_id(page)
    page.reload()
    page.wait_for_selector("#run-view [data-stage=compressor][data-status=complete]")
    assert current_run_id(page) == run_id
    assert page.get_attribute("#chat", "data-run-id") == run_id
    assert (
        page.locator("#run-view [data-stage=reasoning]").get_attribute("data-status") == "running"
    )
    assert page.input_value("#question") == resume_q
    wait_state(page, "succeeded")
    assert page.inner_text("#run-view [data-role=answer]").startswith(
        "Marie Curie discovered radium"
    )
    assert stage_statuses(page)["reflection"] == "complete"

    # A stage that fails and falls back shows its error; the run still answers.
    ask(page, web_q, "scripted")
    wait_state(page, "succeeded")
    web_row = page.locator("#run-view [data-stage=external_tools]")
    assert web_row.get_attribute("data-status") == "error"
    assert "Error:" in web_row.inner_text() and "fell back" in web_row.inner_text()
    assert page.inner_text("#run-view [data-role=answer]").startswith(
        "Marie Curie discovered radium"
    )

    # History: every run, searchable and filterable.
    assert QueryRun.objects.filter(user=alice).count() == 4
    page.goto(portal.url + "/history/")
    page.wait_for_selector("#run-count:text('4 runs')")
    page.get_by_label("Status").select_option("cancelled")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_selector("#run-count:text('1 run')")
    assert page.locator(f"#run-rows tr[data-run-id='{stopped_id}']").count() == 1
    page.goto(portal.url + "/history/?q=resumed&provider=scripted")
    page.wait_for_selector("#run-count:text('1 run')")
    assert page.input_value("#f-q") == "resumed"
    assert page.locator(f"#run-rows tr[data-run-id='{run_id}']").count() == 1


def test_hostile_documents_and_answers_never_run_and_users_are_isolated(
    portal, new_page, django_user_model
):
    django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    django_user_model.objects.create_user("bob", "bob@example.com", "bob-pass-123")
    hostile = "Show me the quarterly report"
    markup = answer(
        'Revenue grew [1]. <img src=x onerror="window.__xss=1"> See [the report](javascript:window.__xss=1) '
        "and <script>window.__xss=1</script> **done**. "
        '<a href="javascript:window.__xss=1" onclick="window.__xss=1">click</a> '
        '<iframe src="javascript:window.__xss=1"></iframe>'
        "[safe](https://example.org/report)",
        cited=(1,),
    )
    # The check finds the markup unsupported and retries (a retry's rewrite is a reflection
    # call too), so the model writes the same answer three times; it ends with a caveat.
    portal.scripts(
        {
            hostile: {
                "planner": [PLAN_RETRIEVE],
                "reasoning": [markup, markup, markup],
                "reflection": [verdict(), hostile, verdict(), hostile, verdict()],
            }
        }
    )
    page = new_page()

    # Two hostile files uploaded together; both index.
    portal.sign_in(page, "alice", "/knowledge/")
    page.locator("#kb-create-form").get_by_label("Name").fill("Reports")
    page.get_by_role("button", name="Create").click()
    page.wait_for_selector("#kb-title:text('Reports')")
    page.set_input_files(
        "#file-input", [str(FILES / "malicious.html"), str(FILES / "malicious.md")]
    )
    page.get_by_role("button", name="Upload").click()
    page.wait_for_function(
        "() => document.querySelectorAll(\"#upload-list li[data-status='ready']\").length === 2",
        timeout=120_000,
    )
    assert page.locator("#doc-rows tr[data-status='ready']").count() == 2
    no_xss(page)

    # The offline provider quotes the documents; every source card and its full text opens safely.
    page.goto(portal.url + "/")
    ask(page, "What grew at CERN partner sites?", "extractive")
    wait_state(page, "succeeded")
    cards = page.locator("#run-view .source-card")
    assert cards.count() >= 1
    for i in range(cards.count()):
        cards.nth(i).locator("summary").first.click()
        cards.nth(i).locator(".full-content summary").click()
    assert "CERN" in page.inner_text("#run-view [data-role=sources]")
    no_xss(page)
    extractive_run = current_run_id(page)

    # A model answer carrying markup renders as sanitised Markdown: no image, script, frame or
    # handler survives, a javascript: link loses its target, a web link opens safely.
    ask(page, hostile, "scripted")
    wait_state(page, "succeeded")

    def assert_sanitised(page) -> None:
        answer_part = page.locator("#run-view [data-role=answer]")
        assert answer_part.locator("img, script, iframe, [onclick], [onerror]").count() == 0
        assert page.locator("a[href^='javascript']").count() == 0
        assert answer_part.locator("strong").inner_text() == "done"
        assert answer_part.locator("a", has_text="the report").get_attribute("href") is None
        safe = answer_part.locator("a", has_text="safe")
        assert safe.get_attribute("href") == "https://example.org/report"
        assert safe.get_attribute("rel") == "noopener noreferrer nofollow"
        assert answer_part.locator("a.cite[data-cite='1']").count() == 1
        for text in ("the report", "click"):
            answer_part.get_by_text(text).click()
        no_xss(page)

    assert_sanitised(page)
    hostile_run = current_run_id(page)
    page.goto(f"{portal.url}/history/{hostile_run}/")
    page.wait_for_selector("#replay[data-replay='ready']")
    assert_sanitised(page)

    # Bob sees none of Alice's knowledge bases or runs, and her run pages are 404 to him.
    bob = new_page()
    portal.sign_in(bob, "bob")
    bob.wait_for_selector("#kb-options :text('No knowledge bases yet')")
    bob.goto(portal.url + "/knowledge/")
    bob.wait_for_selector("#kb-count:text('0')")
    assert "Reports" not in bob.inner_text("#kb-list")
    bob.goto(portal.url + "/history/")
    bob.wait_for_selector("#run-count:text('0 runs')")
    for run_id in (extractive_run, hostile_run):
        response = bob.goto(f"{portal.url}/history/{run_id}/")
        assert response.status == 404
        assert "404" in bob.inner_text("h1")
    response = bob.goto(f"{portal.url}/?run={hostile_run}")
    bob.wait_for_selector("#form-status:text('That run is not available.')")
    assert "Revenue" not in bob.inner_text("#run-view")


MARKDOWN_ANSWER = """## Results by site

| Site | Growth | Source |
|---|---:|---|
| Geneva | 12% | [1] |
| Meyrin | 8% | [1] |

- Revenue grew at both sites [1].
- The report's loader, in Python:

```python
def load(path: str) -> list[str]:
    \"\"\"Return the report's lines.\"\"\"
    # the figures of [1]
    with open(path) as handle:
        return handle.read().splitlines()
```

> Figures are for the last quarter.
"""


def test_answers_render_as_markdown_with_tables_code_and_citations(
    portal, new_page, django_user_model
):
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    kb = kb_create(owner=alice, name="Reports")
    documents_ingest_inline(kb=kb, items=[TextItem("report.txt", CURIE.encode())])
    query = "Summarise the report by site"
    portal.scripts(
        {
            query: {
                "planner": [PLAN_RETRIEVE],
                "reasoning": [answer(MARKDOWN_ANSWER, cited=(1,))],
                "reflection": [verdict()],
            }
        }
    )
    page = new_page()
    portal.sign_in(page, "alice")
    ask(page, query, "scripted")
    wait_state(page, "succeeded")
    answer_part = page.locator("#run-view [data-role=answer]")
    assert answer_part.locator("h2").inner_text() == "Results by site"
    assert answer_part.locator("table tbody tr").count() == 2
    assert answer_part.locator("table a.cite").count() == 2  # citations work inside cells
    assert answer_part.locator("li a.cite").count() == 1
    code = answer_part.locator("pre code.hljs")
    assert code.count() == 1 and code.locator(".hljs-keyword").count() >= 2
    # Inside code, [1] is code: left as written, not a citation link.
    assert "[1]" in code.inner_text() and code.locator("a.cite").count() == 0
    assert answer_part.locator("blockquote").count() == 1
    answer_part.locator("table a.cite").first.click()
    page.wait_for_selector("#run-view .source-card[open]")
    answer_part.scroll_into_view_if_needed()
    screenshot(page, "answer-markdown-light")
    page.evaluate("document.documentElement.dataset.theme = 'dark'")
    screenshot(page, "answer-markdown-dark")
    background = code.evaluate("node => getComputedStyle(node).backgroundColor")
    assert background == "rgb(13, 17, 23)", background  # github-dark's code background
