from __future__ import annotations

from django.apps import AppConfig


class QueriesConfig(AppConfig):
    name = "queries"
    verbose_name = "Query runs"

    def ready(self) -> None:
        from adrag_site.jobs import warm_up_in_worker
        from providers import local_readiness
        from queries import metrics
        from queries.answering import settings_checks  # noqa: F401  (registers the checks)
        from queries.answering.prompts import ANSWER_PLAIN_SYSTEM

        metrics.register()
        # LangGraph takes most of a second to import: a worker imports the pipeline at start, so
        # that its first run does not wait for it; web processes, which never run it, skip it.
        warm_up_in_worker("pipeline", _import_pipeline)
        # spaCy's English pipeline reads every question (the frame) and answer (the check).
        warm_up_in_worker("language", _load_language)
        # The local model reads the start of the prompt its answers begin with (quote-first's
        # model answers are plain text).
        local_readiness.start_in_worker(system=ANSWER_PLAIN_SYSTEM)


def _import_pipeline() -> None:
    import queries.pipeline.runner  # noqa: F401


def _load_language() -> None:
    from queries.answering import language

    language.nlp()
