"""Evaluations: a batch of ordinary runs, throttled behind people's questions, cancelled with
none left queued, scored exactly as the bench scores, seen only by who may read them.

The runs here are real: `manage.py evaluate --inline` runs each queued run's job body in this
process (the live worker's path is tests/queries/test_evaluations_live.py)."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries import services as run_services
from queries.answering.registry import get_strategy
from queries.evaluation.metrics import summarise, table_lines
from queries.evaluation.scoring import score
from queries.models import Evaluation, EvaluationSet, QueryRun, RunEvent
from queries.pipeline.events import ListSink
from queries.pipeline.runner import run_pipeline

# Committed rows: retrieval reads the knowledge base over its own connection.
pytestmark = pytest.mark.django_db(transaction=True)

DOCUMENTS = [
    ("curie.txt", "Marie Curie discovered polonium and radium in 1898. She won two Nobel Prizes."),
    ("offices.csv", "office,manager,people\nPorto,Rita Sousa,64\nMunich,Jonas Albrecht,88\n"),
    ("risotto.txt", "Risotto is cooked with arborio rice and stock added slowly."),
]
ITEMS = [
    {"id": "q1", "question": "What did Marie Curie discover?", "answers": ["polonium"],
     "sources": ["curie.txt"], "passage": "discovered polonium and radium", "kind": "prose"},
    {"id": "q2", "question": "Which elements did Marie Curie discover?",
     "answers_all": ["polonium", "radium"], "sources": ["curie.txt"], "kind": "prose"},
    {"id": "q3", "question": "Who manages the Munich office?", "answers": ["Jonas Albrecht"],
     "sources": ["offices.csv"], "kind": "table"},
    {"id": "q4", "question": "How is risotto cooked?", "passage": "arborio rice and stock",
     "answers": ["arborio"], "sources": ["risotto.txt"], "kind": "prose"},
    {"id": "q5", "question": "Who manages the Lisbon office?", "kind": "unanswerable"},
    {"id": "q6", "turns": ["Who manages the Porto office?"], "question": "How many people work there?",
     "answers": ["64"], "sources": ["offices.csv"], "standalone_contains": ["Porto"],
     "kind": "followup"},
]  # fmt: skip


def client_for(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def make_set(client, items=ITEMS, **fields) -> int:
    file = io.BytesIO("\n".join(json.dumps(item) for item in items).encode())
    file.name = "set.jsonl"
    response = client.post("/api/evaluation-sets", {"file": file, **fields}, format="multipart")
    assert response.status_code == 201, response.content
    return response.json()["id"]


@pytest.fixture
def kb(user):
    kb = kb_create(owner=user, name="Office")
    documents_ingest_inline(kb=kb, items=[TextItem(n, t.encode()) for n, t in DOCUMENTS])
    return kb


def job_rows(run_ids) -> list[tuple[str, int]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT status::text, priority FROM procrastinate_jobs WHERE args->>'run_id' = ANY(%s)"
            " ORDER BY id",
            [[str(run_id) for run_id in run_ids]],
        )
        return cursor.fetchall()


def test_an_evaluation_queues_only_its_window_behind_people_s_questions(user, kb, settings):
    settings.EVALUATION_RUNS_IN_FLIGHT = 2
    settings.RUNS_MAX_CONCURRENT_PER_USER = 1
    client = client_for(user)
    set_id = make_set(client)
    response = client.post(
        "/api/evaluations",
        {"evaluation_set": set_id, "knowledge_bases": [kb.id], "provider": "extractive"},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["question_count"], body["progress"]["running"]) == (
        "running",
        6,
        2,
    )
    runs = list(QueryRun.objects.filter(evaluation_id=body["id"]))
    assert len(runs) == 2 and {run.status for run in runs} == {"queued"}
    assert job_rows([run.id for run in runs]) == [("todo", -10), ("todo", -10)]
    # The person's own limit (one active run) does not count the evaluation's runs, and their
    # question's job comes before the evaluation's.
    mine = run_services.run_create(
        user=user, query="What did Marie Curie discover?", provider_name="extractive",
        model=None, kb_ids=[kb.id],
    )  # fmt: skip
    assert job_rows([mine.id]) == [("todo", 0)]


def start_extractive(client, kb) -> int:
    """Start an evaluation of the usual set over the knowledge base, extractive; return its id."""
    return client.post(
        "/api/evaluations",
        {"evaluation_set": make_set(client), "knowledge_bases": [kb.id], "provider": "extractive"},
        format="json",
    ).json()["id"]


def test_cancel_leaves_no_queued_run_and_queues_nothing_after(user, kb):
    client = client_for(user)
    evaluation_id = start_extractive(client, kb)
    runs = list(QueryRun.objects.filter(evaluation_id=evaluation_id).values_list("id", flat=True))
    assert runs
    response = client.post(f"/api/evaluations/{evaluation_id}/cancel")
    assert response.status_code == 202
    assert response.json() == {"id": evaluation_id, "status": "cancelled"}
    assert not QueryRun.objects.filter(evaluation_id=evaluation_id, status="queued").exists()
    assert set(QueryRun.objects.filter(id__in=runs).values_list("status", flat=True)) == {
        "cancelled"
    }
    assert all(status != "todo" for status, _ in job_rows(runs))
    detail = client.get(f"/api/evaluations/{evaluation_id}").json()
    assert detail["progress"] == {"pending": 0, "running": 0, "done": 0, "cancelled": 6}
    from queries.evaluation.services import evaluation_advance

    evaluation_advance(evaluation_id=evaluation_id)
    assert QueryRun.objects.filter(evaluation_id=evaluation_id).count() == len(runs)
    again = client.post(f"/api/evaluations/{evaluation_id}/cancel")
    assert again.status_code == 202  # idempotent


def test_cancel_holds_when_a_run_ends_between_its_query_and_its_cancel(user, kb, monkeypatch):
    """A worker finishing a run while the evaluation is cancelled: that run keeps how it
    ended, the others are cancelled, and the cancel answers 202 (it used to fail whole with
    the run's 409 "run_finished", leaving the evaluation running)."""
    client = client_for(user)
    evaluation_id = start_extractive(client, kb)
    runs = list(QueryRun.objects.filter(evaluation_id=evaluation_id).order_by("created_at"))
    finished = runs[0]
    cancel = run_services.run_cancel

    def ended_meanwhile(*, run):
        if run.id == finished.id:
            QueryRun.objects.filter(id=run.id).update(status=QueryRun.Status.SUCCEEDED)
        return cancel(run=run)

    monkeypatch.setattr(run_services, "run_cancel", ended_meanwhile)
    response = client.post(f"/api/evaluations/{evaluation_id}/cancel")
    assert response.status_code == 202, response.content
    assert Evaluation.objects.get(id=evaluation_id).status == "cancelled"
    statuses = dict(
        QueryRun.objects.filter(evaluation_id=evaluation_id).values_list("id", "status")
    )
    assert statuses.pop(finished.id) == "succeeded"
    assert set(statuses.values()) == {"cancelled"}


def bench_table(items: list[dict], kb_id: int) -> list[str]:
    """Score the items as bench/team_answers.py does: the pipeline in process, follow-ups with
    their earlier turns as history."""
    rows = []
    for item in items:
        history = []
        for turn in item.get("turns", []):
            earlier = run_pipeline(
                query=turn, strategy=get_strategy("extractive"), kb_ids=[kb_id],
                sink=ListSink(), history=list(history),
            )  # fmt: skip
            history.append(
                {"query": turn, "standalone_query": earlier.standalone_query or turn,
                 "answer": earlier.answer}
            )  # fmt: skip
        outcome = run_pipeline(
            query=item["question"], strategy=get_strategy("extractive"), kb_ids=[kb_id],
            sink=ListSink(), history=history,
        )  # fmt: skip
        rows.append({"kind": item["kind"], **score(item, outcome)})
    return table_lines(summarise(rows))


# The lines of what the bench measures (it ranks no passages and times no stages).
NOT_BENCH = (" ms p50", "retrieval recall@k", "retrieval MRR")


def bench_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if not any(part in line for part in NOT_BENCH)]


