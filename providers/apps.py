from __future__ import annotations

from django.apps import AppConfig


class ProvidersConfig(AppConfig):
    name = "providers"
    verbose_name = "Providers"

    def ready(self) -> None:
        from adrag_site.health import register_probe
        from providers import embedder, reranker

        register_probe("embedder", embedder.status)
        register_probe("reranker", reranker.status)
