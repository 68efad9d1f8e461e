"""Background jobs of query runs.

A leaf of the import graph: no module of the portal imports it. Procrastinate finds it at
start-up, and queries/services.py queues a run's job by name through adrag_site/jobs.py."""

from __future__ import annotations

from procrastinate.contrib.django import app

from adrag_site import jobs
from queries.evaluation.services import evaluation_advance, evaluations_advance_active
from queries.execution import run_execute, runs_reap


@app.task(queue="runs", name="queries.run_query", pass_context=True)
def run_query(context, run_id: str) -> None:
    """Run the pipeline for one query run; an evaluation's run then queues the next."""
    run = run_execute(
        run_id=run_id,
        should_abort=context.should_abort,
        worker_stopping=jobs.worker_stopping(context),
    )
    if run is not None and run.evaluation_id is not None:
        evaluation_advance(evaluation_id=run.evaluation_id)


@app.periodic(cron="* * * * * */10", periodic_id="runs_reap")
@app.task(queue="default", name="queries.runs_reap")
def runs_reap_periodic(timestamp: int) -> int:
    """Every ten seconds, end the runs whose worker died."""
    return runs_reap()


@app.periodic(cron="* * * * * */10", periodic_id="evaluations_advance")
@app.task(queue="default", name="queries.evaluations_advance")
def evaluations_advance_periodic(timestamp: int) -> int:
    """Every ten seconds, move on the evaluations whose runs ended without telling them (a run
    reaped, or cancelled on its own page)."""
    return evaluations_advance_active()
