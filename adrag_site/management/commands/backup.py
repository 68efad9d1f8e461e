"""`manage.py backup PATH`: the database and the uploaded files, in one tar file."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from adrag_site.backup import BackupError, backup, summary


class Command(BaseCommand):
    help = "Write a consistent backup of the database and the uploaded files to PATH (a tar file)."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)

    def handle(self, *args, path: Path, **options):
        try:
            manifest = backup(path)
        except (BackupError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        counts = summary(manifest["counts"])
        self.stdout.write(
            f"backup written to {path} ({manifest['bytes'] / 1e6:.1f} MB in {manifest['seconds']}s): "
            f"{counts}, {manifest['files']} uploaded files"
        )
