"""Conversations: follow-ups through POST /api/query, the conversations API, and who may see what."""

from __future__ import annotations

import re
import uuid

import pytest
import requests
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.execution import conversation_history
from queries.models import Conversation, QueryRun
from queries.services import conversation_title, run_create
from tests.queries.clients import js_reader_frames
from tests.queries.pipeline.contract import check_frames

pytestmark = pytest.mark.django_db(transaction=True)

# Two projects described alike: "who deployed it first?" names one only with the first turn.
PLATFORM_DOCS = {
    "falcon.md": (
        "# Project Falcon\n\nProject Falcon is the payments scheduler that batches card "
        "settlements every night. Maria Santos deployed Project Falcon first, on 14 March 2021, "
        "from the Lisbon office. It runs on three PostgreSQL replicas."
    ),
    "heron.md": (
        "# Project Heron\n\nProject Heron is the search indexer that rebuilds the product "
        "catalogue every hour. Kenji Watanabe deployed Project Heron first, on 2 June 2022, "
        "from the Osaka office. It runs on a single Elasticsearch cluster."
    ),
    "risotto.md": "Risotto is cooked with arborio rice and stock added slowly.",
}
TURNS = ["What does Project Falcon do?", "Who deployed it first?", "And when?"]


def client_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def platform_kb(owner):
    kb = kb_create(owner=owner, name="Platform")
    documents_ingest_inline(
        kb=kb, items=[TextItem(name, text.encode()) for name, text in PLATFORM_DOCS.items()]
    )
    return kb


def cited_files(answer: str, sources: list[dict]) -> list[str]:
    """Return the files the answer's [n] citations point at, in order of first citation."""
    by_index = {source["index"]: source["file_name"] for source in sources}
    cited = [int(n) for n in re.findall(r"\[(\d+)\]", answer)]
    return list(dict.fromkeys(by_index[n] for n in cited if n in by_index))


def ask_conversation(url: str, headers: dict, provider: str, turns=TURNS) -> list[dict]:
    """Ask the turns in one conversation through POST /api/query; return each run's detail."""
    conversation = None
    details = []
    for question in turns:
        body = {"query": question, "provider": provider}
        if conversation:
            body["conversation"] = conversation
        response = requests.post(
            url + "/api/query", json=body, headers=headers, stream=True, timeout=(5, 300)
        )
        assert response.status_code == 200, response.text
        frames, _ = js_reader_frames(response)
        check_frames(frames)
        assert [f["type"] for f in frames[-2:]] == ["done", "stream_end"], frames[-2:]
        planner = next(
            f["data"]
            for f in frames
            if f["type"] == "stage_complete" and f["data"]["stage"] == "planner"
        )
        if conversation is None:
            conversation = response.headers["X-Conversation-Id"]
        assert response.headers["X-Conversation-Id"] == conversation
        detail = requests.get(
            f"{url}/api/runs/{response.headers['X-Run-Id']}", headers=headers, timeout=30
        ).json()
        assert detail["conversation"] == conversation
        assert detail["standalone_query"] == planner["standalone_query"]
        details.append(detail)
    return details


def transcript(details: list[dict]) -> str:
    lines = []
    for n, run in enumerate(details, start=1):
        answer = (run["answer"].strip().splitlines() or [""])[0]
        lines.append(
            f"{n}. asked: {run['query']!r}\n   standalone_query: {run['standalone_query']!r}\n"
            f"   answer: {answer[:160]!r}\n   cited: {cited_files(run['answer'], run['sources'])}"
        )
    return "\n".join(lines)


@pytest.mark.slow
def test_a_three_turn_conversation_with_the_extractive_provider(shared_stack, user):
    platform_kb(user)
    headers = {"Authorization": f"Token {Token.objects.create(user=user).key}"}
    details = ask_conversation(shared_stack.url, headers, "extractive")
    print("\nextractive conversation:\n" + transcript(details))
    first, second, third = details
    assert [run["query"] for run in details] == TURNS
    assert all(run["status"] == "succeeded" for run in details)
    # The first question stands alone; the follow-ups carry its subject.
    assert first["standalone_query"] == TURNS[0]
    assert second["standalone_query"] == "Who deployed Project Falcon first?"
    assert third["standalone_query"] == "Who deployed Project Falcon first, and when?"
    assert "payments scheduler" in first["answer"]
    assert "Maria Santos" in second["answer"] and "Kenji" not in second["answer"]
    assert "14 March 2021" in third["answer"] and "2022" not in third["answer"]
    for run in details:
        assert cited_files(run["answer"], run["sources"]) == ["falcon.md"]
    # The conversation lists its three turns in order, with both questions of each.
    conversation = requests.get(
        f"{shared_stack.url}/api/conversations/{first['conversation']}",
        headers=headers,
        timeout=30,
    ).json()
    assert conversation["title"] == TURNS[0]
    assert [(r["query"], r["standalone_query"]) for r in conversation["runs"]] == [
        (run["query"], run["standalone_query"]) for run in details
    ]
    assert conversation["runs"][2]["sources"][0]["file_name"] == "falcon.md"


