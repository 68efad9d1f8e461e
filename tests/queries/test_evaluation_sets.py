"""Evaluation sets: uploads in CSV, JSON Lines and JSON, bad files refused line by line, sets
built from rated answers or from a conversation, a set's questions, and who may see, delete and
run them (another team's looks missing)."""

from __future__ import annotations

import io
import json
import uuid

import pytest
from django.contrib.auth.models import Group
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from queries.models import Conversation, Evaluation, EvaluationSet, QueryRun, RunFeedback

pytestmark = pytest.mark.django_db

GOOD_JSONL = "\n".join(
    json.dumps(item)
    for item in [
        {"question": "What did Marie Curie discover?", "answers": ["polonium"], "sources": ["curie.txt"]},
        {"question": "Which elements?", "answers_all": ["polonium", "radium"]},
        {"question": "Who cooked the risotto?", "not_in_documents": True},
        {"question": "How is risotto cooked?", "passage": "arborio rice and stock", "kind": "prose"},
    ]
)  # fmt: skip
GOOD_CSV = (
    "question,answer,document,passage,not_in_documents\n"
    "What did Marie Curie discover?,polonium | radium,curie.txt,,\n"
    "Who won the 1911 prize?,Marie Curie,,,no\n"
    '"Where is the office, exactly?",,,,yes\n'
)


def client_for(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def upload(client, file_name: str, text: str, **fields):
    file = io.BytesIO(text.encode())
    file.name = file_name
    return client.post("/api/evaluation-sets", {"file": file, **fields}, format="multipart")


def test_a_json_lines_set_is_stored_with_its_gold(user):
    response = upload(client_for(user), "curie.jsonl", GOOD_JSONL, name="Curie")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["name"], body["question_count"], body["owner"]) == ("Curie", 4, "alice")
    questions = list(EvaluationSet.objects.get(id=body["id"]).questions.order_by("position"))
    assert [q.kind for q in questions] == ["", "", "unanswerable", "prose"]
    assert questions[0].gold == {"answers": ["polonium"], "sources": ["curie.txt"]}
    assert questions[1].gold == {"answers_all": ["polonium", "radium"]}
    assert questions[3].gold == {"passage": "arborio rice and stock"}


def test_a_csv_set_splits_answer_values_on_bars_and_reads_not_in_documents(user):
    response = upload(client_for(user), "set.csv", GOOD_CSV)
    assert response.status_code == 201, response.content
    assert response.json()["name"] == "set.csv"
    questions = list(EvaluationSet.objects.get().questions.order_by("position"))
    assert questions[0].gold == {"answers": ["polonium", "radium"], "sources": ["curie.txt"]}
    assert questions[1].kind == "" and questions[1].gold == {"answers": ["Marie Curie"]}
    assert questions[2].question == "Where is the office, exactly?"
    assert questions[2].kind == "unanswerable"


def test_the_bench_s_json_file_is_a_set_as_it_is(user):
    from tests.support import ROOT

    text = (ROOT / "bench" / "team_docs" / "questions.json").read_text()
    response = upload(client_for(user), "questions.json", text)
    assert response.status_code == 201, response.content
    questions = EvaluationSet.objects.get().questions
    assert questions.count() == len(json.loads(text)["questions"])
    follow_up = questions.get(external_id="f01")
    assert follow_up.gold["turns"] == ["Who runs the Porto office?"]
    assert questions.filter(kind="unanswerable").count() == 15


