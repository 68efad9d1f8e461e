"""The streaming endpoints: POST /api/query and GET /api/runs/<id>/events (plain async views)."""

from __future__ import annotations

import json
import logging
import uuid

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpResponse, JsonResponse, StreamingHttpResponse

from adrag_site.errors import json_error
from adrag_site.parsers import TOO_DEEP_CODE, TOO_DEEP_MESSAGE, BodyRefused, check_value
from queries.models import QueryRun
from queries.streams import STYLE_EVENTSOURCE, STYLE_POST, run_stream

logger = logging.getLogger(__name__)

MISSING_QUERY = "Missing or empty 'query' field"
BAD_PROVIDER = "provider must be 'openai' or 'ollama' (or 'extractive')"
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
MAX_MODEL_CHARS = QueryRun._meta.get_field("model").max_length


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


def _method_not_allowed(allowed: str) -> JsonResponse:
    response = json_error(405, "Method not allowed.", "method_not_allowed")
    response["Allow"] = allowed
    return response


def _parse_body(request) -> dict | JsonResponse:
    """Validate the spec's body; wrongly typed fields are JSON 400s, never a 500."""
    from providers.llm.registry import default_provider_name, provider_names

    try:
        body = json.loads(request.body or b"null")
        check_value(body)
    except RecursionError:
        return json_error(400, TOO_DEEP_MESSAGE, TOO_DEEP_CODE)
    except BodyRefused as exc:
        return json_error(400, exc.message, exc.code)
    except (ValueError, UnicodeDecodeError):
        body = None
    if not isinstance(body, dict):
        return json_error(400, MISSING_QUERY, "missing_query")
    query = body.get("query", "")
    if not isinstance(query, str):
        return json_error(400, "'query' must be a string", "invalid_query")
    if not query.strip():
        return json_error(400, MISSING_QUERY, "missing_query")
    limit = settings.MAX_QUERY_CHARS
    if len(query.strip()) > limit:
        return json_error(
            400, f"'query' is too long: the limit is {limit} characters.", "query_too_long"
        )
    provider = body.get("provider", default_provider_name())
    if not isinstance(provider, str) or provider.lower().strip() not in provider_names():
        return json_error(400, BAD_PROVIDER, "invalid_provider")
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        return json_error(400, "'model' must be a string", "invalid_model")
    if model and len(model) > MAX_MODEL_CHARS:
        return json_error(
            400,
            f"'model' is too long: the limit is {MAX_MODEL_CHARS} characters.",
            "model_too_long",
        )
    conversation = _conversation_field(body)
    if isinstance(conversation, JsonResponse):
        return conversation
    kbs = body.get("knowledge_bases", body.get("knowledgeBases"))
    if kbs is not None and (
        not isinstance(kbs, list)
        or not all(isinstance(k, int) and not isinstance(k, bool) for k in kbs)
    ):
        return json_error(
            400, "'knowledge_bases' must be a list of knowledge base ids", "invalid_knowledge_bases"
        )
    return {
        "query": query.strip(),
        "provider": provider.lower().strip(),
        "model": model or None,
        "knowledge_bases": kbs,
        # Checked in _prepare_run (queries/filters.py): documents need the user's access.
        "filters": body.get("filters"),
        "conversation": conversation,
    }


def _conversation_field(body: dict) -> str | None | JsonResponse:
    """Return the follow-up's conversation id (None: a new conversation), or a 400."""
    value = body.get("conversation")
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return str(uuid.UUID(value))
        except ValueError:
            pass
    return json_error(
        400, "'conversation' must be a conversation id (a UUID).", "invalid_conversation"
    )


def _prepare_run(user, parsed: dict, request_id: str) -> QueryRun | JsonResponse:
    from adrag_site.errors import ServiceError
    from knowledge.selectors import kb_ids_for_user
    from queries.filters import filters_validate
    from queries.services import run_create

    readable = kb_ids_for_user(user=user)
    if parsed["knowledge_bases"] is None:
        kb_ids = readable
    else:
        unknown = [k for k in parsed["knowledge_bases"] if k not in set(readable)]
        if unknown:
            return json_error(404, f"No such knowledge base: {unknown[0]}.", "not_found")
        kb_ids = list(dict.fromkeys(parsed["knowledge_bases"]))
    conversation = None
    if parsed.get("conversation"):
        from django.http import Http404

        from queries.selectors import conversation_get_for_user

        try:
            conversation = conversation_get_for_user(
                conversation_id=parsed["conversation"], user=user, own=True
            )
        except Http404:
            return json_error(404, "No such conversation.", "not_found")
    try:
        filters = filters_validate(raw=parsed.get("filters"), user=user, kb_ids=kb_ids)
        return run_create(
            user=user,
            query=parsed["query"],
            provider_name=parsed["provider"],
            model=parsed["model"],
            kb_ids=kb_ids,
            request_id=request_id,
            filters=filters,
            conversation=conversation,
            start_conversation=conversation is None,
        )
    except ServiceError as exc:
        return exc.response()


