from __future__ import annotations

from django.apps import AppConfig


class QueriesConfig(AppConfig):
    name = "queries"
    verbose_name = "Query runs"