@pytest.mark.parametrize("value", ["nope", "", 12, ["x"], {"id": 1}, True])
def test_a_conversation_that_is_not_an_id_is_a_400(auth_client, value):
    response = auth_client.post(
        "/api/query", {"query": "And when?", "conversation": value}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_conversation"
    assert QueryRun.objects.count() == 0


def test_another_users_or_an_unknown_conversation_is_a_404(
    auth_client, user, other_user, staff_user
):
    theirs = Conversation.objects.create(user=other_user, title="Bob's")
    for conversation in (theirs.id, uuid.uuid4()):
        response = auth_client.post(
            "/api/query", {"query": "And when?", "conversation": str(conversation)}, format="json"
        )
        assert response.status_code == 404
        assert response.json() == {"error": "No such conversation.", "code": "not_found"}
    # Staff may read anyone's conversation, but a follow-up joins only one's own.
    response = client_for(staff_user).post(
        "/api/query", {"query": "And when?", "conversation": str(theirs.id)}, format="json"
    )
    assert response.status_code == 404
    assert QueryRun.objects.count() == 0


def test_a_run_opens_a_conversation_and_a_follow_up_brings_it_to_the_top(user, settings):
    settings.RUNS_MAX_CONCURRENT_PER_USER = 10
    first = run_create(
        user=user,
        query="  What does   Project Falcon do?  ",
        provider_name="extractive",
        model=None,
        kb_ids=[],
        start_conversation=True,
    )
    older = run_create(
        user=user,
        query="What is risotto?",
        provider_name="extractive",
        model=None,
        kb_ids=[],
        start_conversation=True,
    )
    assert first.conversation.title == "What does Project Falcon do?"
    assert first.conversation_id != older.conversation_id
    assert list(Conversation.objects.filter(user=user)) == [older.conversation, first.conversation]
    follow_up = run_create(
        user=user,
        query="Who deployed it first?",
        provider_name="extractive",
        model=None,
        kb_ids=[],
        conversation=first.conversation,
    )
    assert follow_up.conversation_id == first.conversation_id
    assert list(Conversation.objects.filter(user=user))[0] == first.conversation
    # A run started without asking for a conversation (a re-run, say) opens none.
    bare = run_create(user=user, query="x", provider_name="extractive", model=None, kb_ids=[])
    assert bare.conversation is None


def test_a_long_first_question_is_cut_at_a_word_for_the_title():
    title = conversation_title("Why " + "does the nightly settlement batch " * 10 + "fail?")
    assert len(title) <= 80 and title.endswith("…") and not title.endswith(" …")
    assert title.startswith("Why does the nightly settlement batch does")


def test_history_is_the_earlier_answered_turns_of_the_conversation(user):
    conversation = Conversation.objects.create(user=user, title="t")
    runs = [
        QueryRun.objects.create(
            user=user,
            query=f"q{n}",
            standalone_query=f"s{n}",
            answer=f"a{n}",
            provider="extractive",
            status=status,
            conversation=conversation,
        )
        for n, status in enumerate(["succeeded", "failed", "succeeded", "succeeded"])
    ]
    assert conversation_history(runs[3]) == [
        {"query": "q0", "standalone_query": "s0", "answer": "a0"},
        {"query": "q2", "standalone_query": "s2", "answer": "a2"},
    ]
    assert conversation_history(runs[0]) == []


def make_conversation(owner, title: str, queries: list[str]) -> Conversation:
    conversation = Conversation.objects.create(user=owner, title=title)
    for query in queries:
        QueryRun.objects.create(
            user=owner,
            query=query,
            standalone_query=query + " (standalone)",
            answer=f"About {query} [1].",
            sources=[{"index": 1, "file_name": "falcon.md", "content": "..."}],
            provider="extractive",
            status="succeeded",
            conversation=conversation,
        )
    return conversation


def test_the_conversations_api_lists_ones_own_newest_first_and_shows_their_turns(
    auth_client, user, other_user
):
    older = make_conversation(user, "Falcon", ["What does Project Falcon do?", "Who deployed it?"])
    newer = make_conversation(user, "Heron", ["What is Project Heron?"])
    make_conversation(other_user, "Bob's", ["Secret?"])
    body = auth_client.get("/api/conversations").json()
    assert body["count"] == 2 and body["next"] is None
    assert [(c["title"], c["run_count"]) for c in body["results"]] == [("Heron", 1), ("Falcon", 2)]
    assert body["results"][0]["user"] == "alice"
    paged = auth_client.get("/api/conversations?page_size=1&page=2").json()
    assert [c["id"] for c in paged["results"]] == [str(older.id)] and paged["previous"]
    detail = auth_client.get(f"/api/conversations/{older.id}").json()
    assert detail["id"] == str(older.id) and detail["title"] == "Falcon"
    assert [
        (r["query"], r["standalone_query"], r["status"], r["answer"]) for r in detail["runs"]
    ] == [
        (
            "What does Project Falcon do?",
            "What does Project Falcon do? (standalone)",
            "succeeded",
            "About What does Project Falcon do? [1].",
        ),
        (
            "Who deployed it?",
            "Who deployed it? (standalone)",
            "succeeded",
            "About Who deployed it? [1].",
        ),
    ]
    assert detail["runs"][0]["sources"] == [{"index": 1, "file_name": "falcon.md"}]
    assert set(detail["runs"][0]) == {
        "id", "query", "standalone_query", "status", "answer", "error_code", "created_at", "sources",
    }  # fmt: skip
    # The run's own detail and the run list say which conversation it belongs to.
    run_id = detail["runs"][1]["id"]
    run = auth_client.get(f"/api/runs/{run_id}").json()
    assert run["conversation"] == str(older.id)
    assert run["standalone_query"] == "Who deployed it? (standalone)"
    listed = {r["id"]: r for r in auth_client.get("/api/runs").json()["results"]}
    assert listed[run_id]["conversation"] == str(older.id)
    assert newer.id


def test_only_the_owner_and_staff_read_a_conversation_and_only_the_owner_deletes_it(
    auth_client, user, other_user, staff_user
):
    conversation = make_conversation(user, "Falcon", ["What does Project Falcon do?"])
    bob = client_for(other_user)
    for response in (
        bob.get(f"/api/conversations/{conversation.id}"),
        bob.delete(f"/api/conversations/{conversation.id}"),
        auth_client.get(f"/api/conversations/{uuid.uuid4()}"),
    ):
        assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert bob.get("/api/conversations").json()["count"] == 0
    staff = client_for(staff_user)
    assert staff.get(f"/api/conversations/{conversation.id}").json()["title"] == "Falcon"
    assert staff.get("/api/conversations").json()["count"] == 0
    assert staff.get("/api/conversations?user=alice").json()["count"] == 1
    assert bob.get("/api/conversations?user=alice").json()["count"] == 0
    assert staff.delete(f"/api/conversations/{conversation.id}").status_code == 404
    # The owner deletes it; its runs stay in the history, in no conversation.
    response = auth_client.delete(f"/api/conversations/{conversation.id}")
    assert response.status_code == 204
    assert not Conversation.objects.filter(id=conversation.id).exists()
    assert QueryRun.objects.get(user=user).conversation is None
    assert auth_client.get("/api/conversations").json()["count"] == 0


def _conversation_routes():
    """Every API route that takes a conversation id in its path, with the methods its view
    answers: (method, path with a malformed id)."""
    from django.urls import get_resolver

    found = []

    def walk(patterns, prefix):
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if hasattr(pattern, "url_patterns"):
                walk(pattern.url_patterns, route)
            elif "<str:conversation_id>" in route and route.startswith("api/"):
                view = pattern.callback.cls
                for method in ("get", "put", "delete", "post"):
                    if hasattr(view, method):
                        found.append(
                            (method, "/" + route.replace("<str:conversation_id>", "not-a-uuid"))
                        )

    walk(get_resolver().url_patterns, "")
    return found


def test_every_route_answers_a_malformed_conversation_id_with_400(auth_client):
    routes = _conversation_routes()
    assert {path for _, path in routes} >= {
        "/api/conversations/not-a-uuid", "/api/conversations/not-a-uuid/export",
        "/api/conversations/not-a-uuid/share", "/api/shared/conversations/not-a-uuid",
    }  # fmt: skip
    for method, path in routes:
        body = {"team": "People Ops"} if method == "put" else None
        response = getattr(auth_client, method)(path, body, format="json")
        assert response.status_code == 400, (method, path, response.content)
        assert response.json()["code"] == "invalid_conversation", (method, path)


def test_a_page_that_is_not_a_number_is_400(auth_client):
    for path in ("/api/conversations?page=abc", "/api/runs?page=0", "/api/runs?page=-1"):
        response = auth_client.get(path)
        assert response.status_code == 400, (path, response.content)
        assert response.json()["code"] == "invalid_request"
    assert auth_client.get("/api/conversations?page=1").status_code == 200