async def query_view(request):
    """Start a run and stream its events: the spec's contract, plus id lines and heartbeats."""
    if request.method != "POST":
        return _method_not_allowed("POST")
    parsed = _parse_body(request)
    if isinstance(parsed, JsonResponse):
        return parsed
    run = await sync_to_async(_prepare_run)(
        request.user, parsed, getattr(request, "request_id", "")
    )
    if isinstance(run, JsonResponse):
        return run
    response = await _run_stream_response(run)
    if run.conversation_id:
        response["X-Conversation-Id"] = str(run.conversation_id)
    return response


async def _run_stream_response(run: QueryRun) -> StreamingHttpResponse:
    """Stream a new run's log from its first event, as POST /api/query does."""
    await _release_request_connection()
    response = StreamingHttpResponse(
        run_stream(run_id=run.id, after=0, style=STYLE_POST),
        content_type="text/event-stream",
    )
    for header, value in SSE_HEADERS.items():
        response[header] = value
    response["X-Run-Id"] = str(run.id)
    return response


def _cursor(request) -> int | None:
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
        return None
    return value if value >= 0 else None


def _open_events(user, run_id, after: int):
    from queries.selectors import run_get_for_user

    run = run_get_for_user(run_id=run_id, user=user)
    finished = not run.is_active and run.last_seq > 0
    return run, finished and after >= run.last_seq


async def run_events_view(request, run_id):
    """EventSource-compatible replay and live tail of a run's log."""
    from django.http import Http404

    if request.method != "GET":
        return _method_not_allowed("GET")
    after = _cursor(request)
    if after is None:
        return json_error(
            400, "Last-Event-ID or ?after= must be a non-negative event number.", "invalid_cursor"
        )
    try:
        run, nothing_left = await sync_to_async(_open_events)(request.user, run_id, after)
    except Http404:
        return json_error(404, "No such run.", "not_found")
    if nothing_left:
        # A finished run fully sent: 204 tells EventSource to stop reconnecting. A 204 has
        # no body, so it names no content type either.
        response = HttpResponse(status=204)
        del response["Content-Type"]
        return response
    await _release_request_connection()
    response = StreamingHttpResponse(
        run_stream(run_id=run.id, after=after, style=STYLE_EVENTSOURCE),
        content_type="text/event-stream",
    )
    for header, value in SSE_HEADERS.items():
        response[header] = value
    response["X-Run-Id"] = str(run.id)
    return response


def _parse_overrides(request) -> dict | JsonResponse:
    """Read a re-run's body: a JSON object of settings to change (empty: change nothing)."""
    if not request.body or not request.body.strip():
        return {}
    try:
        body = json.loads(request.body)
        check_value(body)
    except RecursionError:
        return json_error(400, TOO_DEEP_MESSAGE, TOO_DEEP_CODE)
    except BodyRefused as exc:
        return json_error(400, exc.message, exc.code)
    except (ValueError, UnicodeDecodeError):
        return json_error(400, "The body must be a JSON object.", "invalid_request")
    if body is None:
        return {}
    if not isinstance(body, dict):
        return json_error(400, "The body must be a JSON object of settings.", "invalid_override")
    return body


def _prepare_rerun(user, run_id, overrides: dict, request_id: str) -> QueryRun | JsonResponse:
    from django.http import Http404

    from adrag_site.errors import ServiceError
    from queries.selectors import run_get_for_user
    from queries.services import run_rerun

    try:
        original = run_get_for_user(run_id=run_id, user=user)
        return run_rerun(run=original, user=user, overrides=overrides, request_id=request_id)
    except Http404:
        return json_error(404, "No such run.", "not_found")
    except ServiceError as exc:
        return exc.response()


async def run_rerun_view(request, run_id):
    """Re-run a past run's question with some settings changed; stream it like POST /api/query."""
    if request.method != "POST":
        return _method_not_allowed("POST")
    overrides = _parse_overrides(request)
    if isinstance(overrides, JsonResponse):
        return overrides
    run = await sync_to_async(_prepare_rerun)(
        request.user, run_id, overrides, getattr(request, "request_id", "")
    )
    if isinstance(run, JsonResponse):
        return run
    response = await _run_stream_response(run)
    response["X-Rerun-Of"] = str(run.rerun_of_id)
    return response
