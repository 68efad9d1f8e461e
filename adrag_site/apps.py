from __future__ import annotations

import os

from django.apps import AppConfig


class AdragSiteConfig(AppConfig):
    name = "adrag_site"
    verbose_name = "adRAG site"

    def ready(self) -> None:
        # OpenMP threads (llama.cpp's, torch's) sleep rather than spin while they wait. Alone it
        # costs nothing (a 1.5B model read 20.9 tokens/s either way); two processes computing
        # at once (two run workers, a worker beside a test or a model server) read 24 tokens/s
        # each spinning and 39 sleeping, and a spinning one beside a busy 1.5B slowed to 2
        # tokens/s. Set at start-up, before any OpenMP runtime loads (the models load after
        # the apps are ready), and inherited by the processes the portal starts; an explicit
        # OMP_WAIT_POLICY wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        # Imported once the models are loaded: apps.py itself is imported before them.
        from adrag_site.logging import install_record_factory

        install_record_factory()
        from adrag_site import (
            audit,  # noqa: F401 - connects the sign-in signals
            jobs,
            presence,
        )

        # A worker says which queues it takes while it lives (/api/health, streams).
        presence.start_in_worker()
        jobs.exit_without_collecting()
