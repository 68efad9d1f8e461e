"""An evaluation set's page: its questions a page at a time with their expected answers and
not-in-the-documents flags, its delete (owner or staff; refused while an evaluation of it runs;
its evaluations go with it once confirmed), sets built from a conversation on the list page,
and the compare page's captions."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from queries.evaluation.pages import evaluation_caption
from queries.models import Conversation, Evaluation, EvaluationSet, QueryRun

pytestmark = pytest.mark.django_db

ITEMS = [
    {"question": f"Question {n}?", "not_in_documents": True}
    if n % 10 == 0
    else {"question": f"Question {n}?", "answers": [f"answer {n}"], "sources": ["a.txt"]}
    for n in range(1, 61)
]


def page_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def upload(client, items=ITEMS, **fields) -> EvaluationSet:
    file = io.BytesIO("\n".join(json.dumps(item) for item in items).encode())
    file.name = "set.jsonl"
    response = client.post("/evaluations/", {"action": "upload", "file": file, **fields})
    assert response.status_code == 302
    return EvaluationSet.objects.order_by("-id").first()


def test_a_set_page_lists_its_questions_a_page_at_a_time(user):
    client = page_for(user)
    evaluation_set = upload(client, name="Sixty")
    listed = client.get("/evaluations/").content.decode()
    assert f'href="/evaluations/sets/{evaluation_set.id}/"' in listed
    first = client.get(f"/evaluations/sets/{evaluation_set.id}/").content.decode()
    assert first.count("<tr data-position=") == 50
    assert first.count('data-not-in-documents="1"') == 5
    assert "Question 1?" in first and "answer 1" in first and "Question 51?" not in first
    assert "1–50 of 60" in first and 'href="?page=2"' in first
    second = client.get(f"/evaluations/sets/{evaluation_set.id}/?page=2").content.decode()
    assert second.count("<tr data-position=") == 10 and "Question 60?" in second
    assert "<script>" not in second  # the CSP allows no inline script
    assert 'id="delete-set-form"' in second


def test_only_the_owner_or_staff_delete_a_set_and_another_team_sees_none(
    user, other_user, django_user_model, staff_user
):
    lab = Group.objects.create(name="lab")
    user.groups.add(lab)
    mate = django_user_model.objects.create_user("dana", "dana@example.com", "dana-pass-123")
    mate.groups.add(lab)
    evaluation_set = upload(page_for(user), ITEMS[:3], team=str(lab.id))
    address = f"/evaluations/sets/{evaluation_set.id}/"
    teammate = page_for(mate)
    shown = teammate.get(address)
    assert shown.status_code == 200 and 'id="delete-set-form"' not in shown.content.decode()
    refused = teammate.post(address + "delete/", follow=True)
    assert "Only the owner or staff may delete this set." in refused.content.decode()
    outsider = page_for(other_user)
    assert outsider.get(address).status_code == 404
    assert outsider.post(address + "delete/").status_code == 404
    assert EvaluationSet.objects.filter(id=evaluation_set.id).exists()
    deleted = page_for(staff_user).post(address + "delete/", follow=True)
    assert "Set “set.jsonl” deleted." in deleted.content.decode()
    assert not EvaluationSet.objects.exists()


def test_a_set_s_delete_waits_for_its_evaluations_and_takes_them_once_confirmed(user):
    client = page_for(user)
    evaluation_set = upload(client, ITEMS[:3], name="Three")
    evaluation = Evaluation.objects.create(
        evaluation_set=evaluation_set, user=user, provider="extractive", status="running"
    )
    address = f"/evaluations/sets/{evaluation_set.id}/"
    page = client.get(address).content.decode()
    assert 'id="delete-refused"' in page and f'href="/evaluations/{evaluation.id}/"' in page
    refused = client.post(address + "delete/", {"confirm": "1"}, follow=True).content.decode()
    assert f"An evaluation of this set is still running (#{evaluation.id})" in refused
    evaluation.status = "succeeded"
    evaluation.save(update_fields=["status"])
    page = client.get(address).content.decode()
    assert "Its 1 evaluation(s) go with it" in page and 'name="confirm"' in page
    unconfirmed = client.post(address + "delete/", follow=True).content.decode()
    assert "Tick the box to delete the set&#x27;s 1 evaluation(s) with it." in unconfirmed
    assert EvaluationSet.objects.exists()
    done = client.post(address + "delete/", {"confirm": "1"}, follow=True)
    assert done.redirect_chain[-1][0] == "/evaluations/"
    assert "Set “Three” deleted, with its 1 evaluation(s)." in done.content.decode()
    assert not Evaluation.objects.exists() and not EvaluationSet.objects.exists()


def test_the_list_page_builds_a_set_from_a_conversation(user, other_user):
    conversation = Conversation.objects.create(user=user, title="Curie chat")
    QueryRun.objects.create(
        user=user, provider="extractive", conversation=conversation, status="succeeded",
        query="What did Marie Curie discover?", answer="Polonium and radium [1].",
        sources=[{"index": 1, "file_name": "curie.txt"}],
    )  # fmt: skip
    client = page_for(user)
    listed = client.get("/evaluations/").content.decode()
    assert f'<option value="{conversation.id}"' in listed and "Curie chat" in listed
    response = client.post(
        "/evaluations/", {"action": "conversation", "conversation": str(conversation.id)}
    )
    assert response.status_code == 302
    created = EvaluationSet.objects.get()
    assert (created.name, created.source, created.question_count) == (
        "Curie chat",
        "conversation",
        1,
    )
    assert created.questions.get().gold == {
        "answers": ["Polonium and radium"],
        "sources": ["curie.txt"],
    }
    theirs = Conversation.objects.create(user=other_user, title="Theirs")
    missing = client.post(
        "/evaluations/", {"action": "conversation", "conversation": str(theirs.id)}
    )
    assert missing.status_code == 400 and "No such conversation." in missing.content.decode()
    assert EvaluationSet.objects.count() == 1


@pytest.mark.parametrize(
    "label, overrides, caption",
    [
        ("rerank_top_k 1", {"rerank_top_k": 1}, "rerank_top_k 1 · extractive"),
        ("defaults", {}, "defaults · extractive"),
        ("", {"rerank_top_k": 1, "reranker": False}, "extractive · rerank_top_k 1, reranker off"),
        ("rerank_top_k 10", {"rerank_top_k": 1}, "rerank_top_k 10 · extractive · rerank_top_k 1"),
    ],
)
def test_the_compare_caption_says_each_setting_once(label, overrides, caption):
    evaluation = Evaluation(label=label, provider="extractive", overrides=overrides)
    assert evaluation_caption(evaluation) == caption
