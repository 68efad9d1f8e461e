"""The MCP server (queries/mcp_server/) against the live web process of the shared stack, with
the official SDK's client in both protocol eras: the handshake era (`mode="legacy"`) and the
2026-07-28 era the SDK's `auto` mode speaks to this server."""

from __future__ import annotations

import json
import time
import uuid

import anyio
import httpx2
import pytest
import requests
from rest_framework.authtoken.models import Token

from adrag_site.models import AuditEvent
from adrag_site.tokens import token_create
from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.models import QueryRun
from tests.queries.documents import physics_kb
from tests.queries.mcp_clients import MODES, error_of, session
from tests.queries.pipeline.scripted import PLAN_DIRECT, PLAN_RETRIEVE, answer, verdict

pytestmark = pytest.mark.slow
TOOLS = {"list_knowledge_bases", "search", "ask", "get_passages", "get_run"}


@pytest.fixture
def world(shared_stack, transactional_db, user, other_user):
    kb = physics_kb(user)
    theirs = kb_create(owner=other_user, name="Secret")
    documents_ingest_inline(kb=theirs, items=[TextItem("zephyr.txt", b"Project Zephyr plans.")])
    keys = {
        scope: token_create(user=user, name=f"mcp {scope}", scope=scope, expires_in_days=None)
        for scope in ("read", "ask", "manage")
    }
    return {
        "url": shared_stack.url,
        "stack": shared_stack,
        "kb": kb,
        "theirs": theirs,
        "tokens": {scope: token for scope, (token, _) in keys.items()},
        "keys": {scope: key for scope, (_, key) in keys.items()},
        "rest": {"Authorization": f"Token {Token.objects.create(user=user).key}"},
    }


def call(world, scope: str, tool: str, arguments: dict, mode: str = "auto", **options):
    async def go():
        async with session(world["url"], world["keys"][scope], mode) as client:
            return await client.call_tool(tool, arguments, **options)

    return anyio.run(go)


def audited(tool: str) -> AuditEvent:
    """Return the audit event of the one call of `tool` (written beside the answer: wait)."""
    deadline = time.monotonic() + 10
    while not (events := list(AuditEvent.objects.filter(action="mcp_tool_call", target_id=tool))):
        assert time.monotonic() < deadline, f"no audit event for {tool}"
        time.sleep(0.05)
    assert len(events) == 1, events
    return events[0]


def script(world, query: str, **extra) -> None:
    world["stack"].write_scripts(
        {query: {"planner": [PLAN_RETRIEVE], "reasoning": [answer()], "reflection": [verdict()], **extra}}
    )  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
def test_the_five_tools_are_listed_with_their_argument_bounds(world, mode):
    async def go():
        async with session(world["url"], world["keys"]["read"], mode) as client:
            return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in anyio.run(go)}
    assert set(tools) == TOOLS
    search = tools["search"].input_schema
    assert search["required"] == ["query"] and search["properties"]["query"]["minLength"] == 1
    assert (search["properties"]["k"]["minimum"], search["properties"]["k"]["maximum"]) == (1, 50)
    assert tools["get_run"].input_schema["properties"]["run_id"]["format"] == "uuid"


def test_list_knowledge_bases_shows_only_the_callers_with_counts(world):
    result = call(world, "read", "list_knowledge_bases", {})
    bases = result.structured_content["knowledge_bases"]
    assert [(kb["name"], kb["documents"]) for kb in bases] == [("Physics", 2)]
    assert bases[0]["chunks"] >= 2


def test_search_returns_a_cited_passage_with_a_link_to_it(world, user):
    from django.test import Client

    result = call(world, "read", "search", {"query": "What did Marie Curie discover?", "k": 2})
    assert error_of(result) is None
    passages = result.structured_content["passages"]
    top = passages[0]
    assert top["file_name"] == "curie.txt" and "radium" in top["text"]
    assert top["score"] > 0 and "page" in top and isinstance(top["section"], list)
    assert len(passages) <= 2 and set(result.structured_content["knowledge_bases"]) == {
        world["kb"].id
    }
    link = top["link"]
    assert link == f"{world['url']}/documents/{top['document_id']}/?chunk={top['chunk_id']}"
    browser = Client()
    browser.force_login(user)
    assert browser.get(link.removeprefix(world["url"])).status_code == 200


