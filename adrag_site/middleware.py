"""Cross-cutting middleware: request ids, JSON errors, API authentication, upload limits, CSP."""

from __future__ import annotations

import logging
import re
import uuid

from django.utils.deprecation import MiddlewareMixin

from adrag_site.audit import current_request
from adrag_site.errors import is_api_path, json_error
from adrag_site.logging import request_id_var
from adrag_site.parsers import INVALID_CHARACTERS_CODE, has_invalid_characters
from adrag_site.tokens import TOKEN_RESULT, ScopedTokenAuthentication, allows, required_scope

logger = logging.getLogger(__name__)

REQUEST_ID_RE = re.compile(r"^[A-Za-z0-9._:\-]{8,128}$")
PUBLIC_API_PATHS = {"/api/health", "/api/health/"}
# The API's documentation pages: people open them in a browser, so without a session they are
# sent to the login form rather than answered 401 (/api/redoc now leads to /api/docs).
API_DOCS_PAGES = {"/api/docs", "/api/redoc"}


class RequestIdMiddleware(MiddlewareMixin):
    """Accept a well-formed X-Request-ID or make one; echo it and put it on log lines."""

    def process_request(self, request):
        incoming = request.headers.get("X-Request-ID", "")
        request_id = incoming if REQUEST_ID_RE.match(incoming) else uuid.uuid4().hex
        request.request_id = request_id
        request._request_id_token = request_id_var.set(request_id)
        current_request.set(request)

    def process_response(self, request, response):
        # The request is over: nothing recorded later (in this thread or context) is its.
        current_request.set(None)
        request_id = getattr(request, "request_id", None)
        if request_id:
            response["X-Request-ID"] = request_id
            if response.status_code >= 500:
                logger.error("%s %s -> %s", request.method, request.path, response.status_code)
        return response


class ApiInvalidCharactersMiddleware(MiddlewareMixin):
    """Answer 400 JSON for a NUL or a lone surrogate anywhere in an /api/ path or query string.

    Such a value can reach no valid resource, and PostgreSQL text cannot hold it: passed on to
    a lookup or a filter it would end as a 500.
    """

    def process_request(self, request):
        if not is_api_path(request.path):
            return None
        values = [request.path]
        for key, items in request.GET.lists():
            values.append(key)
            values.extend(items)
        if any(has_invalid_characters(value) for value in values):
            return json_error(
                400,
                "The URL may not contain NUL characters or lone surrogates.",
                INVALID_CHARACTERS_CODE,
            )
        return None


class ApiJsonErrorMiddleware(MiddlewareMixin):
    """Make sure no /api/ error leaves as an HTML page, whoever produced it."""

    def process_response(self, request, response):
        if not is_api_path(request.path) or response.status_code < 400:
            return response
        if getattr(response, "streaming", False):
            return response
        content_type = response.get("Content-Type", "")
        if content_type.startswith("application/json"):
            return response
        replacement = json_error(response.status_code)
        for header in ("WWW-Authenticate", "Allow", "Retry-After"):
            if header in response:
                replacement[header] = response[header]
        return replacement


class ApiAuthenticationMiddleware(MiddlewareMixin):
    """Require a session or an API token on every /api/ path except health, and hold a token to
    its scope. A request that carries a token is the token's, with or without a session: the
    DRF views authenticate it first too, so its scope must bind it here whatever the cookie."""

    def process_request(self, request):
        if not is_api_path(request.path) or request.path in PUBLIC_API_PATHS:
            return None
        if request.user.is_authenticated and "Authorization" not in request.headers:
            return None
        if request.path in API_DOCS_PAGES and "Authorization" not in request.headers:
            from django.contrib.auth.views import redirect_to_login

            return redirect_to_login(request.get_full_path())
        from rest_framework import exceptions

        try:
            result = ScopedTokenAuthentication().authenticate(request)
        except exceptions.AuthenticationFailed as exc:
            response = json_error(401, str(exc.detail), "authentication_failed")
            response["WWW-Authenticate"] = "Token"
            return response
        if result is None:
            response = json_error(
                401, "Authentication credentials were not provided.", "not_authenticated"
            )
            response["WWW-Authenticate"] = "Token"
            return response
        if not allows(result[1], request.method, request.path):
            needed = required_scope(request.method, request.path)
            return json_error(
                403,
                f"This token's scope does not allow this request; it needs the {str(needed)!r} scope.",
                "insufficient_scope",
            )
        request.user = result[0]
        request.auth = result[1]
        setattr(request, TOKEN_RESULT, result)
        # Token clients carry no cookies, so there is no CSRF exposure to guard against.
        request._dont_enforce_csrf_checks = True
        return None


def content_security_policy(*, form_targets: tuple[str, ...] = ()) -> str:
    """Return the portal's policy: everything from this server, no inline script or style.

    `form_targets` are other origins a form on the page may lead to (browsers apply
    form-action to the redirect that follows a submission too).
    """
    form_action = " ".join(("'self'", *form_targets))
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; "
        f"form-action {form_action}; frame-ancestors 'none'"
    )


class ContentSecurityPolicyMiddleware(MiddlewareMixin):
    """Send a Content-Security-Policy that allows no inline script (unless a view set one)."""

    POLICY = content_security_policy()

    def process_response(self, request, response):
        if request.path.startswith("/admin/"):
            # The admin ships inline scripts of its own; it keeps Django's defaults.
            return response
        response.setdefault("Content-Security-Policy", self.POLICY)
        return response
