from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "adrag_site.settings")

from adrag_site.server import BodyLimitMiddleware  # noqa: E402  (settings must be named first)

application = BodyLimitMiddleware(get_asgi_application())
