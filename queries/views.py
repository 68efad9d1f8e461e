"""The streaming endpoints: POST /api/query, GET /api/runs/<id>/events and POST
/api/runs/<id>/rerun (plain async views; their inputs are queries/inputs.py's serializers)."""

from __future__ import annotations

import functools
import json
import logging
from typing import Any

from asgiref.sync import sync_to_async
from django.http import Http404, HttpResponse, StreamingHttpResponse

from adrag_site.errors import ServiceError, json_error
from adrag_site.parsers import TOO_DEEP_CODE, TOO_DEEP_MESSAGE, BodyRefused, check_value
from queries.inputs import QueryInput
from queries.models import QueryRun
from queries.selectors import ACT, run_get_for_user
from queries.services import run_rerun, run_start
from queries.streams import STYLE_EVENTSOURCE, STYLE_POST, run_stream

logger = logging.getLogger(__name__)

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def json_errors(view):
    """Answer a ServiceError or Http404 raised in an async view (or the sync code it awaits)
    with the JSON error body, as `api_exception_handler` does for the DRF views."""

    @functools.wraps(view)
    async def wrapper(request, *args, **kwargs):
        try:
            return await view(request, *args, **kwargs)
        except ServiceError as exc:
            return exc.response()
        except Http404 as exc:
            return json_error(404, str(exc) or "Not found.", "not_found")

    return wrapper


def allow(method: str):
    """Refuse every other method with a JSON 405 naming the allowed one."""

    def decorate(view):
        @functools.wraps(view)
        async def wrapper(request, *args, **kwargs):
            if request.method != method:
                response = json_error(405, "Method not allowed.", "method_not_allowed")
                response["Allow"] = method
                return response
            return await view(request, *args, **kwargs)

        return wrapper

    return decorate


def _json_body(request, *, empty: Any) -> Any:
    """Return the request's JSON body (`empty` when there is none), or raise a 400.

    Wrongly typed or too deeply nested bodies are JSON 400s, never a 500; a body that is not
    JSON at all is `empty`, so each endpoint answers it as it answers a missing body.
    """
    if not request.body or not request.body.strip():
        return empty
    try:
        body = json.loads(request.body)
        check_value(body)
    except RecursionError:
        raise ServiceError(400, TOO_DEEP_CODE, TOO_DEEP_MESSAGE) from None
    except BodyRefused as exc:
        raise ServiceError(400, exc.code, exc.message) from None
    except (ValueError, UnicodeDecodeError):
        return NOT_JSON
    return body


# A body that is not JSON.
NOT_JSON = object()


async def _release_request_connection() -> None:
    """Close this request's database connection before a long stream starts.

    Django gives each ASGI request its own sync thread, and so its own connection, held until
    the response ends; an open stream would pin one connection for minutes. Streams read the
    log on a small shared pool instead.
    """
    await sync_to_async(_close_connection)()


def _close_connection() -> None:
    from django.db import connection

    connection.close()


@json_errors
@allow("POST")
async def query_view(request):
    """Start a run and stream its events: the spec's contract, plus id lines and heartbeats."""
    body = _json_body(request, empty=None)
    parsed = QueryInput(data=None if body is NOT_JSON else body).validated()
    run = await sync_to_async(run_start)(
        user=request.user, data=parsed, request_id=getattr(request, "request_id", "")
    )
    response = await _run_stream_response(run, deltas=parsed["answer_deltas"])
    if run.conversation_id:
        response["X-Conversation-Id"] = str(run.conversation_id)
    return response


async def _run_stream_response(
    run: QueryRun, *, after: int = 0, style: str = STYLE_POST, deltas: bool = False
) -> StreamingHttpResponse:
    """Stream a run's log after an event: POST /api/query's frames from the first (with the
    answer deltas when asked), or EventSource's from a cursor."""
    await _release_request_connection()
    response = StreamingHttpResponse(
        run_stream(run_id=run.id, after=after, style=style, deltas=deltas),
        content_type="text/event-stream",
    )
    for header, value in SSE_HEADERS.items():
        response[header] = value
    response["X-Run-Id"] = str(run.id)
    return response


def _cursor(request) -> int:
    """Return the resume cursor from Last-Event-ID (`k` or `run-<id>:k`) or ?after=k."""
    raw = (
        request.headers.get("Last-Event-ID")
        or request.GET.get("after")
        or request.GET.get("lastEventId")
        or "0"
    )
    raw = raw.rsplit(":", 1)[-1].strip()
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise ServiceError(
            400, "invalid_cursor", "Last-Event-ID or ?after= must be a non-negative event number."
        )
    return value


def _open_events(user, run_id, after: int):
    run = run_get_for_user(run_id=run_id, user=user)
    finished = not run.is_active and run.last_seq > 0
    return run, finished and after >= run.last_seq


@json_errors
@allow("GET")
async def run_events_view(request, run_id):
    """EventSource-compatible replay and live tail of a run's log."""
    after = _cursor(request)
    run, nothing_left = await sync_to_async(_open_events)(request.user, run_id, after)
    if nothing_left:
        # A finished run fully sent: 204 tells EventSource to stop reconnecting. A 204 has
        # no body, so it names no content type either.
        response = HttpResponse(status=204)
        del response["Content-Type"]
        return response
    return await _run_stream_response(run, after=after, style=STYLE_EVENTSOURCE)


def _prepare_rerun(user, run_id, overrides: Any, request_id: str) -> QueryRun:
    original = run_get_for_user(run_id=run_id, user=user, level=ACT)
    return run_rerun(run=original, user=user, overrides=overrides, request_id=request_id)


@json_errors
@allow("POST")
async def run_rerun_view(request, run_id):
    """Re-run a past run's question with some settings changed; stream it like POST /api/query."""
    overrides = _json_body(request, empty=None)
    if overrides is NOT_JSON:
        raise ServiceError(400, "invalid_request", "The body must be a JSON object.")
    run = await sync_to_async(_prepare_rerun)(
        request.user, run_id, overrides, getattr(request, "request_id", "")
    )
    response = await _run_stream_response(run)
    response["X-Rerun-Of"] = str(run.rerun_of_id)
    return response