def test_get_passages_reads_around_a_cited_passage(world):
    document = world["kb"].documents.get(file_name="curie.txt")
    chunk = document.chunks.first()
    result = call(world, "read", "get_passages", {"document_id": document.id, "around": chunk.id})
    rows = result.structured_content["passages"]
    assert [row["cited"] for row in rows if row["id"] == chunk.id] == [True]
    assert result.structured_content["document"]["file_name"] == "curie.txt"


@pytest.mark.parametrize("mode", MODES)
def test_ask_streams_its_stages_as_progress_and_returns_the_verified_run(world, mode):
    query = "What did Marie Curie discover?"  # written again: its script starts over
    script(world, query)
    progress: list[tuple[float, str]] = []

    async def on_progress(value, total, message):
        progress.append((value, message or ""))

    result = call(
        world,
        "ask",
        "ask",
        {"query": query, "provider": "scripted"},
        mode,
        progress_callback=on_progress,
    )
    assert error_of(result) is None, result
    answer_of = result.structured_content
    run_id = answer_of["run_id"]
    assert answer_of["answer"] == "Marie Curie discovered radium [1]."
    assert answer_of["sources"][0]["file_name"] == "curie.txt" and answer_of["sources"][0]["link"]
    assert answer_of["replay_url"] == f"{world['url']}/api/runs/{run_id}/events"
    assert progress[0] == (0, f"queued: run {run_id}")
    values = [value for value, _ in progress]
    assert values == sorted(values) and len(set(values)) == len(values)
    started = [m.split()[0] for _, m in progress if " stage_start" in m]
    assert started[:2] == ["planner", "retrieval"] and "reasoning" in started
    assert progress[-1][1].startswith("done")
    rest = requests.get(
        f"{world['url']}/api/runs/{run_id}", headers=world["rest"], timeout=10
    ).json()
    assert rest["status"] == "succeeded" and rest["answer"] == answer_of["answer"]
    assert rest["metadata"]["verdict"] == answer_of["verdict"] == "verified"
    audit = audited("ask")
    assert audit.details["run_id"] == run_id and audit.details["outcome"] == "ok"
    assert audit.details["token"] == str(world["tokens"]["ask"].id)
    again = call(world, "read", "get_run", {"run_id": run_id}).structured_content
    assert again["answer"] == answer_of["answer"] and again["stages"]["reasoning"]["status"]


def test_a_read_token_is_refused_on_ask_and_nothing_runs(world):
    result = call(world, "read", "ask", {"query": "Anything?"})
    error = error_of(result)
    assert error["code"] == "insufficient_scope" and "'ask'" in error["message"]
    assert not QueryRun.objects.exists()
    audit = audited("ask")
    assert audit.details["outcome"] == "insufficient_scope" and audit.details["scope"] == "read"


def _same_but_id(hidden: dict, missing: dict, hidden_id, missing_id) -> bool:
    return json.dumps(hidden).replace(str(hidden_id), "N") == json.dumps(missing).replace(
        str(missing_id), "N"
    )


