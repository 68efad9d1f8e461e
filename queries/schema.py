"""The two streaming endpoints in the OpenAPI schema.

POST /api/query and GET /api/runs/{run_id}/events are plain async Django views (DRF has no
async), so drf-spectacular does not see them; this postprocessing hook describes them: their
inputs, their `text/event-stream` success and their JSON errors.
"""

from __future__ import annotations

from django.conf import settings

from adrag_site.schema import error_response
from queries.views import MAX_MODEL_CHARS

# OpenAPI 3.0 has `schema` of an event stream describe each event (3.2 calls it `itemSchema`).
SSE_EVENT = {
    "type": "object",
    "description": "One server-sent event: an `id: <seq>` line and a one-line `data:` frame "
    "(GET .../events adds `event: <type>`); `: keep-alive` comments come between events. The "
    "last event is `stream_end`, whose frame has no `data` key.",
    "properties": {
        "event": {"type": "string", "description": "The frame's type (GET .../events only)."},
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The event's seq."},
        "data": {
            "type": "string",
            "pattern": r'^\{"type": "[a-z_]+"',
            "description": 'The frame as JSON on one line: `{"type": ..., "data": {...}}`.',
        },
    },
    "required": ["data"],
}
SSE_HEADERS = {
    "X-Run-Id": {
        "description": "The run's id, for GET /api/runs/{run_id} and its events.",
        "schema": {"type": "string", "format": "uuid"},
    },
    "Cache-Control": {"schema": {"type": "string", "enum": ["no-cache"]}},
    "X-Accel-Buffering": {"schema": {"type": "string", "enum": ["no"]}},
}
QUERY_HEADERS = {
    **SSE_HEADERS,
    "X-Conversation-Id": {
        "description": "The run's conversation: send it as `conversation` to ask a follow-up.",
        "schema": {"type": "string", "format": "uuid"},
    },
}
EVENT_STREAM = {"text/event-stream": {"schema": SSE_EVENT}}
CURSOR = {"type": "integer", "minimum": 0}


def _query_body() -> dict:
    from providers.llm.registry import default_provider_name, provider_names

    return {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": settings.MAX_QUERY_CHARS,
                # Blank questions are refused like missing ones.
                "pattern": r"\S",
                "description": "The question (at most MAX_QUERY_CHARS characters).",
            },
            "provider": {
                "type": "string",
                "enum": list(provider_names()),
                "description": f"Case-insensitive; default `{default_provider_name()}`.",
            },
            "model": {
                "type": "string",
                "nullable": True,
                "maxLength": MAX_MODEL_CHARS,
                "description": "The provider's model; default the provider's default model.",
            },
            "knowledge_bases": {
                "type": "array",
                "items": {"type": "integer"},
                "description": "The knowledge bases to search; default every one the caller "
                "may read.",
            },
            "filters": _filters_body(),
            "conversation": {
                "type": "string",
                "format": "uuid",
                "nullable": True,
                "description": "Ask a follow-up in this conversation of the caller's (the "
                "`X-Conversation-Id` of an earlier answer); omitted or null starts a new one.",
            },
        },
        "required": ["query"],
    }


def _filters_body() -> dict:
    from knowledge.ingest.filetypes import SUPPORTED_EXTENSIONS
    from knowledge.retrieval.filters import MAX_FILTER_DOCUMENTS

    moment = {
        "type": "string",
        "anyOf": [{"format": "date"}, {"format": "date-time"}],
    }
    return {
        "type": "object",
        "nullable": True,
        "additionalProperties": False,
        "description": "Metadata filters applied inside every document store's search (not to "
        "web search). Empty lists or nulls leave a part unfiltered.",
        "properties": {
            "documents": {
                "type": "array",
                "items": {"type": "integer", "minimum": 1},
                "maxItems": MAX_FILTER_DOCUMENTS,
                "description": "Only these documents (each in a searched knowledge base).",
            },
            "file_types": {
                "type": "array",
                "items": {"type": "string", "enum": sorted(SUPPORTED_EXTENSIONS)},
                "description": "Only these upload extensions (case-insensitive; md matches "
                ".markdown, html matches .htm).",
            },
            "uploaded_after": {
                **moment,
                "description": "Uploaded at or after: an ISO date (midnight UTC) or date-time "
                "(naive ones are UTC).",
            },
            "uploaded_before": {
                **moment,
                "description": "Uploaded before: a date-time, or an ISO date (that whole day "
                "included).",
            },
        },
    }


def _query_operation() -> dict:
    return {
        "operationId": "query_create",
        "summary": "Ask a question and stream the run",
        "description": "Start a run and stream its events as it goes. The run outlives the "
        "client: a dropped client resumes from GET /api/runs/{run_id}/events.",
        "tags": ["query"],
        "security": [{"tokenAuth": []}, {"cookieAuth": []}],
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": _query_body()}},
        },
        "responses": {
            "200": {
                "description": "The run's events, streamed.",
                "headers": QUERY_HEADERS,
                "content": EVENT_STREAM,
            },
            "400": error_response(
                400,
                "Missing, blank, wrongly typed or too long fields (the spec's two messages for a "
                "missing query and an unknown provider are kept).",
            ),
            "403": error_response(403, "CSRF check failed (session clients)."),
            "404": error_response(
                404,
                "A knowledge base in `knowledge_bases` or a document in `filters.documents` is "
                "not readable, or `conversation` is not one of the caller's.",
            ),
            "413": error_response(413),
            "429": {
                **error_response(429),
                "headers": {"Retry-After": {"schema": {"type": "integer"}}},
            },
        },
    }


