"""What every page shares: the portal's static files and its icon; the API tokens page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles.views import serve as staticfiles_serve
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.templatetags.static import static

from adrag_site.models import ApiToken


def static_file(request: HttpRequest, path: str) -> HttpResponse:
    """Serve the portal's own CSS and JavaScript from the app's static folders.

    uvicorn serves no static files and DEBUG is off in production; the portal's assets are a
    few small files, so the web process serves them itself rather than needing a second
    server. A CDN or proxy in front can take this over through STATIC_URL.
    """
    response = staticfiles_serve(request, path, insecure=True)
    response["Cache-Control"] = "no-cache"
    return response


def favicon_view(request: HttpRequest) -> HttpResponse:
    """Send /favicon.ico, which browsers ask for on pages without an icon link, to the SVG icon."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))


@login_required
def tokens_view(request: HttpRequest) -> HttpResponse:
    """The caller's API tokens: make one (its key shown once), see when each was used, revoke."""
    return render(request, "tokens.html", {"nav": "tokens", "scopes": ApiToken.Scope.choices})


@login_required
def teams_view(request: HttpRequest) -> HttpResponse:
    """Teams, for staff: make one, add and remove members, see its knowledge bases."""
    from django.core.exceptions import PermissionDenied

    if not request.user.is_staff:
        raise PermissionDenied("Teams are managed by staff.")
    return render(request, "teams.html", {"nav": "teams"})
