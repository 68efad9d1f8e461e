"""`manage.py evaluate --set <id|file|conversation:uuid> --kb <id> [--provider NAME]`: run an
evaluation set and
print its metrics, the table the bench prints (queries/evaluation/metrics.table_lines).

The evaluation is the portal's: its runs are ordinary runs, kept with their event logs, and it
shows on /evaluations/. With a live worker on the runs queue the worker runs them (throttled
behind people's questions); with none, or with `--inline`, this command runs them itself.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.http import Http404

from adrag_site import jobs
from adrag_site.errors import ServiceError
from providers.llm.registry import default_provider_name
from queries.evaluation import selectors, services
from queries.evaluation.conversation import evaluation_set_from_conversation
from queries.evaluation.metrics import table_lines
from queries.models import EvaluationSet
from queries.selectors import conversation_get_shared

# `--set conversation:<uuid>`: a set built from a conversation the user may read.
CONVERSATION_PREFIX = "conversation:"


class Command(BaseCommand):
    help = "Run an evaluation set against knowledge bases and print its metrics."

    def add_arguments(self, parser):
        parser.add_argument(
            "--set",
            required=True,
            help="an evaluation set's id, a file, or conversation:<uuid> (needs --user)",
        )
        parser.add_argument("--kb", type=int, action="append", required=True, help="repeatable")
        parser.add_argument("--provider", default=None)
        parser.add_argument("--model", default=None)
        parser.add_argument(
            "--overrides", default="", help='the settings to change, as JSON: {"rerank_top_k": 3}'
        )
        parser.add_argument("--user", default=None, help="who runs it (default: the set's owner)")
        parser.add_argument("--label", default="")
        parser.add_argument("--inline", action="store_true", help="run here even with a worker")

    def handle(self, *args, **options):
        try:
            evaluation_set, user = self._set_and_user(options)
            evaluation = services.evaluation_start(
                user=user,
                evaluation_set=evaluation_set,
                kb_ids=options["kb"],
                provider=(options["provider"] or default_provider_name()).lower(),
                model=options["model"],
                settings_changed=json.loads(options["overrides"]) if options["overrides"] else None,
                label=options["label"],
            )
        except (ServiceError, ValueError, Http404) as error:
            raise CommandError(getattr(error, "message", str(error))) from None
        started = time.monotonic()
        self.stdout.write(f"evaluation #{evaluation.id}: {evaluation.question_count} questions")
        evaluation = self._wait(evaluation, inline=options["inline"])
        for line in table_lines(evaluation.metrics):
            self.stdout.write(line)
        self.stdout.write(
            f"status: {evaluation.status}; wall time {time.monotonic() - started:.1f} s"
        )

    def _set_and_user(self, options):
        users = get_user_model().objects
        user = users.filter(username=options["user"]).first() if options["user"] else None
        if options["user"] and user is None:
            raise CommandError(f"No user {options['user']!r}.")
        if options["set"].startswith(CONVERSATION_PREFIX):
            if user is None:
                raise CommandError("A set from a conversation needs --user.")
            conversation = conversation_get_shared(
                conversation_id=options["set"].removeprefix(CONVERSATION_PREFIX), user=user
            )
            return evaluation_set_from_conversation(user=user, conversation=conversation), user
        path = Path(options["set"])
        if not options["set"].isdigit() and path.is_file():
            if user is None:
                raise CommandError("A set from a file needs --user.")
            created = services.evaluation_set_upload(
                user=user, name=path.name, data=path.read_bytes(), file_name=path.name
            )
            return created, user
        if not options["set"].isdigit():
            raise CommandError(f"{options['set']}: neither a set id nor a file.")
        found = EvaluationSet.objects.filter(id=int(options["set"])).first()
        if found is None:
            raise CommandError(f"No evaluation set {options['set']}.")
        user = user or found.owner
        return selectors.evaluation_set_get_for_user(set_id=found.id, user=user), user

    def _wait(self, evaluation, *, inline: bool):
        def report(current) -> None:
            if current.done_count and current.done_count % 20 == 0:
                self.stdout.write(f"  {current.done_count}/{current.question_count}")

        workers, _ = jobs.workers_seen(window_seconds=settings.WORKER_SEEN_SECONDS)
        if inline or not workers:
            return services.evaluation_run_inline(evaluation_id=evaluation.id, on_progress=report)
        while evaluation.is_active:
            time.sleep(1)
            evaluation.refresh_from_db()
        return evaluation
