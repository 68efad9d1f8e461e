"""Background jobs of query runs.

A leaf of the import graph: no module of the portal imports it. Procrastinate finds it at
start-up, and queries/services.py queues a run's job by name through adrag_site/jobs.py."""

from __future__ import annotations

from procrastinate.contrib.django import app

from queries.execution import run_execute, runs_reap


@app.task(queue="runs", name="queries.run_query", pass_context=True)
def run_query(context, run_id: str) -> None:
    """Run the pipeline for one query run."""
    run_execute(run_id=run_id, should_abort=context.should_abort)


@app.periodic(cron="* * * * * */10", periodic_id="runs_reap")
@app.task(queue="default", name="queries.runs_reap")
def runs_reap_periodic(timestamp: int) -> int:
    """Every ten seconds, end the runs whose worker died."""
    return runs_reap()
