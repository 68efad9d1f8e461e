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