def test_another_teams_ids_answer_exactly_like_missing_ones(world, other_user):
    theirs = world["theirs"].id
    secret = world["theirs"].documents.get()
    their_run = QueryRun.objects.create(user=other_user, query="x", provider="extractive")
    cases = [
        ("search", {"query": "Zephyr", "knowledge_bases": [theirs]}, {"query": "Zephyr", "knowledge_bases": [theirs + 999]}, theirs, theirs + 999),
        ("ask", {"query": "Zephyr?", "knowledge_bases": [theirs]}, {"query": "Zephyr?", "knowledge_bases": [theirs + 999]}, theirs, theirs + 999),
        ("get_passages", {"document_id": secret.id}, {"document_id": secret.id + 999}, secret.id, secret.id + 999),
        ("get_run", {"run_id": str(their_run.id)}, {"run_id": str(uuid.uuid4())}, None, None),
    ]  # fmt: skip
    for tool, hidden_args, missing_args, hidden_id, missing_id in cases:
        hidden = error_of(call(world, "manage", tool, hidden_args))
        missing = error_of(call(world, "manage", tool, missing_args))
        assert hidden["code"] == missing["code"] == "not_found", (tool, hidden)
        if hidden_id is not None:
            assert _same_but_id(hidden, missing, hidden_id, missing_id), (hidden, missing)
        else:
            assert hidden == missing
    assert QueryRun.objects.filter(user=world["tokens"]["ask"].user).count() == 0


@pytest.mark.parametrize("mode", MODES)
def test_cancelling_an_ask_cancels_its_run(world, mode):
    query = f"Slow question about Curie ({mode})"
    script(world, query, _delays={"reasoning": 60})
    seen: list[str] = []

    async def go():
        reasoning = anyio.Event()

        async def on_progress(value, total, message):
            seen.append(message or "")
            if message and message.startswith("reasoning stage_start"):
                reasoning.set()

        async with session(world["url"], world["keys"]["ask"], mode) as client:
            async with anyio.create_task_group() as group:

                async def asking():
                    await client.call_tool(
                        "ask",
                        {"query": query, "provider": "scripted"},
                        progress_callback=on_progress,
                    )

                group.start_soon(asking)
                with anyio.fail_after(60):
                    await reasoning.wait()
                group.cancel_scope.cancel()
        return time.monotonic()

    cancelled_at = anyio.run(go)
    run_id = seen[0].removeprefix("queued: run ")
    deadline = time.monotonic() + 30
    while (run := QueryRun.objects.get(id=run_id)).is_active and time.monotonic() < deadline:
        time.sleep(0.05)
    print(
        f"\n{mode}: the run ended {run.status} {time.monotonic() - cancelled_at:.2f} s after the cancel"
    )
    assert run.status == "cancelled" and run.error_code == "cancelled"
    assert not any(message.startswith("reasoning stage_complete") for message in seen)
    audit = audited("ask")
    assert audit.details["outcome"] == "cancelled"


def test_concurrent_asks_are_accepted_exactly_up_to_the_run_limit(world, user, settings):
    # The stack's hourly limit is 1000 runs (tests/live.py): 998 already this hour leave two.
    QueryRun.objects.bulk_create(
        QueryRun(user=user, query=f"earlier {n}", provider="extractive", status="succeeded")
        for n in range(998)
    )
    world["stack"].write_scripts(
        {f"quick {n}": {"planner": [PLAN_DIRECT], "reasoning": ["Hi."]} for n in range(20)}
    )

    async def go():
        results = [None] * 20
        async with session(world["url"], world["keys"]["ask"]) as client:
            async with anyio.create_task_group() as group:
                for n in range(20):

                    async def one(n=n):
                        args = {"query": f"quick {n}", "provider": "scripted"}
                        results[n] = await client.call_tool("ask", args)

                    group.start_soon(one)
        return results

    results = anyio.run(go)
    errors = [error_of(result) for result in results]
    refused = [error for error in errors if error is not None]
    assert len(refused) == 18 and {error["code"] for error in refused} == {"rate_limited"}
    assert all(error["retry_after"] >= 1 for error in refused)
    assert QueryRun.objects.filter(user=user).exclude(query__startswith="earlier").count() == 2


