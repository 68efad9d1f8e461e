"""Background jobs of the knowledge app."""

from __future__ import annotations

from procrastinate.contrib.django import app

from knowledge.ingestion import document_ingest_run, documents_reap


@app.task(queue="ingest", name="knowledge.ingest_document", pass_context=True)
def ingest_document(context, document_id: int) -> None:
    """Ingest one stored document into the three stores."""
    document_ingest_run(document_id=document_id, should_abort=context.should_abort)


@app.periodic(cron="* * * * * */10", periodic_id="documents_reap")
@app.task(queue="default", name="knowledge.documents_reap")
def documents_reap_periodic(timestamp: int) -> int:
    """Every ten seconds, fail the ingestions whose worker died."""
    return documents_reap()
