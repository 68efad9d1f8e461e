"""The two streaming endpoints in the OpenAPI schema.

POST /api/query, GET /api/runs/{run_id}/events and POST /api/runs/{run_id}/rerun are plain
async Django views (DRF has no async), so drf-spectacular does not see them; this
postprocessing hook describes them: their inputs (drawn from the serializers that validate
them, queries/inputs.py), their `text/event-stream` success and their JSON errors.
"""

from __future__ import annotations

from django.conf import settings

from adrag_site.schema import error_response, serializer_schema
from queries.inputs import QueryInput, RerunInput

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
    schema = serializer_schema(QueryInput())
    # Blank questions are refused like missing ones; the limit is a setting.
    schema["properties"]["query"].update(maxLength=settings.MAX_QUERY_CHARS, pattern=r"\S")
    return schema


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
    return {**serializer_schema(RerunInput()), "additionalProperties": False}


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
            "403": error_response(
                403,
                "CSRF check failed (session clients), or the run is an evaluation's that the "
                "caller may read but not re-run (`permission_denied`).",
            ),
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
