"""Health and readiness checks that /api/health reports."""

from __future__ import annotations

import functools
import tomllib
from importlib import metadata

from django.conf import settings
from django.db import connection

from adrag_site import jobs

DISTRIBUTION = "adrag-django"
HEALTHY, DEGRADED, UNHEALTHY = "healthy", "degraded", "unhealthy"


@functools.cache
def app_version() -> str:
    """Return the installed package's version, else pyproject.toml's (a checkout not installed)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pass
    try:
        with open(settings.BASE_DIR / "pyproject.toml", "rb") as handle:
            return str(tomllib.load(handle)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


def database_status() -> dict:
    """Return whether the database answers and which pgvector version is installed."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
    except Exception as exc:  # any failure means the database is not usable
        return {"database": "error", "database_error": type(exc).__name__, "pgvector": None}
    return {"database": "ok", "pgvector": row[0] if row else None}


def worker_status() -> dict:
    """Return whether a Procrastinate worker sent a heartbeat recently."""
    window = settings.WORKER_SEEN_SECONDS
    try:
        count, last = jobs.workers_seen(window_seconds=window)
    except Exception:
        return {"seen": False, "count": 0, "last_heartbeat": None}
    return {
        "seen": count > 0,
        "count": count,
        "last_heartbeat": last.isoformat() if last else None,
        "window_seconds": window,
    }


def queue_status() -> dict:
    """Return each queue's live workers ({} when the database cannot say)."""
    from adrag_site import presence

    try:
        return presence.queue_status()
    except Exception:
        return {}


_probes: list[tuple[str, object]] = []


def register_probe(name: str, probe) -> None:
    """Add a readiness probe (a callable returning JSON-able data) to the health report."""
    if all(existing != name for existing, _ in _probes):
        _probes.append((name, probe))


def extra_probes() -> list[tuple[str, object]]:
    """Return the readiness probes other apps registered."""
    return list(_probes)
