from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "adrag_site.settings")

from django.urls import get_resolver  # noqa: E402

from adrag_site.server import BodyLimitMiddleware  # noqa: E402  (settings must be named first)

application = BodyLimitMiddleware(get_asgi_application())
# The views and what they import (the answer checks load spaCy) are imported now, before the
# server takes requests: lazily, the first requests after a start waited seconds for them, a
# burst of streams among them (bench/streams.py).
get_resolver().url_patterns  # noqa: B018
