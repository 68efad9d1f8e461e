"""A conversation exported as Markdown or JSON: questions, answers, citations with file names."""

from __future__ import annotations

import json

import pytest

from queries.models import Conversation, QueryRun

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversation(user):
    conversation = Conversation.objects.create(user=user, title="Leave policy")
    QueryRun.objects.create(
        user=user,
        conversation=conversation,
        query="How many days of annual leave do I get?",
        provider="extractive",
        status=QueryRun.Status.SUCCEEDED,
        answer="Full-time staff get 25 days of annual leave [1].",
        sources=[
            {"index": 1, "file_name": "handbook.pdf", "page": 4, "section": ["Leave", "Annual"]}
        ],
        metadata={"verdict": "verified"},
    )
    QueryRun.objects.create(
        user=user,
        conversation=conversation,
        query="And part-time?",
        standalone_query="How many days of annual leave do part-time staff get?",
        provider="extractive",
        status=QueryRun.Status.FAILED,
        error_message="The model server did not answer.",
    )
    return conversation


def test_markdown_export_has_each_turn_its_answer_and_its_cited_files(auth_client, conversation):
    response = auth_client.get(f"/api/conversations/{conversation.id}/export?format=md")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/markdown")
    assert response["Content-Disposition"].endswith('.md"')
    text = response.content.decode()
    assert text.startswith("# Leave policy\n")
    assert "## 1. How many days of annual leave do I get?" in text
    assert "Full-time staff get 25 days of annual leave [1]." in text
    assert "- [1] handbook.pdf, page 4, Leave › Annual" in text
    assert "## 2. And part-time?" in text
    assert "_Read as: How many days of annual leave do part-time staff get?_" in text
    assert "_No answer (failed: The model server did not answer.)._" in text


def test_json_export_and_its_errors(auth_client, conversation, other_user):
    response = auth_client.get(f"/api/conversations/{conversation.id}/export?format=json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    export = json.loads(response.content)
    assert [turn["question"] for turn in export["turns"]] == [
        "How many days of annual leave do I get?",
        "And part-time?",
    ]
    assert export["turns"][0]["citations"][0]["file_name"] == "handbook.pdf"
    bad = auth_client.get(f"/api/conversations/{conversation.id}/export?format=pdf")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_request"
    theirs = Conversation.objects.create(user=other_user, title="Theirs")
    hidden = auth_client.get(f"/api/conversations/{theirs.id}/export")
    assert hidden.status_code == 404 and hidden.json()["code"] == "not_found"


@pytest.fixture
def team(user, other_user):
    from django.contrib.auth.models import Group

    team = Group.objects.create(name="People Ops")
    user.groups.add(team)
    other_user.groups.add(team)
    return team


def test_a_conversation_shared_with_a_team_opens_read_only_for_its_members(
    auth_client, conversation, team, other_user, django_user_model
):
    from django.test import Client

    from adrag_site.models import AuditEvent
    from knowledge.services import kb_create

    # The first turn searched a knowledge base the team may read, a third one a private one.
    shared_kb = kb_create(owner=conversation.user, name="Handbook", team=team)
    private_kb = kb_create(owner=conversation.user, name="Private notes")
    QueryRun.objects.filter(conversation=conversation, status="succeeded").update(
        kb_ids=[shared_kb.id]
    )
    QueryRun.objects.create(
        user=conversation.user,
        conversation=conversation,
        query="What did my review say?",
        provider="extractive",
        status=QueryRun.Status.SUCCEEDED,
        answer="Your review praised the onboarding guide [1].",
        sources=[{"index": 1, "file_name": "review-2026.docx"}],
        kb_ids=[private_kb.id],
    )
    # A follow-up read with the private answer: its standalone form holds that answer's words.
    QueryRun.objects.create(
        user=conversation.user,
        conversation=conversation,
        query="Who wrote it?",
        standalone_query="Who wrote the onboarding guide praised in my review?",
        provider="extractive",
        status=QueryRun.Status.SUCCEEDED,
        answer="Ines Duarte wrote the onboarding guide [1].",
        sources=[{"index": 1, "file_name": "onboarding.md"}],
        kb_ids=[shared_kb.id],
    )
    url = f"/api/conversations/{conversation.id}/share"
    shared = auth_client.put(url, {"team": "People Ops"}, format="json")
    assert shared.status_code == 200, shared.json()
    page = f"/shared/conversations/{conversation.id}/"
    assert shared.json() == {"shared_with": "People Ops", "url": page}
    listed = auth_client.get("/api/conversations").json()["results"][0]
    assert listed["shared_with"] == "People Ops"
    event = AuditEvent.objects.get(action="conversation_shared")
    assert event.actor == conversation.user and event.details == {
        "before": None,
        "after": "People Ops",
    }

    member = Client()
    member.force_login(other_user)
    opened = member.get(f"/api/shared/conversations/{conversation.id}").json()
    turns = opened["turns"]
    # The private turn, and the follow-up read with it, keep only their questions.
    assert [turn["withheld"] for turn in turns] == [False, False, True, True]
    assert turns[0]["answer"].startswith("Full-time staff get 25 days")
    assert turns[2]["question"] == "What did my review say?"
    assert turns[3]["standalone_question"] == turns[3]["question"] == "Who wrote it?"
    for turn in turns[2:]:
        assert turn["answer"] == turn["error"] == turn["verdict"] == ""
        assert turn["citations"] == []
    html = member.get(page).content.decode()
    assert "Full-time staff get 25 days of annual leave [1]." in html
    for private in ("review-2026.docx", "praised", "onboarding", "Ines Duarte"):
        assert private not in html and private not in json.dumps(opened)
    # The member's reads are in the audit trail, as exports.
    reads = AuditEvent.objects.filter(action="export", actor=other_user)
    assert reads.count() == 2 and reads.first().details == {"shared": True}
    assert "Withheld: this answer used a knowledge base you cannot read." in html
    # Read-only: a member can neither re-share it, nor delete it, nor ask in it.
    assert member.put(url, {"team": None}, content_type="application/json").status_code == 404
    assert member.delete(f"/api/conversations/{conversation.id}").status_code == 404

    outsider = Client()
    outsider.force_login(django_user_model.objects.create_user("dave", "d@example.com", "x"))
    assert outsider.get(page).status_code == 404
    assert outsider.get(f"/api/shared/conversations/{conversation.id}").status_code == 404

    # A team the owner is not in is refused like one that does not exist.
    from django.contrib.auth.models import Group

    Group.objects.create(name="Finance")
    refused = auth_client.put(url, {"team": "Finance"}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_team"
    assert auth_client.put(url, {}, format="json").status_code == 400

    assert auth_client.delete(url).status_code == 204
    assert member.get(page).status_code == 404
    owner = Client()
    owner.force_login(conversation.user)
    assert owner.get(page).status_code == 200  # the owner still reads it
