from __future__ import annotations

from django.apps import AppConfig


class AdragSiteConfig(AppConfig):
    name = "adrag_site"
    verbose_name = "adRAG site"

    def ready(self) -> None:
        # Imported once the models are loaded: apps.py itself is imported before them.
        from adrag_site.logging import install_record_factory

        install_record_factory()
        from adrag_site import (
            audit,  # noqa: F401 - connects the sign-in signals
            presence,
        )

        # A worker says which queues it takes while it lives (/api/health, streams).
        presence.start_in_worker()
