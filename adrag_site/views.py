"""Site-wide views: health (the portal pages are in pages.py)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from adrag_site import health


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
