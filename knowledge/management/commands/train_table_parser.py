"""manage.py train_table_parser [--data <WikiTableQuestions folder>] [--out <weights.json>]."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from knowledge.tables.parser import WEIGHTS_PATH
from knowledge.tables.training import train


class Command(BaseCommand):
    help = (
        "Train the offline table parser's ranking model on WikiTableQuestions' training split "
        "(never its test tables) and write the weights the table store reads."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--data",
            default=str(
                Path(settings.BASE_DIR).parent / "shared" / "eval-data" / "wikitablequestions"
            ),
            help="The WikiTableQuestions 1.0.2 folder (data/training.tsv and csv/).",
        )
        parser.add_argument("--out", default=str(WEIGHTS_PATH), help="Where to write the weights.")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument(
            "--limit", type=int, help="Train on this many sampled questions (a quick check)."
        )

    def handle(self, *args, data, out, seed, limit, **options):
        data = Path(data)
        if not (data / "data" / "training.tsv").exists():
            raise CommandError(f"No WikiTableQuestions training split under {data}.")
        report = train(data, Path(out), seed=seed, limit=limit, log=self.stdout.write)
        self.stdout.write(
            self.style.SUCCESS(
                f"Wrote {report['features']} weights to {out}: dev {report['dev']['right']:.1%} "
                f"right ({report['dev']['reachable']:.1%} reachable) in "
                f"{sum(report['seconds'].values())} s."
            )
        )
