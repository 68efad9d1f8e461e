from __future__ import annotations

from django.apps import AppConfig


class QueriesConfig(AppConfig):
    name = "queries"
    verbose_name = "Query runs"

    def ready(self) -> None:
        from queries import metrics

        metrics.register()
