"""Health and readiness checks that /api/health reports."""

from __future__ import annotations

import functools
import tomllib
from importlib import metadata

from django.conf import settings
from django.db import connection

from adrag_site import jobs, presence

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


# A health check says the database is away within this long, rather than waiting for the
# connection pool (DB_POOL_TIMEOUT) to give up on it.
PROBE_CONNECT_SECONDS = 2


def _reachable() -> str:
    """Return "" if a fresh connection to the database opens within PROBE_CONNECT_SECONDS,
    else the error's name. Not pooled: the pool would wait for the server to come back."""
    import psycopg

    params = connection.settings_dict
    if not params.get("HOST") and params.get("EMBEDDED"):
        return ""  # not connected yet: the embedded server starts with the first query
    try:
        psycopg.connect(
            dbname=params["NAME"],
            user=params.get("USER") or None,
            password=params.get("PASSWORD") or None,
            host=params.get("HOST") or None,
            port=params.get("PORT") or None,
            connect_timeout=PROBE_CONNECT_SECONDS,
        ).close()
    except Exception as exc:
        return type(exc).__name__
    return ""


def database_status() -> dict:
    """Return whether the database answers and which pgvector version is installed."""
    error = _reachable()
    if error:
        return {"database": "error", "database_error": error, "pgvector": None}
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