def _events_operation() -> dict:
    return {
        "operationId": "runs_events_retrieve",
        "summary": "Replay and follow a run's events",
        "description": "An EventSource-compatible stream of the run's frames (each with "
        "`event: <type>` and `id: <seq>`) after the cursor, live until `stream_end`.",
        "tags": ["runs"],
        "security": [{"tokenAuth": []}, {"cookieAuth": []}],
        "parameters": [
            {
                "name": "run_id",
                "in": "path",
                "required": True,
                "schema": {"type": "string", "format": "uuid"},
            },
            {
                "name": "after",
                "in": "query",
                "schema": CURSOR,
                "description": "Send the events after this seq.",
            },
            {
                "name": "lastEventId",
                "in": "query",
                "schema": CURSOR,
                "description": "Same as `after` (EventSource polyfills).",
            },
            {
                "name": "Last-Event-ID",
                "in": "header",
                "schema": {"type": "string", "pattern": r"^(.*:)?\s*[0-9]+\s*$"},
                "description": "`<seq>` or `run-<id>:<seq>`; wins over `after`.",
            },
        ],
        "responses": {
            "200": {
                "description": "The run's events after the cursor, streamed.",
                "headers": SSE_HEADERS,
                "content": EVENT_STREAM,
            },
            "204": {"description": "A finished run already sent in full: EventSource stops here."},
            "400": error_response(400, "The cursor is not a non-negative event number."),
            "404": error_response(404),
        },
    }


def _rerun_body() -> dict:
    from providers.llm.registry import provider_names
    from queries.overrides import FUSION_LISTS, INT_RANGES, MAX_FUSION_WEIGHT

    properties: dict = {
        "provider": {"type": "string", "enum": list(provider_names())},
        "model": {
            "type": "string",
            "nullable": True,
            "maxLength": MAX_MODEL_CHARS,
            "description": "null: the provider's default model.",
        },
        "knowledge_bases": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "The knowledge bases to search instead of the original's.",
        },
        "fusion_weights": {
            "type": "object",
            "properties": {
                name: {"type": "number", "minimum": 0, "maximum": MAX_FUSION_WEIGHT}
                for name in FUSION_LISTS
            },
            "additionalProperties": False,
            "minProperties": 1,
            "description": "Rank-fusion weights of the candidate lists; unnamed lists keep theirs.",
        },
        "reranker": {
            "type": "boolean",
            "description": "false: no reranking, the fused order is kept (scored by fused rank).",
        },
    }
    for key, (lowest, highest) in INT_RANGES.items():
        properties[key] = {"type": "integer", "minimum": lowest, "maximum": highest}
    return {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "description": "The settings to change; the rest are the original run's.",
    }


def _rerun_operation() -> dict:
    return {
        "operationId": "runs_rerun_create",
        "summary": "Re-run a run with some settings changed, and stream it",
        "description": "Start a new run of the same question (its standalone form for a "
        "follow-up), linked to the original (`rerun_of`), with the original's settings and "
        "these overrides; the stream is POST /api/query's. Compare the two with GET "
        "/api/runs/compare.",
        "tags": ["runs"],
        "security": [{"tokenAuth": []}, {"cookieAuth": []}],
        "parameters": [
            {
                "name": "run_id",
                "in": "path",
                "required": True,
                "schema": {"type": "string", "format": "uuid"},
            }
        ],
        "requestBody": {
            "required": False,
            "content": {"application/json": {"schema": _rerun_body()}},
        },
        "responses": {
            "200": {
                "description": "The new run's events, streamed.",
                "headers": {
                    **SSE_HEADERS,
                    "X-Rerun-Of": {
                        "description": "The original run's id.",
                        "schema": {"type": "string", "format": "uuid"},
                    },
                },
                "content": EVENT_STREAM,
            },
            "400": error_response(
                400, "An unknown setting or a value out of range (`invalid_override`)."
            ),
            "403": error_response(403, "CSRF check failed (session clients)."),
            "404": error_response(
                404, "No such run, or a knowledge base in `knowledge_bases` is not readable."
            ),
            "413": error_response(413),
            "429": {
                **error_response(429),
                "headers": {"Retry-After": {"schema": {"type": "integer"}}},
            },
        },
    }


def add_streaming_endpoints(result: dict, generator, request, public) -> dict:
    """Describe POST /api/query, GET /api/runs/{run_id}/events and POST .../rerun."""
    paths = result.setdefault("paths", {})
    paths["/api/query"] = {"post": _query_operation()}
    paths["/api/runs/{run_id}/events"] = {"get": _events_operation()}
    paths["/api/runs/{run_id}/rerun"] = {"post": _rerun_operation()}
    return result
