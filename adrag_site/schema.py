"""The OpenAPI schema's shared pieces: the error body, error responses, and what every path adds.

drf-spectacular builds the schema from the DRF views; the hooks here add what it cannot see:
the responses every /api/ path may give whatever its view (the middleware's 401 and 400), and
the health endpoint, a plain Django view. Each app documents its own plain views with a hook
of its own (queries.schema for the two streams).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

ERROR_COMPONENT = "Error"
ERROR_REF = {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}

ERROR_DESCRIPTIONS = {
    400: "The request is malformed or a field is invalid.",
    401: "No valid session or API token (`Authorization: Token <key>`).",
    403: "The caller may read but not change this resource (or the CSRF check failed).",
    404: "No such resource among those the caller may read.",
    409: "The resource is in a state that does not allow this.",
    413: "The request body is over its cap.",
    415: "The request body's media type is not accepted here.",
    422: "The file was received but cannot be used.",
    429: "Over a per-user limit; `Retry-After` says when to try again.",
}


class ErrorSerializer(serializers.Serializer):
    """The body of every /api/ error."""

    error = serializers.CharField(help_text="A message for people.")
    code = serializers.CharField(help_text="A stable code for programs, e.g. `not_found`.")
    details = serializers.JSONField(
        required=False, help_text="For `invalid_request`: the errors per field."
    )


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """Return `extend_schema` responses for error statuses, each with the shared error body."""
    return {
        status: OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[status])
        for status in statuses
    }


def serializer_schema(serializer: serializers.Serializer, direction: str = "request") -> dict:
    """Return the OpenAPI schema of a serializer used by a plain (non-DRF) view, inline.

    drf-spectacular maps serializers only for the views it sees; this maps one the same way,
    for the hooks that describe plain views, so that their bodies are drawn from the
    serializers that validate them.
    """
    from drf_spectacular.openapi import AutoSchema
    from drf_spectacular.plumbing import ComponentRegistry
    from rest_framework.generics import GenericAPIView

    view = GenericAPIView()
    view.request = None
    view.format_kwarg = None
    auto = AutoSchema()
    auto.registry = ComponentRegistry()
    auto.method = "POST"
    auto.path = ""
    auto.view = view
    return auto._map_serializer(serializer, direction)


def error_response(status: int, description: str | None = None) -> dict:
    """Return a raw OpenAPI response object for an error status (for hooks)."""
    return {
        "description": description or ERROR_DESCRIPTIONS[status],
        "content": {"application/json": {"schema": ERROR_REF}},
    }


def _ensure_error_component(result: dict) -> None:
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault(
        ERROR_COMPONENT,
        {
            "type": "object",
            "description": "The body of every /api/ error.",
            "properties": {
                "error": {"type": "string"},
                "code": {"type": "string"},
                "details": {},
            },
            "required": ["error", "code"],
        },
    )


HEALTH_PATH = {
    "get": {
        "operationId": "health_retrieve",
        "summary": "Liveness and readiness",
        "description": "Whether the database and pgvector answer, and each queue's live "
        "workers (runs, ingest). 200 `healthy`; 503 `degraded` when a queue has no live worker "
        "(its questions or uploads wait), 503 `unhealthy` when the database does not answer. "
        "Needs no authentication.",
        "tags": ["health"],
        "security": [],
        "responses": {
            code: {
                "description": description,
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "properties": {
                                "status": {
                                    "type": "string",
                                    "enum": ["healthy", "degraded", "unhealthy"],
                                },
                                "version": {"type": "string", "example": "0.1.0"},
                                "database": {"type": "string"},
                                "pgvector": {"type": "string", "nullable": True},
                                "worker": {"type": "object"},
                                "queues": {
                                    "type": "object",
                                    "additionalProperties": {
                                        "type": "object",
                                        "properties": {"workers": {"type": "integer"}},
                                    },
                                },
                            },
                            "required": ["status", "version", "database", "pgvector", "queues"],
                        }
                    }
                },
            }
            for code, description in (
                ("200", "Healthy."),
                ("503", "Degraded (a queue has no live worker) or unhealthy (no database)."),
            )
        },
    }
}


def add_health_and_common_errors(result: dict, generator, request, public) -> dict:
    """Add the health endpoint, and the 400 and 401 that any /api/ path may answer."""
    _ensure_error_component(result)
    paths = result.setdefault("paths", {})
    paths["/api/health"] = HEALTH_PATH
    for operations in paths.values():
        for method, operation in operations.items():
            if method not in {"get", "put", "post", "delete", "options", "head", "patch"}:
                continue
            responses = operation.setdefault("responses", {})
            # ApiInvalidCharactersMiddleware: a NUL anywhere in the path or query string.
            responses.setdefault("400", error_response(400))
            if operation.get("security") != []:
                responses.setdefault("401", error_response(401))
    result["paths"] = dict(sorted(paths.items()))
    return result
