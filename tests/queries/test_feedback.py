"""Feedback on runs: one rating per user per run, its filters, its export and its admin."""

from __future__ import annotations

import json

import pytest

from queries.models import QueryRun, RunFeedback

pytestmark = pytest.mark.django_db(transaction=True)


def make_run(user, query="What did Marie Curie discover?", **fields) -> QueryRun:
    fields.setdefault("status", QueryRun.Status.SUCCEEDED)
    fields.setdefault("answer", "Polonium and radium [1].")
    fields.setdefault(
        "sources",
        [
            {
                "index": 1,
                "file_name": "curie.txt",
                "source_type": "vector",
                "url": "",
                "page": None,
                "rerank_score": 0.51,
                "content_preview": "Marie Curie discovered polonium and radium.",
                "content": "Marie Curie discovered polonium and radium.",
            }
        ],
    )
    return QueryRun.objects.create(user=user, query=query, provider="extractive", **fields)


@pytest.fixture
def staff_client(staff_user):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=staff_user).key}")
    return client


def rate(client, run, rating, comment=None):
    body = {"rating": rating}
    if comment is not None:
        body["comment"] = comment
    return client.post(f"/api/runs/{run.id}/feedback", body, format="json")


def test_a_rating_is_one_per_user_per_run_and_editable(auth_client, user):
    run = make_run(user)
    response = rate(auth_client, run, "up")
    assert response.status_code == 200
    body = response.json()
    assert body["mine"]["rating"] == "up" and body["mine"]["comment"] == ""
    assert (body["up"], body["down"]) == (1, 0)
    response = rate(auth_client, run, "down", "  It missed polonium's year.  ")
    body = response.json()
    assert body["mine"] == {
        **body["mine"],
        "rating": "down",
        "comment": "It missed polonium's year.",
    }
    assert (body["up"], body["down"]) == (0, 1)
    assert RunFeedback.objects.filter(run=run).count() == 1
    assert auth_client.get(f"/api/runs/{run.id}/feedback").json()["mine"]["rating"] == "down"
    detail = auth_client.get(f"/api/runs/{run.id}").json()
    assert detail["feedback"]["mine"]["comment"] == "It missed polonium's year."
    assert detail["ratings"] == {"up": 0, "down": 1}


def test_removing_a_rating(auth_client, user):
    run = make_run(user)
    rate(auth_client, run, "up")
    assert auth_client.delete(f"/api/runs/{run.id}/feedback").status_code == 204
    assert auth_client.get(f"/api/runs/{run.id}/feedback").json() == {
        "mine": None,
        "up": 0,
        "down": 0,
    }
    # Idempotent.
    assert auth_client.delete(f"/api/runs/{run.id}/feedback").status_code == 204