def test_a_bad_file_is_refused_with_every_bad_line_and_nothing_saved(user):
    text = "\n".join(
        [
            json.dumps({"question": "Fine?", "answers": ["yes"]}),
            "{not json",
            json.dumps({"question": "", "answers": ["x"]}),
            json.dumps({"question": "No gold?"}),
            json.dumps({"question": "Typo?", "answer_all": ["x"]}),
            json.dumps({"question": "Both?", "answers": ["x"], "not_in_documents": True}),
            json.dumps(["a list"]),
            json.dumps({"question": "Flag?", "answers": ["x"], "not_in_documents": "maybe"}),
        ]
    )
    response = upload(client_for(user), "bad.jsonl", text)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_evaluation_set"
    assert "7 bad lines" in body["error"] and "nothing was saved" in body["error"]
    errors = body["details"]["errors"]
    assert [e["line"] for e in errors] == [2, 3, 4, 5, 6, 7, 8]
    assert errors[0]["error"].startswith("not JSON")
    assert errors[1]["error"] == "question: missing or empty"
    assert "no gold" in errors[2]["error"]
    assert "unknown field 'answer_all'" in errors[3]["error"]
    assert "not in the documents has no expected answer" in errors[4]["error"]
    assert errors[6]["error"] == "not_in_documents: must be true or false"
    assert not EvaluationSet.objects.exists()


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("set.csv", "query,answer\nWhat?,x\n", "header row with a question column"),
        ("set.json", '{"items": []}', "list of items"),
        ("set.jsonl", "\n\n", "holds no questions"),
        ("set.jsonl", "\udcff", None),
    ],
)
def test_files_that_are_no_set_at_all_are_400(user, name, text, message):
    data = text.encode("utf-8", "surrogateescape")
    file = io.BytesIO(data)
    file.name = name
    response = client_for(user).post("/api/evaluation-sets", {"file": file}, format="multipart")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_evaluation_set"
    assert message is None or message in response.json()["error"]


def test_a_csv_line_number_is_the_file_s_line(user):
    text = 'question,answer\n"What did\nshe find?",radium\n,missing\n'
    response = upload(client_for(user), "set.csv", text)
    assert response.status_code == 400
    assert response.json()["details"]["errors"] == [
        {"line": 4, "error": "question: missing or empty"}
    ]


def test_no_file_is_400_no_file(user):
    response = client_for(user).post("/api/evaluation-sets", {"name": "x"}, format="multipart")
    assert (response.status_code, response.json()["code"]) == (400, "no_file")


