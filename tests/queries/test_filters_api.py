"""POST /api/query with `filters`: validated with clear errors, stored on the run, and applied
end to end (a live web process and worker, the offline extractive provider)."""

from __future__ import annotations

import pytest
import requests
from rest_framework.authtoken.models import Token

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.models import QueryRun
from tests.knowledge.filter_corpus import TARGET, ingest_filter_corpus
from tests.queries.clients import js_reader_frames
from tests.queries.pipeline.contract import check_frames


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["code"] == code and body["error"], body
    return body


BAD_FILTERS = [
    ("a list", [1, 2], "invalid_filters", "must be an object"),
    ("a string", "pdf", "invalid_filters", "must be an object"),
    ("unknown key", {"author": "me"}, "invalid_filters", "author"),
    ("documents a number", {"documents": 3}, "invalid_filters", "documents"),
    ("document ids as strings", {"documents": ["3"]}, "invalid_filters", "documents"),
    ("file types a string", {"file_types": "pdf"}, "invalid_filters", "file_types"),
    ("unknown file type", {"file_types": ["exe"]}, "invalid_filters", "exe"),
    ("not a date", {"uploaded_after": "yesterday"}, "invalid_filters", "uploaded_after"),
    ("no such day", {"uploaded_before": "2025-13-01"}, "invalid_filters", "uploaded_before"),
    ("after past before", {"uploaded_after": "2025-06-01", "uploaded_before": "2025-05-01"}, "invalid_filters", "earlier"),
]  # fmt: skip


@pytest.mark.django_db
@pytest.mark.parametrize(
    "filters,code,fragment",
    [case[1:] for case in BAD_FILTERS],
    ids=[case[0] for case in BAD_FILTERS],
)
def test_bad_filters_are_400_with_a_code_and_start_no_run(auth_client, filters, code, fragment):
    response = auth_client.post(
        "/api/query", {"query": "What flew to Saturn?", "filters": filters}, format="json"
    )
    body = assert_error(response, 400, code)
    assert fragment in body["error"]
    assert not QueryRun.objects.exists()


@pytest.mark.django_db
def test_another_teams_document_is_404_exactly_like_a_missing_one(auth_client, user, other_user):
    theirs = kb_create(owner=other_user, name="Theirs")
    documents_ingest_inline(kb=theirs, items=[TextItem("secret.txt", b"Project Zephyr plans.")])
    secret = theirs.documents.get().id
    hidden = assert_error(
        auth_client.post(
            "/api/query", {"query": "Zephyr?", "filters": {"documents": [secret]}}, format="json"
        ),
        404,
        "not_found",
    )
    missing = assert_error(
        auth_client.post(
            "/api/query",
            {"query": "Zephyr?", "filters": {"documents": [secret + 1000]}},
            format="json",
        ),
        404,
        "not_found",
    )
    assert hidden["error"].replace(str(secret), "N") == missing["error"].replace(
        str(secret + 1000), "N"
    )
    assert not QueryRun.objects.exists()


@pytest.mark.django_db
def test_a_document_outside_the_searched_knowledge_bases_is_400(auth_client, user):
    first = kb_create(owner=user, name="First")
    second = kb_create(owner=user, name="Second")
    documents_ingest_inline(kb=second, items=[TextItem("notes.txt", b"Notes on Saturn.")])
    document = second.documents.get().id
    body = assert_error(
        auth_client.post(
            "/api/query",
            {
                "query": "Saturn?",
                "knowledge_bases": [first.id],
                "filters": {"documents": [document]},
            },
            format="json",
        ),
        400,
        "invalid_filters",
    )
    assert str(document) in body["error"]


# ---- end to end: a live web process and worker ----


@pytest.fixture
def world(shared_stack, transactional_db, user):
    kb = kb_create(owner=user, name="Missions")
    documents = ingest_filter_corpus(kb, user)
    token = Token.objects.create(user=user).key
    return {
        "url": shared_stack.url,
        "headers": {"Authorization": f"Token {token}"},
        "kb": kb,
        "documents": documents,
    }


def ask(world, body: dict) -> tuple[str, list[dict]]:
    response = requests.post(
        world["url"] + "/api/query",
        json={"provider": "extractive", **body},
        headers=world["headers"],
        stream=True,
        timeout=(5, 120),
    )
    assert response.status_code == 200, response.text
    frames, _ = js_reader_frames(response)
    check_frames(frames)
    return response.headers["X-Run-Id"], frames


def cited_files(frames: list[dict]) -> list[str]:
    done = next(frame["data"] for frame in frames if frame["type"] == "done")
    return [source["file_name"] for source in done["sources"]]


# The target answers the first half best; the Voyager document answers the second.
TWO_PART_QUERY = (
    "What did Margaret Hamilton write for NASA at MIT, and what does the Voyager Golden Record "
    "carry?"
)
CASSINI_QUERY = "What did Margaret Hamilton write for NASA, and what did Cassini drop onto Titan?"


@pytest.mark.slow
def test_a_filtered_run_never_sees_the_excluded_document_end_to_end(world):
    docs = world["documents"]
    # Unfiltered, the answer quotes the target, the best match for half the question.
    _, frames = ask(world, {"query": TWO_PART_QUERY})
    assert TARGET in cited_files(frames)
    keep = [docs["voyager.docx"].id, docs["hubble.md"].id]
    run_id, frames = ask(world, {"query": TWO_PART_QUERY, "filters": {"documents": keep}})
    files = cited_files(frames)
    assert "voyager.docx" in files and set(files) <= {"voyager.docx", "hubble.md"}
    done = next(frame["data"] for frame in frames if frame["type"] == "done")
    assert "Guidance Computer" not in done["answer"]
    # The run shows what it was narrowed to, and its stored sources agree.
    detail = requests.get(
        f"{world['url']}/api/runs/{run_id}", headers=world["headers"], timeout=10
    ).json()
    assert detail["filters"] == {"documents": keep}
    assert detail["status"] == "succeeded"
    assert {source["file_name"] for source in detail["sources"]} <= {"voyager.docx", "hubble.md"}


@pytest.mark.slow
def test_file_type_and_date_filters_apply_end_to_end(world):
    _, frames = ask(world, {"query": CASSINI_QUERY})
    assert TARGET in cited_files(frames)
    run_id, frames = ask(
        world,
        {
            "query": CASSINI_QUERY,
            "filters": {"file_types": ["HTML", "md"], "uploaded_after": "2024-05-21"},
        },
    )
    # Of html and md files (webb.markdown counts as md), only those uploaded after 20 May.
    assert "cassini.html" in cited_files(frames)
    assert set(cited_files(frames)) <= {"webb.markdown", "cassini.html"}
    run = QueryRun.objects.get(id=run_id)
    assert run.filters == {"file_types": ["html", "md"], "uploaded_after": "2024-05-21"}
    retrieval = next(
        frame["data"]
        for frame in frames
        if frame["type"] == "retrieval_result" and frame["data"]["stage"] == "retrieval"
    )
    # Two documents of one chunk each are all the dense store may return.
    assert retrieval["vector_count"] == 2
