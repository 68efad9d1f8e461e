"""Re-run a past run with a changed setting, and compare the two runs stage by stage.

The runs are real: a live web process and worker, the offline extractive provider, a small
ingested corpus with the real embedder; the comparisons read the runs' persisted event logs.
"""

from __future__ import annotations

import json
import uuid

import pytest
import requests
from rest_framework.authtoken.models import Token

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.compare import ranked_diff, text_diff
from queries.models import QueryRun
from tests.queries.clients import js_reader_frames
from tests.queries.pipeline.contract import CLEAN_PASS, check_frames

QUESTION = "What did Marie Curie discover?"
PHYSICS = [
    (
        "curie.txt",
        "Marie Curie discovered polonium and radium in 1898. She won two Nobel Prizes, in "
        "physics and in chemistry.",
    ),
    (
        "pierre.txt",
        "Pierre Curie worked beside Marie Curie on radioactivity. Together they discovered "
        "that radium glows faintly in the dark.",
    ),
    (
        "nobel.txt",
        "The Nobel Prize in Chemistry of 1911 went to Marie Curie for her discovery of the "
        "elements radium and polonium.",
    ),
    (
        "sorbonne.txt",
        "At the Sorbonne, Marie Curie became the first woman to teach; her lectures covered "
        "radioactivity, a word she coined.",
    ),
]
COOKING = [
    ("risotto.txt", "Risotto is cooked with arborio rice and stock added slowly."),
    (
        "curry.txt",
        "Marie's curry recipe: discover the spices slowly, toasting cumin and coriander first.",
    ),
]


@pytest.fixture
def world(shared_stack, transactional_db, user):
    physics = kb_create(owner=user, name="Physics")
    documents_ingest_inline(
        kb=physics, items=[TextItem(name, text.encode()) for name, text in PHYSICS]
    )
    cooking = kb_create(owner=user, name="Cooking")
    documents_ingest_inline(
        kb=cooking, items=[TextItem(name, text.encode()) for name, text in COOKING]
    )
    token = Token.objects.create(user=user).key
    return {
        "url": shared_stack.url,
        "headers": {"Authorization": f"Token {token}"},
        "physics": physics,
        "cooking": cooking,
    }


def post(world, path, body, **kwargs):
    return requests.post(
        world["url"] + path,
        json=body,
        headers=world["headers"],
        stream=True,
        timeout=(5, 60),
        **kwargs,
    )


def ask(world, body=None) -> str:
    """Ask the question (both KBs, extractive) and read the stream to its end; return the run id."""
    body = body or {
        "query": QUESTION,
        "provider": "extractive",
        "knowledge_bases": [world["physics"].id, world["cooking"].id],
    }
    response = post(world, "/api/query", body)
    assert response.status_code == 200, response.text
    frames, _ = js_reader_frames(response)
    assert frames[-1] == {"type": "stream_end"}
    return response.headers["X-Run-Id"]


def rerun(world, run_id: str, overrides) -> tuple[str, list[dict]]:
    response = post(world, f"/api/runs/{run_id}/rerun", overrides)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("text/event-stream")
    assert response.headers["Cache-Control"] == "no-cache"
    assert response.headers["X-Rerun-Of"] == run_id
    frames, _ = js_reader_frames(response)
    check_frames(frames)
    assert frames[-2]["type"] == "done" and frames[-1] == {"type": "stream_end"}
    return response.headers["X-Run-Id"], frames


def compare(world, a: str, b: str) -> dict:
    response = requests.get(
        world["url"] + "/api/runs/compare",
        params={"a": a, "b": b},
        headers=world["headers"],
        timeout=30,
    )
    assert response.status_code == 200, response.text
    return response.json()


def chunk_file(key: str) -> str:
    from knowledge.models import Chunk

    return Chunk.objects.get(id=int(key.split(":")[1])).document.file_name