@pytest.mark.parametrize("mode", MODES)
def test_wrong_argument_types_and_unknown_tools_are_tool_errors_and_the_session_goes_on(
    world, mode
):
    async def go():
        async with session(world["url"], world["keys"]["read"], mode) as client:
            bad = await client.call_tool("search", {"query": 5, "k": "x"})
            unknown = await client.call_tool("summon", {})
            long = await client.call_tool("search", {"query": "x" * 5000})
            fine = await client.call_tool("list_knowledge_bases", {})
            return bad, unknown, long, fine

    bad, unknown, long, fine = anyio.run(go)
    error = error_of(bad)
    assert error["code"] == "invalid_arguments"
    assert {detail["field"] for detail in error["details"]} == {"query", "k"}
    assert error_of(unknown)["code"] == "unknown_tool"
    assert error_of(long)["code"] == "query_too_long"
    assert error_of(fine) is None


def _post(world, body: bytes, key: str | None = "read", **headers) -> httpx2.Response:
    base = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        **({"Authorization": f"Bearer {world['keys'][key]}"} if key else {}),
    }
    return httpx2.post(f"{world['url']}/mcp", content=body, headers={**base, **headers}, timeout=10)


@pytest.mark.parametrize("version", [None, "2026-07-28"])
def test_malformed_json_rpc_is_answered_with_a_json_rpc_error(world, version):
    headers = {"MCP-Protocol-Version": version} if version else {}
    for body, codes in ((b"{not json", {-32700}), (b"[1, 2]", {-32600, -32602})):
        response = _post(world, body, **headers)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] in codes


def test_requests_without_a_valid_bearer_token_are_401(world):
    for headers in (
        {},
        {"Authorization": "Bearer adrag_nope"},
        {"Authorization": f"Token {world['keys']['read']}"},
    ):
        response = _post(world, b"{}", key=None, **headers)
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"].startswith('Bearer error="invalid_token"')
    world["tokens"]["read"].delete()  # revoked: refused at once
    assert _post(world, b"{}").status_code == 401


def test_a_host_outside_allowed_hosts_is_400(world):
    response = _post(world, b"{}", Host="evil.example")
    assert response.status_code == 400 and response.json()["code"] == "bad_request"


def test_an_oversized_body_is_413_declared_or_chunked(world, settings):
    from django.conf import settings as live

    too_big = b"x" * (live.MAX_BODY_BYTES + 1)
    declared = _post(world, too_big)
    assert declared.status_code == 413 and declared.json()["code"] == "payload_too_large"

    def chunks():
        for start in range(0, len(too_big), 65536):
            yield too_big[start : start + 65536]

    chunked = _post(world, chunks())
    assert chunked.status_code == 413 and chunked.json()["code"] == "payload_too_large"


@pytest.mark.parametrize("mode", MODES)
def test_stdio_serves_the_tools_as_the_tokens_user(transactional_db, user, mode):
    import sys

    from mcp import Client, StdioServerParameters

    from tests.support import ROOT, child_env

    kb_create(owner=user, name="Mine")
    _, key = token_create(user=user, name="stdio", scope="read", expires_in_days=None)
    server = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "manage.py"), "mcp"],
        env=child_env(ADRAG_MCP_TOKEN=key),
        cwd=str(ROOT),
    )

    async def go():
        async with Client(server, mode=mode) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            bases = await client.call_tool("list_knowledge_bases", {})
            refused = await client.call_tool("ask", {"query": "Anything?"})
            return names, bases, refused

    names, bases, refused = anyio.run(go)
    assert names == TOOLS
    assert [kb["name"] for kb in bases.structured_content["knowledge_bases"]] == ["Mine"]
    assert error_of(refused)["code"] == "insufficient_scope"
    audit = audited("list_knowledge_bases")
    assert audit.details["transport"] == "stdio" and audit.actor == user


def test_stdio_refuses_a_bad_token_with_exit_status_2(transactional_db):
    from tests.support import run_manage

    finished = run_manage("mcp", "--token", "adrag_not-a-key")
    assert finished.returncode == 2 and "no valid API token" in finished.stderr
