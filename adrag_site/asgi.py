from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "adrag_site.settings")

from django.conf import settings  # noqa: E402
from django.urls import get_resolver  # noqa: E402
from django.utils.module_loading import import_string  # noqa: E402

from adrag_site.server import BodyLimitMiddleware, PathRouter  # noqa: E402  (settings first)

django_application = get_asgi_application()
# The ASGI mounts beside Django (the MCP server at /mcp), named by dotted path as the root urls
# include each app's urls: adrag_site imports no app.
application = PathRouter(
    BodyLimitMiddleware(django_application),
    {prefix: import_string(path) for prefix, path in settings.ASGI_MOUNTS.items()},
)
# The views and what they import (the answer checks load spaCy) are imported now, before the
# server takes requests: lazily, the first requests after a start waited seconds for them, a
# burst of streams among them (bench/streams.py).
get_resolver().url_patterns  # noqa: B018
