"""How a run's job ends when Procrastinate aborts it: a cancel, or a worker that stops."""

from __future__ import annotations

import json

import pytest

from queries.execution import run_execute
from queries.services import run_create

pytestmark = pytest.mark.django_db(transaction=True)


def _aborted_run(user, *, worker_stopping: bool):
    run = run_create(
        user=user, query="What did Marie Curie discover?", provider_name="extractive",
        model=None, kb_ids=[],
    )  # fmt: skip
    run_execute(run_id=run.id, should_abort=lambda: True, worker_stopping=lambda: worker_stopping)
    run.refresh_from_db()
    events = list(run.events.order_by("seq"))
    return run, [event.type for event in events], json.loads(events[-2].payload)


def test_a_run_whose_worker_stops_ends_interrupted_with_one_terminal_frame(user):
    # Ctrl-C or a deployment aborts the worker's jobs: nobody cancelled the run.
    run, types, error = _aborted_run(user, worker_stopping=True)
    assert run.status == "interrupted" and run.error_code == "interrupted"
    assert types[-2:] == ["error", "stream_end"] and types.count("stream_end") == 1
    assert types.count("error") == 1
    assert error["data"]["code"] == "interrupted"


def test_a_run_whose_job_is_aborted_otherwise_ends_cancelled(user):
    run, types, error = _aborted_run(user, worker_stopping=False)
    assert run.status == "cancelled" and run.error_code == "cancelled"
    assert types[-2:] == ["error", "stream_end"] and types.count("error") == 1
    assert error["data"]["code"] == "cancelled"