@pytest.mark.slow
def test_rerun_with_fewer_passages_kept_shows_the_dropped_passages_and_citations(world):
    original = ask(world)
    new_id, frames = rerun(world, original, {"rerank_top_k": 1})
    # The same stream as POST /api/query: the spec's sequence, frame for frame.
    assert [(f["type"], (f.get("data") or {}).get("stage")) for f in frames] == CLEAN_PASS
    run = QueryRun.objects.get(id=new_id)
    assert run.rerun_of_id == QueryRun.objects.get(id=original).id
    assert run.query == QUESTION and run.conversation_id is None
    assert run.overrides == {"rerank_top_k": 1} and run.config["rerank_top_k"] == 1
    assert sorted(run.kb_ids) == sorted([world["physics"].id, world["cooking"].id])

    result = compare(world, original, new_id)
    assert result["summary"]["config_changes"] == ["rerank_top_k"]
    assert result["config"]["changed"] == [{"key": "rerank_top_k", "a": 5, "b": 1}]
    rerank = result["stages"]["reranker"]
    assert rerank["a"]["top_k"] == 5 and rerank["b"]["top_k"] == 1
    kept_a = [p for p in rerank["passages"] if p["a"]]
    kept_b = [p for p in rerank["passages"] if p["b"]]
    assert len(kept_a) == 5 and len(kept_b) == 1
    # The one passage B kept is A's best, with the same score (the same candidates, reranked alike).
    assert kept_b[0]["a"]["rank"] == 1 and kept_b[0]["score_delta"] == 0
    assert rerank["changed"] and "reranker" in result["summary"]["changed_stages"]
    # Retrieval and fusion did not change: same hits, same order.
    assert not result["stages"]["retrieval"]["changed"]
    assert all(diff["same"] for diff in result["stages"]["retrieval"]["stores"].values())
    assert result["stages"]["aggregator"]["ranked"]["same"]
    # The answer can cite only [1] now.
    citations = result["stages"]["citations"]
    assert citations["b_count"] == 1 and all(
        s["b"] is None or s["b"]["index"] == 1 for s in citations["sources"]
    )
    assert result["hits"][kept_b[0]["key"]]["file_name"] == chunk_file(kept_b[0]["key"])
    assert result["timings"]["stages"] and result["a"]["attempts"] >= 1


def logged(run_id: str, kind: str, stage: str) -> dict:
    """Return the data of a run's last logged event of a type and stage."""
    events = QueryRun.objects.get(id=run_id).events.filter(type=kind).order_by("-seq")
    for event in events:
        data = json.loads(event.payload)["data"]
        if data.get("stage") == stage:
            return data
    raise AssertionError(f"no {kind} {stage} event")


@pytest.mark.slow
def test_rerun_with_the_reranker_off_keeps_the_fused_order_and_a_rerun_of_it_inherits(world):
    original = ask(world)
    fewer, _ = rerun(world, original, {"rerank_top_k": 3})
    off, _ = rerun(world, fewer, {"reranker": False})
    run = QueryRun.objects.get(id=off)
    # A re-run of a re-run starts from its original's settings.
    assert run.overrides == {"rerank_top_k": 3, "reranker": False}
    assert run.config["reranker"]["kind"] == "fused-rank" and run.config["rerank_top_k"] == 3

    result = compare(world, fewer, off)
    active = QueryRun.objects.get(id=fewer).config["reranker"]
    # The fallback's reason (no cross-encoder on this machine) goes with it.
    gone = {f"reranker.{key}" for key in active if key == "fallback_reason"}
    assert set(result["summary"]["config_changes"]) == {
        "reranker.kind",
        "reranker.name",
        "reranker.floor",
        "reranker.enabled",
        *gone,
    }
    rerank = result["stages"]["reranker"]
    assert rerank["a"]["kind"] == "embedding-cosine+lexical" and rerank["b"]["kind"] == "fused-rank"
    # B kept the aggregator's first three, scored by fused rank (reciprocal ranks, far below
    # the fallback reranker's cosine-based scores).
    fused = logged(off, "stage_complete", "aggregator")["ranked"][:3]
    kept_b = sorted((p for p in rerank["passages"] if p["b"]), key=lambda p: p["b"]["rank"])
    assert [p["key"] for p in kept_b] == [f"chunk:{ref}" for ref in fused]
    assert all(0 < p["b"]["score"] < 0.1 for p in kept_b)
    assert all(p["a"] is None or p["a"]["score"] > 0.1 for p in rerank["passages"])
    assert rerank["changed"] and not result["stages"]["retrieval"]["changed"]