def test_manage_py_evaluate_prints_the_bench_s_numbers_from_real_runs(user, kb, tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(item) for item in ITEMS))
    out = io.StringIO()
    call_command(
        "evaluate", "--set", str(path), "--kb", str(kb.id), "--provider", "extractive",
        "--user", user.username, "--inline", stdout=out,
    )  # fmt: skip
    printed = out.getvalue().splitlines()
    evaluation = Evaluation.objects.get()
    assert printed[0] == f"evaluation #{evaluation.id}: 6 questions"
    assert printed[-1].startswith("status: succeeded; wall time")
    table = printed[1:-1]
    assert bench_lines(table) == bench_lines(bench_table(ITEMS, kb.id))
    assert any("planner ms p50 / p95" in line for line in table)
    # Seven ordinary runs (a follow-up's earlier turn first), each with its whole event log.
    runs = QueryRun.objects.filter(evaluation=evaluation)
    assert runs.count() == 7 and set(runs.values_list("status", flat=True)) == {"succeeded"}
    for run in runs:
        assert RunEvent.objects.filter(run=run).order_by("-seq").first().type == "stream_end"
    follow_up = evaluation.items.get(question__external_id="q6")
    assert follow_up.run.conversation_id is not None and follow_up.turns_done == 1
    assert "porto" in follow_up.run.standalone_query.lower()
    headline = evaluation.metrics["headline"]
    assert headline["honest_not_found"] == {"share": 1.0, "hits": 1, "n": 1}, evaluation.items.get(
        question__external_id="q5"
    ).score
    assert headline["recall_at_k"]["n"] == 2 and headline["mrr"]["share"] > 0
    passage_row = evaluation.items.get(question__external_id="q1").score
    assert passage_row["passage_found"] and passage_row["recall_at_k"] == 1.0
    assert passage_row["reciprocal_rank"] > 0


