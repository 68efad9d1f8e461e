from __future__ import annotations

from django.apps import AppConfig


class QueriesConfig(AppConfig):
    name = "queries"
    verbose_name = "Query runs"

    def ready(self) -> None:
        # Imported once the models are loaded: apps.py itself is imported before them.
        from adrag_site.jobs import warm_up_in_worker
        from providers import local_readiness
        from queries import metrics
        from queries.answering import (
            language,
            settings_checks,  # noqa: F401  (registers the checks)
        )
        from queries.answering.prompts import ANSWER_PLAIN_SYSTEM

        metrics.register()
        # LangGraph takes most of a second to import: a worker of runs imports the pipeline at
        # start, so that its first run does not wait for it; web processes and ingest workers,
        # which never run it, skip it (2.7 CPU-seconds and 117 MB less for an ingest worker).
        warm_up_in_worker("pipeline", _import_pipeline, queues=("runs",))
        # spaCy's English pipeline reads every question (the frame) and answer (the check).
        warm_up_in_worker("language", language.nlp, queues=("runs",))
        # The local model reads the start of the prompt its answers begin with (quote-first's
        # model answers are plain text).
        local_readiness.start_in_worker(system=ANSWER_PLAIN_SYSTEM)


def _import_pipeline() -> None:
    # The warm-up is this import, on a worker's background thread.
    import queries.pipeline.runner  # noqa: F401
