"""Site-wide views: health and the API's documentation pages (the portal pages are in pages.py)."""

from __future__ import annotations

import secrets

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView

from adrag_site import health
from adrag_site.middleware import content_security_policy


@csrf_exempt  # read-only and public; lets a wrong method answer 405 rather than a CSRF 403
@require_GET
def health_view(request: HttpRequest) -> JsonResponse:
    """Report liveness and readiness; needs no authentication."""
    report = health.database_status()
    report["worker"] = health.worker_status()
    for name, probe in health.extra_probes():
        report[name] = probe()
    healthy = report["database"] == "ok" and bool(report.get("pgvector"))
    body = {"status": "healthy" if healthy else "unhealthy", **report}
    return JsonResponse(body, status=200 if healthy else 503)


class ApiSwaggerView(SpectacularSwaggerSplitView):
    """Swagger UI, its init script served from `?script=` so that no script is inline."""

    template_name = "api_docs/swagger_ui.html"


class ApiRedocView(SpectacularRedocView):
    """Redoc under the portal's CSP.

    Redoc styles itself with styled-components, which write <style> elements at run time; the
    page's policy allows those that carry this response's nonce (Redoc's `nonce` option), and
    still no inline script.
    """

    template_name = "api_docs/redoc.html"

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        nonce = secrets.token_urlsafe(18)
        response = super().get(request, *args, **kwargs)
        response.data["style_nonce"] = nonce
        response["Content-Security-Policy"] = content_security_policy(style_nonce=nonce)
        return response
