"""Which database retrieval reads: `default`, or a read replica named by
RETRIEVAL_DATABASE_URL (the `retrieval` alias).

Retrieval only reads: the three stores' searches, the per-KB statistics and the hydration of
hits. Sending them to a streaming replica takes their load off the primary, which keeps the
writes (ingestion, run events). A replica lags its primary by its replay delay: a document
becomes searchable there that much later.
"""

from __future__ import annotations

from django.conf import settings


def retrieval_alias() -> str:
    return settings.RETRIEVAL_DATABASE
