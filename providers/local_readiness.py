"""The local model, loaded at a run worker's start and reported to /api/health.

A run worker (queues runs) loads the local model on a background thread when the local
provider is the default (or LOCAL_WARM_UP says so), reads the fixed start of the prompt the
answering code gives it (its system prompt) into its cache, logs when it is ready, and keeps a `LocalModelState` row fresh while it lives,
so that the web process's health report can say which workers have the model ready.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone

from adrag_site.jobs import is_worker_process, takes_any_of
from providers.llm.local import LlamaCppBackend, model_path
from providers.models import LocalModelState

logger = logging.getLogger(__name__)


def wanted() -> bool:
    """Return whether run workers load the local model at start."""
    configured = settings.LOCAL_WARM_UP
    if configured in ("true", "false"):
        return configured == "true"
    return (settings.DEFAULT_PROVIDER or "").lower() == "local"


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def start_in_worker(*, system: str) -> None:
    """In a run worker, warm the local model up on a background thread (if wanted), reading
    the system prompt its answers start with."""
    if not wanted() or not is_worker_process() or not takes_any_of(("runs",)):
        return
    threading.Thread(
        target=_warm_up_and_report, args=(system,), name="warm-up-local-model", daemon=True
    ).start()


def _warm_up_and_report(system: str) -> None:
    from django.apps import apps

    while not apps.ready:
        # Started from AppConfig.ready: the first write waits for the other apps.
        time.sleep(0.1)
    path = model_path()
    name = path.name if path else "(no local model)"
    _record(name, "loading")
    started = time.monotonic()
    try:
        LlamaCppBackend().warm_up(system=system)
        if path is None or not path.is_file():
            raise FileNotFoundError("no local model file: run `manage.py fetch_model`")
    except Exception as exc:
        logger.exception("the local model %s did not load", name)
        _record(name, "failed", error=f"{type(exc).__name__}: {exc}"[:500])
        return
    seconds = round(time.monotonic() - started, 1)
    logger.info("local model %s is ready (loaded and warmed up in %.1f s)", name, seconds)
    _record(name, "ready", seconds=seconds)
    while True:
        time.sleep(max(settings.WORKER_SEEN_SECONDS / 3, 1))
        _record(name, "ready", seconds=seconds)


def _record(model: str, state: str, *, seconds: float | None = None, error: str = "") -> None:
    try:
        LocalModelState.objects.update_or_create(
            worker=worker_id(),
            defaults={"model": model, "state": state, "seconds": seconds, "error": error},
        )
    except Exception as exc:
        # The database may be away for a moment: the next refresh connects and writes again.
        logger.warning("could not record the local model's state: %s", exc)
        connection.close()


def status() -> dict:
    """Report the local model for /api/health: whether workers load it, and each worker's
    state as it last reported it (within WORKER_SEEN_SECONDS)."""
    report: dict = {"warm_up": wanted(), "default_provider": settings.DEFAULT_PROVIDER or ""}
    if not report["warm_up"]:
        return report
    since = timezone.now() - timedelta(seconds=settings.WORKER_SEEN_SECONDS)
    try:
        rows = list(LocalModelState.objects.filter(updated_at__gte=since))
    except Exception as exc:
        return {**report, "ready": False, "error": type(exc).__name__}
    report["workers"] = [
        {
            "worker": row.worker,
            "model": row.model,
            "state": row.state,
            "seconds": row.seconds,
            **({"error": row.error} if row.error else {}),
        }
        for row in rows
    ]
    report["ready"] = any(row.state == LocalModelState.READY for row in rows)
    return report
