"""manage.py ingest <path> --kb NAME: a folder of files or a BEIR corpus.jsonl."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.ingest.filetypes import SUPPORTED_EXTENSIONS, file_extension
from knowledge.models import KnowledgeBase


def folder_items(folder: Path) -> list[Path]:
    """Return the supported files under a folder, in a stable order."""
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file() and file_extension(path.name) in SUPPORTED_EXTENSIONS
    )


def beir_items(corpus: Path) -> Iterator[TextItem]:
    """Yield one text document per BEIR record: title + " " + text."""
    with corpus.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = json.loads(line)
            text = f"{record.get('title', '')} {record.get('text', '')}".strip()
            yield TextItem(
                file_name=f"{record['_id']}.txt",
                data=text.encode("utf-8"),
                external_id=str(record["_id"]),
            )


def count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


class Command(BaseCommand):
    help = "Ingest a folder of supported files, or a BEIR corpus.jsonl, into a knowledge base."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--kb", required=True, help="Knowledge base name (created if missing).")
        parser.add_argument("--owner", help="Owner's username (default: the first superuser).")
        parser.add_argument("--limit", type=int, help="Ingest at most this many documents.")
        parser.add_argument(
            "--reindex", action="store_true", help="Re-index documents that are already ready."
        )

    def handle(
        self,
        *args,
        path: str,
        kb: str,
        owner: str | None,
        limit: int | None,
        reindex: bool = False,
        **options,
    ):
        source = Path(path).expanduser()
        if not source.exists():
            raise CommandError(f"{source} does not exist")
        user = self._owner(owner)
        knowledge_base, created = KnowledgeBase.objects.get_or_create(owner=user, name=kb)
        if source.is_dir() and (source / "corpus.jsonl").exists():
            source = source / "corpus.jsonl"
        if source.is_file() and source.name.endswith(".jsonl"):
            total = count_lines(source)
            items = beir_items(source)
        else:
            files = folder_items(source) if source.is_dir() else [source]
            total = len(files)
            items = (TextItem(file_name=file.name, data=file.read_bytes()) for file in files)
        if limit:
            total = min(total, limit)
            items = (item for index, item in enumerate(items) if index < limit)
        errors: list[str] = []
        started = time.monotonic()
        with tqdm(total=total, unit="doc", desc=f"ingest → {kb}", file=self.stderr._out) as bar:

            def on_document(document, error):
                if error:
                    errors.append(error)
                bar.update(1)

            summary = documents_ingest_inline(
                kb=knowledge_base, items=items, user=user, on_document=on_document, reindex=reindex
            )
        elapsed = time.monotonic() - started
        rate = summary["chunks"] / elapsed if elapsed else 0.0
        self.stdout.write(
            f"{'Created' if created else 'Updated'} knowledge base {kb!r} (id {knowledge_base.id}): "
            f"{summary['ready']} ready, {summary['skipped']} unchanged, {summary['failed']} failed, "
            f"{summary['chunks']} chunks in {elapsed:.1f}s ({rate:.1f} chunks/s)"
        )
        for error in errors[:20]:
            self.stderr.write(f"  failed: {error}")

    def _owner(self, username: str | None):
        users = get_user_model().objects
        if username:
            user = users.filter(username=username).first()
            if user is None:
                raise CommandError(f"No user named {username!r}")
            return user
        user = users.filter(is_superuser=True).order_by("id").first()
        if user is None:
            raise CommandError("No superuser exists: pass --owner or create one first.")
        return user
