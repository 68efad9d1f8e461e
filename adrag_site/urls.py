from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView

from adrag_site import apis, metrics, pages, views

handler400 = "adrag_site.errors.handler400"
handler403 = "adrag_site.errors.handler403"
handler404 = "adrag_site.errors.handler404"
handler500 = "adrag_site.errors.handler500"

urlpatterns = [
    # Without local accounts the admin's own sign-in form sends people to single sign-on.
    path("admin/login/", views.admin_login_view, name="admin-login"),
    path("admin/", admin.site.urls),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    # Single sign-on: /oidc/authenticate/ (to the provider), /oidc/callback/ (back).
    path("oidc/", include("mozilla_django_oidc.urls")),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/health", views.health_view, name="health"),
    path("api/csrf", views.CsrfTokenApi.as_view(), name="csrf-token"),
    path("api/tokens", apis.TokenListApi.as_view(), name="token-list"),
    path("api/tokens/<int:token_id>", apis.TokenDetailApi.as_view(), name="token-detail"),
    path("api/audit-events", apis.AuditEventListApi.as_view(), name="audit-event-list"),
    path("api/teams", apis.TeamListApi.as_view(), name="team-list"),
    path("api/teams/<str:team_id>", apis.TeamDetailApi.as_view(), name="team-detail"),
    path(
        "api/teams/<str:team_id>/members",
        apis.TeamMemberListApi.as_view(),
        name="team-member-list",
    ),
    path(
        "api/teams/<str:team_id>/members/<int:user_id>",
        apis.TeamMemberApi.as_view(),
        name="team-member-detail",
    ),
    # The OpenAPI schema and its page; like the rest of /api/, they need a login.
    path("api/schema", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs", views.ApiSwaggerView.as_view(), name="api-docs"),
    # Redoc was dropped: its bundle cannot run under the portal's CSP (see README, API).
    path("api/redoc", RedirectView.as_view(pattern_name="api-docs"), name="api-redoc"),
    path("api/", include("knowledge.urls")),
    path("api/", include("queries.urls")),
    # Each app owns its pages.
    path("", include("queries.page_urls")),
    path("", include("knowledge.page_urls")),
    path("", include("providers.page_urls")),
    path("static/<path:path>", pages.static_file, name="static-file"),
    path("favicon.ico", pages.favicon_view, name="favicon"),
    path("account/tokens/", pages.tokens_view, name="tokens-page"),
    path("teams/", pages.teams_view, name="teams-page"),
    path("metrics", metrics.metrics_view, name="metrics"),
    # The spec's page routes, kept as addresses of the portal's pages.
    re_path(r"^chat/?$", RedirectView.as_view(url="/", query_string=True)),
    re_path(r"^knowledge-base/?$", RedirectView.as_view(url="/knowledge/", query_string=True)),
    re_path(r"^configuration/?$", RedirectView.as_view(url="/providers/", query_string=True)),
]
