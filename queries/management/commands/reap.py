"""End runs and ingestions whose worker is gone (what the periodic reaper does, at once)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from knowledge.ingestion import documents_reap
from queries.execution import runs_reap


class Command(BaseCommand):
    help = "Mark runs and ingestions whose worker died as interrupted / failed."

    def handle(self, *args, **options):
        runs = runs_reap()
        documents = documents_reap()
        if runs or documents:
            self.stdout.write(f"ended {runs} run(s) and {documents} ingestion(s) of dead workers")
