"""The answer streams into the portal as a real model writes it: llama.cpp in the worker.

A module of its own: its web process and worker run the `local` provider, and no other
module's worker may be listening on the queue meanwhile (it would take the job with another
model, or hold the run that the next test waits for).
"""

from __future__ import annotations

import pytest

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.models import QueryRun
from tests.portal.conftest import screenshot, session_sign_in
from tests.portal.test_pages import CURIE, ask, current_run_id, wait_state

pytestmark = pytest.mark.slow


def test_the_answer_streams_into_the_page_as_the_local_model_writes_it(
    stack, new_page, django_user_model, gguf_model
):
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "alice-pass-123")
    kb = kb_create(owner=alice, name="Physics")
    documents_ingest_inline(kb=kb, items=[TextItem("curie.txt", CURIE.encode())])
    # A stack of its own: the worker runs llama.cpp in-process with the small model from the
    # package registry. Small budgets keep a 2-core machine's run short; the answer still
    # streams in pieces.
    stack.env.update(
        LOCAL_MODEL_PATH=str(gguf_model),
        # The model writes every answer (quote-first would quote this lookup).
        ANSWER_STRATEGIES="local=model",
        MAX_REFLECTION_RETRIES="0",
        LLM_MAX_TOKENS_PLAN="64",
        LLM_MAX_TOKENS_ANSWER="64",
        LLM_MAX_TOKENS_REFLECT="48",
    )
    url = stack.start_web()
    stack.start_worker()
    stack.wait_for_worker()
    page = new_page()
    session_sign_in(page, url, "alice", secret_key=stack.env["SECRET_KEY"])
    # The model picker names a GGUF file by its model and quantisation; the file is the tooltip.
    page.wait_for_selector("#chat[data-ready='1']")
    page.select_option("#provider", "local")
    options = page.locator("#model option")
    shown = [
        (options.nth(i).inner_text(), options.nth(i).get_attribute("title"))
        for i in range(options.count())
    ]
    assert any(title.endswith(".gguf") for _, title in shown), shown
    assert not any(".gguf" in text for text, _ in shown), shown
    assert any(" · Q4_1" in text for text, _ in shown), shown
    ask(page, "Tell me everything about what Marie Curie discovered, in detail.", "local")
    # While the run is still going, the answer grows in the page as a draft.
    page.wait_for_selector("#run-view [data-role=answer] .answer-draft", timeout=90_000)
    first = page.inner_text("#run-view [data-role=answer] .answer-draft")
    assert page.get_attribute("#chat", "data-state") == "running"
    screenshot(page, "chat-local-streaming")
    page.wait_for_function(
        "n => (document.querySelector('#run-view .answer-draft') || {textContent: ''})"
        ".textContent.length > n || document.querySelector('#chat').dataset.state !== 'running'",
        arg=len(first),
    )
    wait_state(page, "succeeded", timeout=180_000)
    assert page.query_selector("#run-view .answer-draft") is None
    assert page.inner_text("#run-view [data-role=answer]").strip()
    screenshot(page, "chat-local-answer")
    run = QueryRun.objects.get(id=current_run_id(page))
    assert run.provider == "local" and run.usage["reasoning"]["output_tokens"] > 0
    assert run.events.filter(type="answer_delta").count() >= 1