def test_the_detail_answers_rows_as_json_and_csv(user, kb, tmp_path):
    client = client_for(user)
    set_id = make_set(client, ITEMS[:2])
    call_command(
        "evaluate", "--set", str(set_id), "--kb", str(kb.id), "--provider", "extractive",
        "--inline", stdout=io.StringIO(),
    )  # fmt: skip
    evaluation = Evaluation.objects.get()
    body = client.get(f"/api/evaluations/{evaluation.id}").json()
    assert body["status"] == "succeeded" and body["done_count"] == 2
    assert [row["question"] for row in body["rows"]] == [i["question"] for i in ITEMS[:2]]
    assert all(row["run_id"] for row in body["rows"])
    assert body["metrics"]["headline"]["fact_first"]["n"] == 2
    csv_response = client.get(f"/api/evaluations/{evaluation.id}?format=csv")
    assert csv_response["Content-Type"].startswith("text/csv")
    lines = csv_response.content.decode().splitlines()
    assert lines[0].startswith("position,id,kind,question,expected,status,run_id")
    assert len(lines) == 3 and lines[1].startswith("1,q1,prose,What did Marie Curie discover?")
    from adrag_site.models import AuditEvent

    exported = AuditEvent.objects.get(action="export", target_type="evaluation")
    assert (exported.actor, exported.target_id) == (user, str(evaluation.id))
    assert AuditEvent.objects.filter(action="upload", target_type="evaluationset").count() == 1
    bad = client.get(f"/api/evaluations/{evaluation.id}?format=xml")
    assert (bad.status_code, bad.json()["code"]) == (400, "invalid_request")


@pytest.mark.parametrize(
    "settings_body, code",
    [
        ({"rerank_top_k": 0}, "invalid_override"),
        ({"provider": "extractive"}, "invalid_override"),
        ({"no_such_setting": 1}, "invalid_override"),
    ],
)
def test_bad_settings_are_400(user, kb, settings_body, code):
    client = client_for(user)
    set_id = make_set(client, ITEMS[:1])
    response = client.post(
        "/api/evaluations",
        {"evaluation_set": set_id, "knowledge_bases": [kb.id], "settings": settings_body},
        format="json",
    )
    assert (response.status_code, response.json()["code"]) == (400, code)
    assert not Evaluation.objects.exists()


