"""Site-wide views: health, the CSRF token, sign-in and the API's documentation page (the portal
pages are in pages.py)."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from adrag_site import health, sso
from adrag_site.middleware import content_security_policy
from adrag_site.schema import error_responses


@csrf_exempt  # read-only and public; lets a wrong method answer 405 rather than a CSRF 403
@require_GET
def health_view(request: HttpRequest) -> JsonResponse:
    """Report liveness and readiness; needs no authentication.

    200 `healthy` when the database answers and every queue (runs, ingest) has a live worker;
    503 `degraded` when a queue has none (its work waits), 503 `unhealthy` when the database
    does not answer.
    """
    report = health.database_status()
    if report["database"] != "ok":
        # Nothing else can be read now; each probe would wait for the pool in vain.
        body = {"status": health.UNHEALTHY, "version": health.app_version()}
        return JsonResponse({**body, **report, "queues": {}}, status=503)
    report["worker"] = health.worker_status()
    report["queues"] = health.queue_status()
    for name, probe in health.extra_probes():
        report[name] = probe()
    if report["database"] != "ok" or not report.get("pgvector"):
        status = health.UNHEALTHY
    elif any(not queue["workers"] for queue in report["queues"].values()):
        status = health.DEGRADED
    else:
        status = health.HEALTHY
    body = {"status": status, "version": health.app_version()}
    return JsonResponse({**body, **report}, status=200 if status == health.HEALTHY else 503)


class CsrfTokenApi(APIView):
    """The CSRF token, for a front end on another origin that uses the session.

    Such a page cannot read this host's `csrftoken` cookie (cookies belong to their host), so it
    asks here and sends the token back in `X-CSRFToken` on its POSTs; the response also sets
    the cookie the token is checked against.
    """

    class OutputSerializer(serializers.Serializer):
        csrf_token = serializers.CharField(help_text="Send it as the `X-CSRFToken` header.")

    @extend_schema(
        summary="A CSRF token for session requests",
        responses={200: OutputSerializer, **error_responses(401)},
        tags=["session"],
    )
    def get(self, request):
        return Response(self.OutputSerializer({"csrf_token": get_token(request)}).data)


SSO_MESSAGES = {
    "failed": "Single sign-on did not sign you in. Try again, or ask your administrator.",
    "unavailable": "The single sign-on provider cannot be reached just now. Try again soon.",
}


class LoginView(auth_views.LoginView):
    """The sign-in page; `next` may also lead back to a front end of CORS_ALLOWED_ORIGINS.

    With single sign-on it offers the provider; without local accounts it offers only that,
    and a password sent anyway is refused.
    """

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(
            sso_enabled=sso.enabled(),
            sso_name=settings.OIDC_PROVIDER_NAME,
            local_login=settings.LOCAL_LOGIN_ENABLED,
            sso_message=SSO_MESSAGES.get(self.request.GET.get("sso", "")),
        )
        return context

    def post(self, request, *args, **kwargs):
        if not settings.LOCAL_LOGIN_ENABLED:
            context = self.get_context_data(form=self.get_form())
            context["sso_message"] = "Sign in with single sign-on: passwords are switched off."
            return self.render_to_response(context, status=403)
        return super().post(request, *args, **kwargs)

    def get_success_url_allowed_hosts(self) -> set[str]:
        front_ends = {urlsplit(origin).netloc for origin in settings.CORS_ALLOWED_ORIGINS}
        return {*super().get_success_url_allowed_hosts(), *front_ends}

    def dispatch(self, request, *args, **kwargs):
        response = super().dispatch(request, *args, **kwargs)
        if settings.CORS_ALLOWED_ORIGINS:
            # The form's submission ends in a redirect to the front end, which the policy's
            # form-action must allow.
            response["Content-Security-Policy"] = content_security_policy(
                form_targets=tuple(settings.CORS_ALLOWED_ORIGINS)
            )
        return response


def admin_login_view(request, *args, **kwargs):
    """The admin's sign-in: its own form, or the portal's (single sign-on) without passwords."""
    if settings.LOCAL_LOGIN_ENABLED:
        return admin.site.login(request, *args, **kwargs)
    target = request.GET.get("next") or reverse("admin:index")
    return redirect(f"{reverse('login')}?{urlencode({'next': target})}")


class ApiSwaggerView(SpectacularSwaggerSplitView):
    """Swagger UI, its init script served from `?script=` so that no script is inline."""

    template_name = "api_docs/swagger_ui.html"