@pytest.mark.slow
def test_rerun_without_a_knowledge_base_loses_exactly_its_hits(world):
    original = ask(world)
    new_id, _ = rerun(world, original, {"knowledge_bases": [world["physics"].id]})
    assert QueryRun.objects.get(id=new_id).kb_ids == [world["physics"].id]
    result = compare(world, original, new_id)
    change = result["config"]["changed"]
    assert change == [
        {
            "key": "knowledge_bases",
            "a": sorted([world["physics"].id, world["cooking"].id]),
            "b": [world["physics"].id],
        }
    ]
    from knowledge.models import Chunk

    cooking = set(
        Chunk.objects.filter(knowledge_base=world["cooking"]).values_list("id", flat=True)
    )
    stores = result["stages"]["retrieval"]["stores"]
    lost = {item["key"] for diff in stores.values() for item in diff["only_a"]}
    assert lost and lost == {f"chunk:{chunk_id}" for chunk_id in cooking} & lost
    assert all(not diff["only_b"] for diff in stores.values())
    assert (
        result["stages"]["retrieval"]["b"]["vector_count"]
        < result["stages"]["retrieval"]["a"]["vector_count"]
    )
    assert result["stages"]["aggregator"]["b"]["after"] == len(PHYSICS)
    assert result["stages"]["retrieval"]["changed"]
    assert {result["hits"][key]["file_name"] for key in lost} <= {"risotto.txt", "curry.txt"}


@pytest.mark.slow
def test_rerun_with_fusion_weights_reorders_the_candidates_by_bm25_alone(world):
    original = ask(world)
    new_id, _ = rerun(world, original, {"fusion_weights": {"vector": 0, "graph": 0}})
    result = compare(world, original, new_id)
    assert set(result["summary"]["config_changes"]) == {
        "fusion.weights.vector",
        "fusion.weights.graph",
    }
    assert QueryRun.objects.get(id=new_id).config["fusion"]["weights"]["bm25"] == 1.0
    # With only BM25 weighted, the fused order is BM25's, then the rest in the order first seen.
    hits = logged(new_id, "retrieval_result", "retrieval")["hits"]
    first_seen = list(dict.fromkeys(hits["vector"] + hits["bm25"] + hits["graph"]))
    expected = hits["bm25"] + [ref for ref in first_seen if ref not in hits["bm25"]]
    assert logged(new_id, "stage_complete", "aggregator")["ranked"] == expected
    ranked = result["stages"]["aggregator"]["ranked"]
    assert not ranked["same"] and ranked["moved"] >= 1 and ranked["overlap"] == 1.0
    assert result["stages"]["aggregator"]["changed"]


@pytest.mark.slow
def test_rerun_with_a_small_context_limit_compresses(world):
    original = ask(world)
    new_id, _ = rerun(world, original, {"max_context_chars": 200})
    result = compare(world, original, new_id)
    compressor = result["stages"]["compressor"]
    assert compressor["a"]["compressed"] is False
    assert compressor["b"]["compressed"] is True
    assert compressor["b"]["original_chars"] == compressor["a"]["original_chars"] > 200
    assert compressor["b"]["compressed_chars"] < compressor["b"]["original_chars"]
    assert compressor["changed"] and result["summary"]["config_changes"] == ["max_context_chars"]


# ---- refusals (no stream opens, no run is made) ----


