"""manage.py rebuild_tables [--kb ID]: build the tables kept as data again from the row chunks.

Run after an upgrade that reads tables better (a totals row found by its sums, a column type),
so documents ingested before it are computed on as new ones are; nothing is embedded again.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from knowledge.index import tables_rebuild


class Command(BaseCommand):
    help = "Build the tables kept as data again from the documents' row chunks (one KB, or all)."

    def add_arguments(self, parser):
        parser.add_argument("--kb", type=int, help="a knowledge base id (default: all)")

    def handle(self, *args, kb: int | None, **options):
        documents, tables = tables_rebuild(kb)
        self.stdout.write(f"{tables} tables of {documents} documents built again")
