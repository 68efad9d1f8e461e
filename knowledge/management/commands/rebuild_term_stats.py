"""manage.py rebuild_term_stats [--kb ID]: count BM25 term statistics again from the postings.

Run once after a rolling deploy that added the statistics, when processes of the previous
version may have written postings without them.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import transaction

from knowledge.index import term_stats_rebuild


class Command(BaseCommand):
    help = "Count BM25 term statistics again from the postings (one KB, or all)."

    def add_arguments(self, parser):
        parser.add_argument("--kb", type=int, help="a knowledge base id (default: all)")

    def handle(self, *args, kb: int | None, **options):
        with transaction.atomic():
            rows = term_stats_rebuild(kb)
        self.stdout.write(f"{rows} term statistics rows")