@pytest.fixture
def finished_run(user):
    return QueryRun.objects.create(
        user=user,
        query=QUESTION,
        provider="extractive",
        model="extractive",
        status=QueryRun.Status.SUCCEEDED,
        answer="Polonium and radium [1].",
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("body", "key"),
    [
        ({"top_k": 3}, "top_k"),
        ({"retrieval_top_k": 0}, "retrieval_top_k"),
        ({"retrieval_top_k": 51}, "retrieval_top_k"),
        ({"retrieval_top_k": "5"}, "retrieval_top_k"),
        ({"rerank_top_k": True}, "rerank_top_k"),
        ({"rerank_top_k": 21}, "rerank_top_k"),
        ({"max_context_chars": 10}, "max_context_chars"),
        ({"fusion_weights": {"vector": -1}}, "fusion_weights.vector"),
        ({"fusion_weights": {"web2": 1}}, "fusion_weights.web2"),
        ({"fusion_weights": []}, "fusion_weights"),
        ({"reranker": "off"}, "reranker"),
        ({"provider": "gpt-5"}, "provider"),
        ({"model": 7}, "model"),
        ({"knowledge_bases": ["1"]}, "knowledge_bases"),
    ],
)
def test_bad_overrides_are_400_naming_the_setting(auth_client, finished_run, body, key):
    response = auth_client.post(f"/api/runs/{finished_run.id}/rerun", body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()
    assert error["code"] == "invalid_override" and error["details"] == {"key": key}
    assert key.split(".")[-1] in error["error"]
    assert QueryRun.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_body_that_is_no_object_is_400(auth_client, finished_run):
    path = f"/api/runs/{finished_run.id}/rerun"
    for body in ("[1, 2]", "not json", '"reranker"'):
        response = auth_client.generic("POST", path, body, content_type="application/json")
        assert response.status_code == 400 and response.json()["code"] in (
            "invalid_override",
            "invalid_request",
        )
    assert QueryRun.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_rerun_of_another_users_run_or_with_their_knowledge_base_is_404(
    auth_client, finished_run, other_user
):
    theirs = QueryRun.objects.create(user=other_user, query="secret", provider="extractive")
    kb = kb_create(owner=other_user, name="Private")
    response = auth_client.post(f"/api/runs/{theirs.id}/rerun", {}, format="json")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    response = auth_client.post(f"/api/runs/{uuid.uuid4()}/rerun", {}, format="json")
    assert response.status_code == 404
    response = auth_client.post(
        f"/api/runs/{finished_run.id}/rerun", {"knowledge_bases": [kb.id]}, format="json"
    )
    assert response.status_code == 404 and str(kb.id) in response.json()["error"]
    assert QueryRun.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_rerun_counts_against_the_run_limits_and_needs_post(
    auth_client, finished_run, user, settings
):
    settings.RUNS_MAX_CONCURRENT_PER_USER = 1
    QueryRun.objects.create(user=user, query="busy", provider="extractive", status="running")
    response = auth_client.post(f"/api/runs/{finished_run.id}/rerun", {}, format="json")
    assert response.status_code == 429 and response.json()["code"] == "rate_limited"
    response = auth_client.get(f"/api/runs/{finished_run.id}/rerun")
    assert response.status_code == 405 and response["Allow"] == "POST"


# ---- compare: access, and what runs logged before hit ids compare on ----


def _logged_run(user, *, answer: str, frames: list[dict], **fields) -> QueryRun:
    from django.utils import timezone

    from queries.models import RunEvent

    now = timezone.now()
    run = QueryRun.objects.create(
        user=user,
        query=QUESTION,
        provider="extractive",
        status=QueryRun.Status.SUCCEEDED,
        answer=answer,
        started_at=now,
        finished_at=now,
        last_seq=len(frames),
        **fields,
    )
    for seq, frame in enumerate(frames, start=1):
        RunEvent.objects.create(
            run=run, seq=seq, type=frame["type"], payload=json.dumps(frame), created_at=now
        )
    return run


def _counts_only(vector: int) -> list[dict]:
    return [
        {"type": "stage_start", "data": {"stage": "retrieval", "message": "..."}},
        {
            "type": "retrieval_result",
            "data": {
                "stage": "retrieval",
                "vector_count": vector,
                "bm25_count": 1,
                "graph_count": 0,
                "message": "...",
            },
        },
        {"type": "stream_end"},
    ]


@pytest.mark.django_db(transaction=True)
def test_compare_runs_logged_without_hit_ids_compares_counts_and_answers(auth_client, user):
    a = _logged_run(user, answer="Curie found radium [1].", frames=_counts_only(3))
    b = _logged_run(user, answer="Curie found polonium and radium [1].", frames=_counts_only(5))
    response = auth_client.get("/api/runs/compare", {"a": str(a.id), "b": str(b.id)})
    assert response.status_code == 200
    result = response.json()
    retrieval = result["stages"]["retrieval"]
    assert retrieval["stores"] is None and retrieval["changed"]
    assert (retrieval["a"]["vector_count"], retrieval["b"]["vector_count"]) == (3, 5)
    answer = result["stages"]["answer"]
    changed = [s for s in answer["segments"] if s["op"] != "equal"]
    assert [s["op"] for s in changed] == ["insert"] and "polonium" in changed[0]["text"]
    assert (answer["words_added"], answer["words_removed"]) == (2, 0)
    assert "".join(s["text"] for s in answer["segments"] if s["op"] != "insert") == a.answer
    assert "".join(s["text"] for s in answer["segments"] if s["op"] != "delete") == b.answer


@pytest.mark.django_db(transaction=True)
def test_compare_needs_both_runs_readable_and_allows_a_run_with_itself(
    auth_client, user, other_user
):
    mine = _logged_run(user, answer="A [1].", frames=_counts_only(2))
    theirs = _logged_run(other_user, answer="B [1].", frames=_counts_only(2))
    response = auth_client.get("/api/runs/compare", {"a": str(mine.id), "b": str(theirs.id)})
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    response = auth_client.get("/api/runs/compare", {"a": str(mine.id)})
    assert response.status_code == 400 and "?b=" in response.json()["error"]
    response = auth_client.get("/api/runs/compare", {"a": "nope", "b": str(mine.id)})
    assert response.status_code == 404
    response = auth_client.get("/api/runs/compare", {"a": str(mine.id), "b": str(mine.id)})
    result = response.json()
    assert result["same_run"] and result["summary"] == {"config_changes": [], "changed_stages": []}


@pytest.mark.django_db(transaction=True)
def test_staff_compare_anyones_runs_and_the_page_shows_them_side_by_side(
    client, user, other_user, staff_user
):
    a = _logged_run(user, answer="Curie found radium [1].", frames=_counts_only(3))
    b = _logged_run(
        other_user,
        answer="Curie found polonium [1].",
        frames=_counts_only(4),
        config={"rerank_top_k": 2},
    )
    client.force_login(staff_user)
    page = client.get("/history/compare/", {"a": str(a.id), "b": str(b.id)})
    assert page.status_code == 200
    html = page.content.decode()
    assert '<del class="diff-del">radium</del>' in html
    assert '<ins class="diff-ins">polonium</ins>' in html
    assert "<code>rerank_top_k</code>" in html
    client.force_login(user)
    assert client.get("/history/compare/", {"a": str(a.id), "b": str(b.id)}).status_code == 404
    # With only ?a=, the page offers the related runs.
    rerun_of_a = _logged_run(user, answer="x", frames=_counts_only(1), rerun_of=a)
    chooser = client.get("/history/compare/", {"a": str(a.id)}).content.decode()
    assert f"b={rerun_of_a.id}" in chooser and f"b={b.id}" not in chooser


def test_text_diff_marks_words_removed_and_added():
    diff = text_diff("Curie found radium [1].", "Curie found polonium and radium [2].")
    assert diff["words_added"] == 3 and diff["words_removed"] == 1
    assert {"op": "insert", "text": "polonium and "} in diff["segments"]
    assert not diff["same"] and 0 < diff["similarity"] < 1
    assert text_diff("same", "same")["segments"] == [{"op": "equal", "text": "same"}]


def test_ranked_diff_reports_overlap_and_moves():
    diff = ranked_diff([1, 2, 3], [3, 1, "https://example.com"])
    assert diff["in_both"] == [
        {"key": "chunk:1", "rank_a": 1, "rank_b": 2, "moved": -1},
        {"key": "chunk:3", "rank_a": 3, "rank_b": 1, "moved": 2},
    ]
    assert diff["only_a"] == [{"key": "chunk:2", "rank": 2}]
    assert diff["only_b"] == [{"key": "web:https://example.com", "rank": 3}]
    assert diff["overlap"] == 0.5 and diff["moved"] == 2 and not diff["same"]
    assert ranked_diff(None, [1]) is None


# ---- what a re-run inherits, checked again (the service, in-process) ----


@pytest.mark.django_db(transaction=True)
def test_a_rerun_searches_only_knowledge_bases_that_still_exist_and_rechecks_filters(user):
    from adrag_site.errors import ServiceError
    from knowledge.services import kb_delete
    from queries.services import run_rerun

    kept, gone = kb_create(owner=user, name="Kept"), kb_create(owner=user, name="Gone")
    documents_ingest_inline(kb=gone, items=[TextItem("gone.txt", b"Radium glows in the dark.")])
    document = gone.documents.get()
    original = QueryRun.objects.create(
        user=user,
        query=QUESTION,
        provider="extractive",
        status=QueryRun.Status.SUCCEEDED,
        kb_ids=[kept.id, gone.id],
        filters={"documents": [document.id]},
    )
    # The filter names a document of a knowledge base the re-run no longer searches: refused
    # as POST /api/query refuses it, not run with a filter that matches nothing.
    with pytest.raises(ServiceError) as refused:
        run_rerun(run=original, user=user, overrides={"knowledge_bases": [kept.id]})
    assert (refused.value.status, refused.value.code) == (400, "invalid_filters")
    original.filters = {}
    original.save(update_fields=["filters"])
    kb_delete(kb=gone)
    rerun = run_rerun(run=original, user=user, overrides={})
    assert rerun.kb_ids == [kept.id] and list(rerun.knowledge_bases.all()) == [kept]


@pytest.mark.django_db(transaction=True)
def test_a_rerun_of_a_rerun_merges_fusion_weights_and_a_new_provider_drops_the_old_model(user):
    from queries.services import run_rerun

    original = QueryRun.objects.create(
        user=user,
        query=QUESTION,
        provider="extractive",
        model="extractive",
        status=QueryRun.Status.SUCCEEDED,
        overrides={"fusion_weights": {"graph": 0.0}, "model": "extractive"},
    )
    rerun = run_rerun(run=original, user=user, overrides={"fusion_weights": {"bm25": 2.0}})
    assert rerun.overrides["fusion_weights"] == {"graph": 0.0, "bm25": 2.0}
    assert rerun.config["fusion"]["weights"]["graph"] == 0.0
    assert rerun.config["fusion"]["weights"]["bm25"] == 2.0
    other = run_rerun(run=original, user=user, overrides={"provider": "openai"})
    assert other.provider == "openai" and "model" not in other.overrides


@pytest.mark.django_db(transaction=True)
def test_an_unfinished_follow_up_cannot_be_rerun(auth_client, user):
    from queries.models import Conversation

    conversation = Conversation.objects.create(user=user, title="Falcon")
    follow_up = QueryRun.objects.create(
        user=user, query="And when?", provider="extractive", conversation=conversation
    )
    response = auth_client.post(f"/api/runs/{follow_up.id}/rerun", {}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "run_unfinished"
    assert QueryRun.objects.count() == 1
