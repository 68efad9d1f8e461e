"""The evaluation pages, server-rendered: the list and its forms, a bad upload's line errors,
an evaluation's plots and table, and two evaluations compared."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.core.management import call_command

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.evaluation.selectors import evaluation_compare
from queries.models import Evaluation, EvaluationSet

# Committed rows: retrieval reads the knowledge base over its own connection.
pytestmark = pytest.mark.django_db(transaction=True)

ITEMS = [
    {"question": "What did Marie Curie discover?", "answers": ["polonium"], "sources": ["curie.txt"]},
    {"question": "Who won the Nobel Prize in 1911?", "answers": ["Marie Curie"], "sources": ["nobel.txt"]},
    {"question": "Who manages the Lisbon office?", "not_in_documents": True},
]  # fmt: skip
DOCUMENTS = [
    ("curie.txt", "Marie Curie discovered polonium and radium in 1898."),
    ("nobel.txt", "The Nobel Prize in Chemistry of 1911 went to Marie Curie."),
]


@pytest.fixture
def signed_in(client, user):
    client.force_login(user)
    return client


def upload(client, text: str, name: str = "set.jsonl"):
    file = io.BytesIO(text.encode())
    file.name = name
    return client.post("/evaluations/", {"action": "upload", "file": file, "name": "Curie"})


def test_the_list_page_uploads_a_set_and_shows_a_bad_file_s_lines(signed_in):
    page = signed_in.get("/evaluations/")
    assert page.status_code == 200
    assert b'aria-current="page">Evaluations' in page.content
    response = upload(signed_in, "\n".join(json.dumps(item) for item in ITEMS))
    assert response.status_code == 302
    listed = signed_in.get("/evaluations/").content.decode()
    assert "Set “Curie” saved: 3 questions." in listed
    assert re.search(
        r'<tr data-set-id="(\d+)"><td><a href="/evaluations/sets/\1/" class="set-link">Curie</a>'
        r'</td><td class="num">3</td>',
        listed,
    )
    bad = upload(signed_in, '{"question": "x"}\n{oops\n')
    assert bad.status_code == 400
    text = bad.content.decode()
    assert "2 bad lines" in text
    assert "<li>line 1: no gold: give answers" in text and "<li>line 2: not JSON" in text
    assert EvaluationSet.objects.count() == 1


def test_an_evaluation_page_draws_its_plots_and_links_each_run(signed_in, user):
    kb = kb_create(owner=user, name="Physics")
    documents_ingest_inline(kb=kb, items=[TextItem(n, t.encode()) for n, t in DOCUMENTS])
    upload(signed_in, "\n".join(json.dumps(item) for item in ITEMS))
    set_id = EvaluationSet.objects.get().id
    for overrides in ("", '{"rerank_top_k": 1}'):
        call_command(
            "evaluate", "--set", str(set_id), "--kb", str(kb.id), "--provider", "extractive",
            "--inline", "--overrides", overrides, stdout=io.StringIO(),
        )  # fmt: skip
    first, second = Evaluation.objects.order_by("id")
    page = signed_in.get(f"/evaluations/{first.id}/").content.decode()
    assert 'data-status="succeeded"' in page and 'data-active="0"' in page
    for plot in ("plot-metrics", "plot-latency", "plot-verdicts-answerable"):
        assert f'<svg class="plot" id="{plot}"' in page
    # One bar per headline metric measured, and a dot per question per stage timed.
    assert page.count('class="plot-bar plot-series-0"') == 4
    assert page.count('class="plot-dot"') >= 3 * 5
    for item in first.items.all():
        assert f'href="/history/{item.run_id}/"' in page
    assert "style=" not in page.split('<svg class="plot"', 1)[1]  # the CSP allows no inline style
    # The second ran with rerank_top_k 1: the start form comes pre-filled with it.
    again = signed_in.get(f"/evaluations/{second.id}/").content.decode()
    assert 'name="rerank_top_k" min="1" max="20" placeholder="5" value="1"' in again
    compare = signed_in.get(f"/evaluations/compare/?a={first.id}&b={second.id}")
    assert compare.status_code == 200
    html = compare.content.decode()
    assert '<svg class="plot" id="plot-compare"' in html
    assert html.count('class="plot-bar plot-series-1"') == 4
    assert 'data-metric="fact_first"' in html
    # A against B, its baseline: the deltas are A − B, "better" where A passes and B did not.
    compared = evaluation_compare(a=second, b=first)
    measured = [m for m in compared["metrics"] if m["a"] is not None and m["b"] is not None]
    assert measured and all(m["delta"] == pytest.approx(m["a"] - m["b"]) for m in measured)
    for entry in compared["changed"]:
        a_side, b_side = entry["sides"]
        if a_side["passed"] != b_side["passed"]:
            assert entry["change"] == ("better" if a_side["passed"] else "worse")


def test_another_user_s_evaluation_page_is_404(signed_in, other_user, client):
    evaluation_set = EvaluationSet.objects.create(name="theirs", owner=other_user)
    evaluation = Evaluation.objects.create(
        evaluation_set=evaluation_set, user=other_user, provider="extractive"
    )
    assert signed_in.get(f"/evaluations/{evaluation.id}/").status_code == 404
    assert (
        signed_in.get(f"/evaluations/compare/?a={evaluation.id}&b={evaluation.id}").status_code
        == 404
    )
    assert signed_in.post(f"/evaluations/{evaluation.id}/cancel/").status_code == 404
