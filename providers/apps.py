from __future__ import annotations

from django.apps import AppConfig


class ProvidersConfig(AppConfig):
    name = "providers"
    verbose_name = "Providers"

    def ready(self) -> None:
        # Imported once the models are loaded: apps.py itself is imported before them.
        from adrag_site.health import register_probe
        from adrag_site.jobs import warm_up_in_worker
        from providers import embedder, local_readiness, reranker

        register_probe("embedder", embedder.status)
        register_probe("reranker", reranker.status)
        register_probe("local_model", local_readiness.status)
        # A worker loads its models up front, so its first query does not pay for them.
        warm_up_in_worker("embedder", embedder.get_model, queues=("runs", "ingest"))
