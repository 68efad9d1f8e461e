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
        import sys

        if "procrastinate" in sys.argv and "worker" in sys.argv:
            # A worker loads its models up front, so its first query does not pay for it.
            import threading

            threading.Thread(
                target=embedder.get_model, name="preload-embedder", daemon=True
            ).start()