def test_a_set_from_rated_answers_takes_the_good_ones(user):
    sources = [{"index": 1, "file_name": "curie.txt"}]
    good = QueryRun.objects.create(
        user=user, query="What did Marie Curie discover?", provider="extractive",
        status="succeeded", answer="Polonium and radium [1]. She won two prizes [1].",
        sources=sources,
    )  # fmt: skip
    not_found = QueryRun.objects.create(
        user=user, query="Who cooked?", provider="extractive", status="succeeded",
        answer="I could not find who cooked in the selected knowledge bases.",
    )  # fmt: skip
    bad = QueryRun.objects.create(
        user=user, query="When?", provider="extractive", status="succeeded", answer="Never [1]."
    )
    for run, rating in ((good, "up"), (not_found, "up"), (bad, "down")):
        RunFeedback.objects.create(run=run, user=user, rating=rating)
    response = client_for(user).post(
        "/api/evaluation-sets", {"name": "Rated", "from_feedback": True}, format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["source"] == "feedback"
    questions = {q.question: q for q in EvaluationSet.objects.get().questions.all()}
    assert set(questions) == {"What did Marie Curie discover?", "Who cooked?"}
    assert questions["What did Marie Curie discover?"].gold == {
        "answers": ["Polonium and radium"],
        "sources": ["curie.txt"],
    }
    assert questions["Who cooked?"].kind == "unanswerable"


def test_a_set_from_feedback_with_nothing_rated_good_is_400(user):
    response = client_for(user).post(
        "/api/evaluation-sets", {"name": "Rated", "from_feedback": True}, format="json"
    )
    assert (response.status_code, response.json()["code"]) == (400, "no_rated_answers")


def test_sets_are_shared_like_knowledge_bases(user, other_user, django_user_model):
    lab = Group.objects.create(name="lab")
    user.groups.add(lab)
    member = django_user_model.objects.create_user("dana", "dana@example.com", "dana-pass-123")
    member.groups.add(lab)
    shared = upload(client_for(user), "a.jsonl", GOOD_JSONL, team="lab").json()
    private = upload(client_for(user), "b.jsonl", GOOD_JSONL).json()
    assert shared["team"] == "lab"

    outsider, teammate = client_for(other_user), client_for(member)
    assert outsider.get("/api/evaluation-sets").json() == {"evaluation_sets": [], "count": 0}
    for set_id in (shared["id"], private["id"]):
        missing = outsider.get(f"/api/evaluation-sets/{set_id}")
        assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
        assert outsider.delete(f"/api/evaluation-sets/{set_id}").status_code == 404
    listed = teammate.get("/api/evaluation-sets").json()["evaluation_sets"]
    assert [s["id"] for s in listed] == [shared["id"]]
    assert teammate.get(f"/api/evaluation-sets/{private['id']}").status_code == 404
    refused = teammate.delete(f"/api/evaluation-sets/{shared['id']}")
    assert (refused.status_code, refused.json()["code"]) == (403, "permission_denied")
    assert client_for(user).delete(f"/api/evaluation-sets/{shared['id']}").status_code == 204
    assert list(EvaluationSet.objects.values_list("id", flat=True)) == [private["id"]]


def test_sharing_with_a_team_one_is_not_in_is_400(user, other_user):
    Group.objects.create(name="elsewhere")
    response = upload(client_for(user), "a.jsonl", GOOD_JSONL, team="elsewhere")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_team")


def conversation_with_runs(user, title: str = "Porto office"):
    """Return a conversation of five runs: two answered, one failed, one "could not find", one
    cancelled."""
    conversation = Conversation.objects.create(user=user, title=title)
    sources = [{"index": 1, "file_name": "offices.csv"}]
    runs = [
        dict(query="Who runs the Porto office?", status="succeeded", sources=sources,
             answer="Rita Sousa runs the Porto office [1]. She joined in 2019 [1]."),
        dict(query="How many people work there?", status="succeeded", sources=sources,
             standalone_query="How many people work in the Porto office?",
             answer="64 people work in the Porto office [1].",
             metadata={"verdict": "verified", "answer_values": [64.0]}),
        dict(query="And in Munich?", status="failed", answer=""),
        dict(query="Who cooks the risotto?", status="succeeded",
             answer="I could not find who cooks the risotto in the selected knowledge bases."),
        dict(query="Who runs the Lisbon office?", status="cancelled", answer=""),
    ]  # fmt: skip
    made = [
        QueryRun.objects.create(user=user, provider="extractive", conversation=conversation, **run)
        for run in runs
    ]
    return conversation, made


def test_a_set_from_a_conversation_takes_each_finished_question(user):
    conversation, runs = conversation_with_runs(user)
    response = client_for(user).post(
        "/api/evaluation-sets", {"conversation": str(conversation.id)}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["name"], body["source"], body["question_count"]) == (
        "Porto office",
        "conversation",
        3,
    )
    questions = list(EvaluationSet.objects.get().questions.order_by("position"))
    assert [q.question for q in questions] == [
        "Who runs the Porto office?",
        "How many people work in the Porto office?",  # the follow-up's standalone form
        "Who cooks the risotto?",
    ]
    assert questions[0].gold == {
        "answers": ["Rita Sousa runs the Porto office"],
        "sources": ["offices.csv"],
    }
    # The values the answer asserted as data are its expected answer.
    assert questions[1].gold == {"answers": ["64"], "sources": ["offices.csv"]}
    assert questions[2].kind == "unanswerable" and questions[2].gold == {}
    assert [q.external_id for q in questions] == [str(runs[i].id) for i in (0, 1, 3)]
    detail = client_for(user).get(f"/api/evaluation-sets/{body['id']}").json()
    assert [q["not_in_documents"] for q in detail["questions"]] == [False, False, True]
    assert detail["questions"][1]["expected"] == "64"


def test_a_conversation_set_takes_one_source_and_says_what_is_wrong(user):
    conversation, _ = conversation_with_runs(user)
    client = client_for(user)
    for body, code in (
        ({"conversation": str(conversation.id), "from_feedback": True}, "conflicting_sources"),
        ({"name": "Nothing"}, "invalid_request"),
        ({"conversation": "not-a-uuid"}, None),
    ):
        response = client.post("/api/evaluation-sets", body, format="json")
        assert response.status_code == 400, body
        assert code is None or response.json()["code"] == code
        assert response.json()["error"]
    assert (
        "conversation"
        in client.post("/api/evaluation-sets", {"conversation": "not-a-uuid"}, format="json")
        .json()["error"]
        .lower()
    )
    file = io.BytesIO(GOOD_JSONL.encode())
    file.name = "set.jsonl"
    both = client.post(
        "/api/evaluation-sets",
        {"file": file, "conversation": str(conversation.id)},
        format="multipart",
    )
    assert (both.status_code, both.json()["code"]) == (400, "conflicting_sources")
    as_form = client.post(
        "/api/evaluation-sets", {"conversation": str(conversation.id)}, format="multipart"
    )
    assert (as_form.status_code, as_form.json()["code"]) == (400, "invalid_request")
    assert "as JSON" in as_form.json()["error"]
    unanswered = Conversation.objects.create(user=user, title="Nothing answered")
    QueryRun.objects.create(
        user=user, provider="extractive", conversation=unanswered, query="Q?", status="failed"
    )
    empty = client.post("/api/evaluation-sets", {"conversation": str(unanswered.id)}, format="json")
    assert (empty.status_code, empty.json()["code"]) == (400, "no_finished_runs")
    assert not EvaluationSet.objects.exists()


def test_another_team_s_conversation_answers_like_a_missing_one(user, other_user):
    theirs, _ = conversation_with_runs(other_user, title="Theirs")
    client = client_for(user)
    seen = client.post("/api/evaluation-sets", {"conversation": str(theirs.id)}, format="json")
    gone = client.post("/api/evaluation-sets", {"conversation": str(uuid.uuid4())}, format="json")
    assert seen.status_code == gone.status_code == 404
    assert seen.json() == gone.json() == {"error": "Not found.", "code": "not_found"}
    # Shared with a team alice is in, it is hers to build a set from.
    lab = Group.objects.create(name="lab")
    user.groups.add(lab)
    theirs.shared_with = lab
    theirs.save(update_fields=["shared_with"])
    shared = client.post("/api/evaluation-sets", {"conversation": str(theirs.id)}, format="json")
    assert shared.status_code == 201, shared.content
    assert shared.json()["owner"] == "alice"


def test_a_set_s_detail_lists_its_questions(user):
    created = upload(client_for(user), "curie.jsonl", GOOD_JSONL, name="Curie").json()
    body = client_for(user).get(f"/api/evaluation-sets/{created['id']}").json()
    assert body["evaluation_count"] == 0
    assert [(q["position"], q["not_in_documents"]) for q in body["questions"]] == [
        (1, False), (2, False), (3, True), (4, False)
    ]  # fmt: skip
    assert body["questions"][1]["expected"] == "polonium and radium"
    assert body["questions"][0]["gold"] == {"answers": ["polonium"], "sources": ["curie.txt"]}


def test_a_set_is_not_deleted_while_an_evaluation_of_it_runs(user):
    created = upload(client_for(user), "curie.jsonl", GOOD_JSONL, name="Curie").json()
    evaluation_set = EvaluationSet.objects.get(id=created["id"])
    running = Evaluation.objects.create(
        evaluation_set=evaluation_set, user=user, provider="extractive", status="running"
    )
    refused = client_for(user).delete(f"/api/evaluation-sets/{created['id']}")
    assert refused.status_code == 409
    body = refused.json()
    assert body["code"] == "evaluation_running" and f"#{running.id}" in body["error"]
    assert body["details"] == {"running": [running.id]}
    running.status = "succeeded"
    running.save(update_fields=["status"])
    assert client_for(user).delete(f"/api/evaluation-sets/{created['id']}").status_code == 204
    # Its evaluations go with it; the audit trail keeps the delete.
    assert not Evaluation.objects.exists()
    from adrag_site.models import AuditEvent

    deleted = AuditEvent.objects.get(action="evaluation_set_deleted")
    assert deleted.target_id == str(created["id"])
