"""manage.py train_table_parser [--data <WikiTableQuestions folder>] [--out <weights.json>]
[--judge-only]: the ranker, then the judge over the ranker's weights."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from knowledge.tables.judge import JUDGE_PATH
from knowledge.tables.parser import WEIGHTS_PATH, load_weights
from knowledge.tables.training import TEAM_ROWS_PATH, train, train_judge


class Command(BaseCommand):
    help = (
        "Train the offline table parser's ranking model on WikiTableQuestions' training split "
        "(never its test tables), then its judge, and write the weights the table store reads."
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
        parser.add_argument(
            "--judge-out", default=str(JUDGE_PATH), help="Where to write the judge's weights."
        )
        parser.add_argument(
            "--judge-only",
            action="store_true",
            help="Fit only the judge, over the ranker's weights as they are.",
        )
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument(
            "--limit", type=int, help="Train on this many sampled questions (a quick check)."
        )

    def handle(self, *args, data, out, judge_out, judge_only, seed, limit, **options):
        data = Path(data)
        if not (data / "data" / "training.tsv").exists():
            raise CommandError(f"No WikiTableQuestions training split under {data}.")
        if not TEAM_ROWS_PATH.exists():
            raise CommandError(
                f"No team-tables rows at {TEAM_ROWS_PATH}: write them with "
                "bench/team_judge_rows.py (the judge is fitted on them too)."
            )
        if not judge_only:
            report = train(data, Path(out), seed=seed, limit=limit, log=self.stdout.write)
            load_weights.cache_clear()
            self.stdout.write(
                self.style.SUCCESS(
                    f"Wrote {report['features']} weights to {out}: dev "
                    f"{report['dev']['right']:.1%} right ({report['dev']['reachable']:.1%} "
                    f"reachable) in {sum(report['seconds'].values())} s."
                )
            )
        judged = train_judge(data, Path(judge_out), weights=Path(out), log=self.stdout.write)
        held = judged["b (held out)"]
        self.stdout.write(
            self.style.SUCCESS(
                f"Wrote the judge to {judge_out}: on the held-out half, "
                f"{held['from 0.5']['right']} of {held['from 0.5']['answered']} answers from 0.5 "
                f"right, {held['from 0.8']['right']} of {held['from 0.8']['answered']} from 0.8, "
                f"in {judged['seconds']} s."
            )
        )