@pytest.mark.parametrize("rating", ["meh", "", None, 1, "UP", ["up"]])
def test_a_rating_other_than_up_or_down_is_400_invalid_rating(auth_client, user, rating):
    run = make_run(user)
    response = auth_client.post(f"/api/runs/{run.id}/feedback", {"rating": rating}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_rating"
    assert not RunFeedback.objects.exists()


def test_missing_rating_and_overlong_comment_are_400(auth_client, user):
    run = make_run(user)
    response = auth_client.post(f"/api/runs/{run.id}/feedback", {"comment": "hm"}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid_rating"
    response = rate(auth_client, run, "down", "x" * 2001)
    assert response.status_code == 400 and response.json()["code"] == "comment_too_long"
    response = rate(auth_client, run, "down", 42)
    assert response.status_code == 400 and response.json()["code"] == "invalid_request"
    assert rate(auth_client, run, "down", "x" * 2000).status_code == 200


def test_feedback_takes_a_json_object_with_known_keys_only(auth_client, user):
    run = make_run(user)
    url = f"/api/runs/{run.id}/feedback"
    unknown = auth_client.post(url, {"rating": "up", "stars": 5}, format="json")
    assert unknown.status_code == 400
    assert unknown.json()["code"] == "invalid_request" and "'stars'" in unknown.json()["error"]
    form = auth_client.post(url, {"rating": "up"})  # multipart, as a browser form posts
    assert form.status_code == 400 and form.json()["code"] == "invalid_request"
    urlencoded = auth_client.post(
        url, "rating=up", content_type="application/x-www-form-urlencoded"
    )
    assert urlencoded.status_code == 400 and urlencoded.json()["code"] == "invalid_request"
    for body in ("[]", '"up"', "null"):
        response = auth_client.post(url, body, content_type="application/json")
        assert response.status_code == 400, body
        assert response.json()["code"] == "invalid_request"
    assert not RunFeedback.objects.exists()
    assert rate(auth_client, run, "up").status_code == 200


def test_another_users_run_cannot_be_rated_or_read(auth_client, other_user):
    theirs = make_run(other_user)
    assert rate(auth_client, theirs, "up").status_code == 404
    assert auth_client.get(f"/api/runs/{theirs.id}/feedback").status_code == 404
    assert auth_client.delete(f"/api/runs/{theirs.id}/feedback").status_code == 404
    assert not RunFeedback.objects.exists()


def test_staff_may_rate_anyones_run_and_the_owner_sees_the_count_but_not_as_theirs(
    auth_client, user, staff_client
):
    run = make_run(user)
    assert rate(staff_client, run, "down", "Wrong element").status_code == 200
    mine = auth_client.get(f"/api/runs/{run.id}/feedback").json()
    assert mine == {"mine": None, "up": 0, "down": 1}


def test_history_filters_by_feedback(auth_client, user, staff_client):
    good, bad = make_run(user, "good"), make_run(user, "bad")
    make_run(user, "unrated")
    rate(auth_client, good, "up")
    rate(auth_client, bad, "down")
    rate(staff_client, good, "down")  # a second opinion

    def queries(feedback):
        response = auth_client.get("/api/runs", {"feedback": feedback})
        assert response.status_code == 200
        return sorted(run["query"] for run in response.json()["results"])

    assert queries("down") == ["bad", "good"]
    assert queries("up") == ["good"]
    assert queries("any") == ["bad", "good"]
    assert queries("none") == ["unrated"]
    rows = {r["query"]: r["ratings"] for r in auth_client.get("/api/runs").json()["results"]}
    assert rows == {
        "good": {"up": 1, "down": 1},
        "bad": {"up": 0, "down": 1},
        "unrated": {"up": 0, "down": 0},
    }
    response = auth_client.get("/api/runs", {"feedback": "sideways"})
    assert response.status_code == 400 and response.json()["code"] == "invalid_request"


def _export(client, **params) -> tuple[object, list[dict]]:
    response = client.get("/api/feedback/export", params)
    assert response.status_code == 200, response.content
    text = response.content.decode()
    return response, [json.loads(line) for line in text.splitlines()]


def test_export_is_json_lines_of_the_rated_runs_the_caller_sees(
    auth_client, user, other_user, staff_client
):
    run = make_run(user, standalone_query="What did Marie Curie discover in 1898?")
    make_run(user, "never rated")
    theirs = make_run(other_user, "their question")
    rate(auth_client, run, "down", "Missed the year")
    RunFeedback.objects.create(run=theirs, user=other_user, rating="up")
    # Staff's own rating of alice's run is staff's: alice's export (like her run page) holds
    # only her own ratings.
    rate(staff_client, run, "up", "Reviewer: fine")

    response, lines = _export(auth_client)
    assert response["Content-Type"] == "application/x-ndjson"
    assert response["Content-Disposition"].startswith('attachment; filename="feedback-')
    assert len(lines) == 1
    line = lines[0]
    assert line["run_id"] == str(run.id)
    assert line["question"] == run.query
    assert line["standalone_query"] == "What did Marie Curie discover in 1898?"
    assert line["answer"] == run.answer and line["sources"] == run.sources
    assert (line["rating"], line["comment"], line["rated_by"]) == (
        "down",
        "Missed the year",
        "alice",
    )
    assert line["created_at"].startswith(str(run.created_at.date()))
    # Staff export every user's rated runs; ?rating= narrows.
    _, everyone = _export(staff_client)
    assert sorted(line["question"] for line in everyone) == sorted(
        [run.query, run.query, "their question"]
    )
    _, up_only = _export(staff_client, rating="up")
    assert sorted(line["question"] for line in up_only) == sorted([run.query, "their question"])
    response = staff_client.get("/api/feedback/export", {"rating": "maybe"})
    assert response.status_code == 400 and response.json()["code"] == "invalid_rating"
    # An Accept the API does not render still gets JSON errors and the JSON Lines body.
    response = staff_client.get(
        "/api/feedback/export", {"rating": "maybe"}, HTTP_ACCEPT="application/x-ndjson"
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid_rating"


def test_admin_lists_feedback_by_rating_and_shows_it_on_the_run(client, django_user_model, user):
    admin = django_user_model.objects.create_superuser("root", "root@example.com", "root-pass-1")
    run = make_run(user)
    RunFeedback.objects.create(run=run, user=user, rating="down", comment="Wrong element named")
    other = make_run(user, "another question")
    RunFeedback.objects.create(run=other, user=user, rating="up", comment="Spot on")
    client.force_login(admin)
    page = client.get("/admin/queries/runfeedback/", {"rating__exact": "down"})
    assert page.status_code == 200
    html = page.content.decode()
    assert "Wrong element named" in html and "Spot on" not in html
    page = client.get(f"/admin/queries/queryrun/{run.id}/change/")
    assert page.status_code == 200 and "Wrong element named" in page.content.decode()
