from __future__ import annotations

from django.apps import AppConfig


class QueriesConfig(AppConfig):
    name = "queries"
    verbose_name = "Query runs"

    def ready(self) -> None:
        from adrag_site.jobs import warm_up_in_worker
        from queries import metrics

        metrics.register()
        # LangGraph takes most of a second to import: a worker imports the pipeline at start, so
        # that its first run does not wait for it; web processes, which never run it, skip it.
        warm_up_in_worker("pipeline", _import_pipeline)


def _import_pipeline() -> None:
    import queries.pipeline.runner  # noqa: F401
