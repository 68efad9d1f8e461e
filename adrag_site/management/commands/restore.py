"""`manage.py restore PATH`: load a backup into a fresh database and media folder."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from adrag_site.backup import BackupError, restore, summary


class Command(BaseCommand):
    help = (
        "Restore a backup made by `manage.py backup` into the configured database (which must be "
        "empty, unless --replace) and the media folder. Stop the portal first."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)
        parser.add_argument(
            "--replace",
            action="store_true",
            help="empty the database and the media folder first: everything in them is replaced",
        )

    def handle(self, *args, path: Path, replace: bool, **options):
        try:
            manifest = restore(path, replace=replace)
        except (BackupError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        counts = summary(manifest["counts"])
        self.stdout.write(
            f"restored {path} (made {manifest['created']}) in {manifest['seconds']}s: {counts}, "
            f"{manifest['restored_files']} uploaded files"
        )
