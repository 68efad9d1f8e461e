"""The spec's payload keys per event (seeds/000 §5), checked by pipeline and stream tests."""

from __future__ import annotations

SOURCE_KEYS = {
    "index",
    "file_name",
    "source_type",
    "url",
    "page",
    "rerank_score",
    "content_preview",
    "content",
}
METADATA_KEYS = {"query_type", "sources_used", "retry_count", "grounded", "confidence", "issues"}
# Additive keys of a source and of the metadata (queries/pipeline/nodes/reason.py, reflect.py).
ADDITIVE_SOURCE_KEYS = {"section", "kind", "table", "document_id", "chunk_id"}
ADDITIVE_METADATA_KEYS = {"error", "verdict", "answer_values"}

START = {"stage", "message"}
KEYS = {
    ("stage_start", "reflection"): [START | {"attempt", "max_attempts"}],
    ("stage_complete", "planner"): [
        START | {"retrieve", "use_external", "query_type", "reasoning"}
    ],
    ("stage_complete", "external_tools"): [START | {"web_count"}],
    ("stage_complete", "aggregator"): [START | {"before", "after", "sources"}],
    ("stage_complete", "reranker"): [START, START | {"top_k", "scores", "sources"}],
    ("stage_complete", "compressor"): [
        START,
        START | {"original_chars", "compressed_chars"},
        START | {"original_chars", "compressed_chars", "ratio"},
    ],
    ("stage_complete", "reasoning"): [
        START | {"confidence"},
        START | {"confidence", "is_sufficient", "key_facts"},
    ],
    ("stage_complete", "reflection"): [
        START | {"grounded", "confidence", "issues", "will_retry", "escalate_external"}
    ],
    ("retrieval_result", "retrieval"): [START | {"vector_count", "bm25_count", "graph_count"}],
    ("finalize", "reflection"): [START | {"grounded"}],
}
# Additions the contract allows: new keys that no reference client reads.
ADDITIVE = {
    ("stage_complete", "reranker"): {"reranker", "ids"},
    # The hits of each store and the fused order, by chunk id (for comparing runs).
    # The table store's count (the registry's fourth store), the program it ran, and a model's
    # table query that did not answer.
    ("retrieval_result", "retrieval"): {
        "hits",
        "table_count",
        "program",
        "tentative_program",
        "table_query",
    },
    ("stage_complete", "aggregator"): {"ranked"},
    # The question as it stands alone, which planner decided, and the question's frame.
    ("stage_complete", "planner"): {"standalone_query", "planned_by", "frame"},
    # Which of quote-first's ways wrote the answer: "extractive" (the quote) or "model".
    # A table program's answer: the program and the values it asserts.
    ("stage_complete", "reasoning"): {"answered_by", "program", "answer_values"},
    # Whether the answer addresses the question, and what the answer card says.
    ("stage_complete", "reflection"): {"sufficient"},
    ("finalize", "reflection"): {"verdict"},
}


def check_frame(frame: dict) -> None:
    """Assert one frame carries exactly the spec's keys for its type and stage."""
    kind = frame["type"]
    if kind == "stream_end":
        assert frame == {"type": "stream_end"}, frame
        return
    data = frame["data"]
    if kind == "retry":
        assert set(data) == {"attempt", "max_attempts", "reason", "escalate_external", "message"}
        return
    if kind == "done":
        assert set(data) == {"answer", "sources", "metadata"}
        for source in data["sources"]:
            assert set(source) - ADDITIVE_SOURCE_KEYS == SOURCE_KEYS, source
        assert set(data["metadata"]) - ADDITIVE_METADATA_KEYS == METADATA_KEYS, data["metadata"]
        return
    if kind == "error":
        assert set(data) in ({"message", "stage"}, {"message", "stage", "code"}, {"message"}), data
        return
    if kind == "stage_error":
        assert set(data) == {"stage", "error"}, data
        return
    if kind == "answer_delta":
        # Events-endpoint only (never on POST /api/query): the answer as it is written.
        assert set(data) == {"stage", "attempt", "offset", "text"}, data
        assert data["stage"] == "reasoning" and data["offset"] >= 0, data
        return
    if kind == "stage_skip":
        assert set(data) == START, data
        return
    stage = data["stage"]
    allowed = KEYS.get((kind, stage), [START])
    extra = ADDITIVE.get((kind, stage), set())
    assert any(set(data) - extra == keys for keys in allowed), (kind, stage, sorted(data))


def check_frames(frames: list[dict]) -> None:
    for frame in frames:
        check_frame(frame)


# The spec's sequences (stage events as (type, stage)), as POST /api/query sends them.
CLEAN_PASS = [
    ("stage_start", "planner"),
    ("stage_complete", "planner"),
    ("stage_start", "retrieval"),
    ("retrieval_result", "retrieval"),
    ("stage_skip", "external_tools"),
    ("stage_start", "aggregator"),
    ("stage_complete", "aggregator"),
    ("stage_start", "reranker"),
    ("stage_complete", "reranker"),
    ("stage_start", "compressor"),
    ("stage_complete", "compressor"),
    ("stage_start", "reasoning"),
    ("stage_complete", "reasoning"),
    ("stage_start", "reflection"),
    ("stage_complete", "reflection"),
    ("finalize", "reflection"),
    ("done", None),
    ("stream_end", None),
]
RETRY_BLOCK = [
    ("stage_start", "retrieval"),
    ("retrieval_result", "retrieval"),
    ("stage_skip", "external_tools"),
    ("stage_start", "aggregator"),
    ("stage_complete", "aggregator"),
    ("stage_start", "reranker"),
    ("stage_complete", "reranker"),
    ("stage_start", "compressor"),
    ("stage_complete", "compressor"),
    ("stage_start", "reasoning"),
    ("stage_complete", "reasoning"),
    ("stage_start", "reflection"),
    ("stage_complete", "reflection"),
]
