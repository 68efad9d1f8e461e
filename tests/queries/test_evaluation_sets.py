"""Evaluation sets: uploads in CSV, JSON Lines and JSON, bad files refused line by line, sets
built from rated answers, and who may see, delete and run them (another team's looks missing)."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth.models import Group
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from queries.models import EvaluationSet, QueryRun, RunFeedback

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