def test_another_team_s_sets_and_evaluations_look_missing(user, other_user, kb, django_user_model):
    lab = Group.objects.create(name="lab")
    user.groups.add(lab)
    teammate = django_user_model.objects.create_user("dana", "dana@example.com", "dana-pass-123")
    teammate.groups.add(lab)
    owner = client_for(user)
    set_id = make_set(owner, ITEMS[:1], team="lab")
    start = {"evaluation_set": set_id, "knowledge_bases": [kb.id], "provider": "extractive"}
    evaluation_id = owner.post("/api/evaluations", start, format="json").json()["id"]
    outsider = client_for(other_user)
    for method, path in (
        ("get", f"/api/evaluations/{evaluation_id}"),
        ("get", f"/api/evaluations/{evaluation_id}?format=csv"),
        ("post", f"/api/evaluations/{evaluation_id}/cancel"),
        ("get", f"/api/evaluation-sets/{set_id}"),
        ("get", f"/api/evaluations?set={set_id}"),
    ):
        response = getattr(outsider, method)(path)
        assert (response.status_code, response.json()["code"]) == (404, "not_found"), path
    assert outsider.get("/api/evaluations").json()["count"] == 0
    # Starting one on another team's set, or over its knowledge base, looks missing too.
    other_set = make_set(outsider, ITEMS[:1])
    for body in (start, {**start, "evaluation_set": other_set}):
        response = outsider.post("/api/evaluations", body, format="json")
        assert (response.status_code, response.json()["code"]) == (404, "not_found")
    # A teammate sees the set, but not an evaluation over a knowledge base they cannot read;
    # shared with the team, they see it and cannot cancel it.
    mate = client_for(teammate)
    assert mate.get(f"/api/evaluations/{evaluation_id}").status_code == 404
    kb.team = lab
    kb.save(update_fields=["team"])
    assert mate.get(f"/api/evaluations/{evaluation_id}").status_code == 200
    refused = mate.post(f"/api/evaluations/{evaluation_id}/cancel")
    assert (refused.status_code, refused.json()["code"]) == (403, "permission_denied")
    assert EvaluationSet.objects.count() == 2


def test_a_run_cancelled_on_its_own_page_is_scored_and_the_next_queued(user, kb, settings):
    settings.EVALUATION_RUNS_IN_FLIGHT = 1
    client = client_for(user)
    set_id = make_set(client, ITEMS[:3])
    start = {"evaluation_set": set_id, "knowledge_bases": [kb.id], "provider": "extractive"}
    evaluation_id = client.post("/api/evaluations", start, format="json").json()["id"]
    first = QueryRun.objects.get(evaluation_id=evaluation_id)
    run_services.run_cancel(run=first)
    from queries.evaluation.services import evaluations_advance_active

    assert evaluations_advance_active() == 1  # the periodic task's pass
    body = client.get(f"/api/evaluations/{evaluation_id}").json()
    assert body["progress"] == {"pending": 1, "running": 1, "done": 1, "cancelled": 0}
    row = body["rows"][0]
    assert (row["run_id"], row["run_status"], row["fact_first"]) == (
        str(first.id),
        "cancelled",
        False,
    )
    queued = QueryRun.objects.filter(evaluation_id=evaluation_id, status="queued")
    assert [run.query for run in queued] == [ITEMS[1]["question"]]


def test_manage_py_evaluate_refuses_what_the_api_refuses(user, other_user, kb, tmp_path):
    from django.core.management.base import CommandError

    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(ITEMS[0]))
    for arguments, message in (
        (["--provider", "nope", "--user", user.username], "Unknown provider 'nope'."),
        (["--user", other_user.username], f"No such knowledge base: {kb.id}."),
        (["--user", "nobody"], "No user 'nobody'."),
        (["--user", user.username, "--overrides", '{"rerank_top_k": 99}'], "rerank_top_k: must be"),
    ):
        with pytest.raises(CommandError, match=re.escape(message)):
            call_command("evaluate", "--set", str(path), "--kb", str(kb.id), *arguments)
    assert not Evaluation.objects.exists()


def test_manage_py_evaluate_runs_a_set_built_from_a_conversation(user, other_user, kb):
    from django.core.management.base import CommandError

    from queries.models import Conversation

    conversation = Conversation.objects.create(user=user, title="Curie")
    QueryRun.objects.create(
        user=user, provider="extractive", conversation=conversation, status="succeeded",
        query="What did Marie Curie discover?", answer="Polonium and radium [1].",
        sources=[{"index": 1, "file_name": "curie.txt"}], kb_ids=[kb.id],
    )  # fmt: skip
    out = io.StringIO()
    call_command(
        "evaluate", "--set", f"conversation:{conversation.id}", "--kb", str(kb.id),
        "--provider", "extractive", "--user", user.username, "--inline", stdout=out,
    )  # fmt: skip
    evaluation = Evaluation.objects.get()
    assert evaluation.evaluation_set.source == "conversation"
    assert out.getvalue().splitlines()[0] == f"evaluation #{evaluation.id}: 1 questions"
    assert evaluation.status == "succeeded"
    with pytest.raises(CommandError, match="No such conversation."):
        call_command(
            "evaluate", "--set", f"conversation:{conversation.id}", "--kb", str(kb.id),
            "--user", other_user.username,
        )  # fmt: skip
