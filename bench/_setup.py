"""Shared set-up for benchmarks: Django on a dedicated database of the embedded server.

A benchmark imports the portal's modules inside its functions, after `setup()`: importing
them needs Django configured (settings, the app registry), which `setup()` does."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# This checkout's modules, not those the virtual environment's editable install points at (the
# main checkout, when a benchmark runs from a git worktree): a benchmark imports some before
# `setup()`, and the first import decides which checkout every later one reads.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
EVAL_DATA = Path(os.environ.get("ADRAG_EVAL_DATA", ROOT.parent / "shared" / "eval-data"))


def setup(db_name: str = "adrag_bench") -> None:
    """Configure Django against a benchmark database and bring its schema up to date."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "adrag_site.settings")
    os.environ.setdefault("ADRAG_DB_NAME", db_name)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def bench_user():
    """Return the benchmark's owner account."""
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(
        username="bench", defaults={"is_superuser": True, "is_staff": True}
    )
    return user
