"""JSON error bodies for every /api/ path: {"error": "...", "code": "..."}."""

from __future__ import annotations

import logging
from http import HTTPStatus

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from rest_framework import exceptions as drf_exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

logger = logging.getLogger(__name__)

STATUS_CODES = {
    400: "bad_request",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "rate_limited",
    500: "server_error",
    503: "unavailable",
}


STATUS_MESSAGES = {
    400: "Bad request.",
    401: "Authentication credentials were not provided.",
    403: "Permission denied.",
    404: "Not found.",
    405: "Method not allowed.",
    413: "Request body too large.",
    500: "Internal server error.",
}


def is_api_path(path: str) -> bool:
    """Tell whether a request path belongs to the JSON API."""
    return path == "/api" or path.startswith("/api/")


def error_body(status: int, message: str | None = None, code: str | None = None) -> dict:
    """Build the standard error body for a status."""
    phrase = STATUS_MESSAGES.get(status)
    if phrase is None:
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = "Error"
    return {"error": message or phrase, "code": code or STATUS_CODES.get(status, "error")}


def json_error(
    status: int, message: str | None = None, code: str | None = None, **extra
) -> JsonResponse:
    """Return a JsonResponse carrying the standard error body."""
    body = error_body(status, message, code)
    body.update(extra)
    return JsonResponse(body, status=status)


class ServiceError(Exception):
    """A request that cannot be done: its HTTP status, a stable code and a message for users.

    The one error type of services, selectors and views; `api_exception_handler` (DRF views)
    and `ServiceError.response` (the plain async views) turn it into the JSON error body, with
    a `Retry-After` header when it carries `retry_after`.
    """

    def __init__(self, status: int, code: str, message: str, **extra) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra

    def body(self) -> dict:
        return {"error": self.message, "code": self.code, **self.extra}

    def headers(self) -> dict[str, str]:
        if "retry_after" in self.extra:
            return {"Retry-After": str(self.extra["retry_after"])}
        return {}

    def response(self) -> JsonResponse:
        response = JsonResponse(self.body(), status=self.status)
        for name, value in self.headers().items():
            response[name] = value
        return response


def _first_message(detail) -> str:
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    if isinstance(detail, dict) and detail:
        key, value = next(iter(detail.items()))
        message = _first_message(value)
        return message if key in ("non_field_errors", "detail") else f"{key}: {message}"
    return str(detail)


def api_exception_handler(exc, context) -> Response | None:
    """Turn DRF's exception responses into the standard error body."""
    if isinstance(exc, ServiceError):
        return Response(exc.body(), status=exc.status, headers=exc.headers())
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, drf_exceptions.ValidationError):
        response.data = {
            "error": _first_message(exc.detail),
            "code": "invalid_request",
            "details": exc.detail,
        }
        return response
    if isinstance(exc, drf_exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else STATUS_CODES.get(response.status_code)
        body = {"error": _first_message(exc.detail), "code": code}
        body.update(getattr(exc, "extra", {}) or {})
        response.data = body
    else:
        response.data = error_body(response.status_code)
    return response


def handler404(request: HttpRequest, exception=None) -> HttpResponse:
    """Answer 404 as JSON under /api/, as a page elsewhere."""
    if is_api_path(request.path):
        return json_error(404, "Not found.", "not_found")
    return render(request, "errors/404.html", status=404)


def handler500(request: HttpRequest) -> HttpResponse:
    """Answer 500 as JSON under /api/, as a page elsewhere; never leak the exception."""
    if is_api_path(request.path):
        return json_error(500, "Internal server error.", "server_error")
    return render(request, "errors/500.html", status=500)


def handler403(request: HttpRequest, exception=None) -> HttpResponse:
    """Answer 403 as JSON under /api/, as a page elsewhere."""
    if is_api_path(request.path):
        return json_error(403, "Permission denied.", "permission_denied")
    return render(request, "errors/403.html", status=403)


def handler400(request: HttpRequest, exception=None) -> HttpResponse:
    """Answer 400 as JSON under /api/, as a page elsewhere (413 for a body over Django's cap)."""
    from django.core.exceptions import RequestDataTooBig

    if isinstance(exception, RequestDataTooBig):
        if is_api_path(request.path):
            return json_error(413, "Request body too large.", "payload_too_large")
        return render(request, "errors/400.html", status=413)
    if is_api_path(request.path):
        return json_error(400, "Bad request.", "bad_request")
    return render(request, "errors/400.html", status=400)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Answer a CSRF failure as JSON under /api/, as a page elsewhere."""
    if is_api_path(request.path):
        return json_error(403, f"CSRF check failed: {reason}", "csrf_failed")
    return render(request, "errors/403.html", {"reason": reason}, status=403)
