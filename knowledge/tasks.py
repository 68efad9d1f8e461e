"""Background jobs of the knowledge app: each task calls the code that does the work.

A leaf of the import graph: no module of the portal imports it. Procrastinate finds it at
start-up, and the services queue its tasks by name through adrag_site/jobs.py."""

from __future__ import annotations

from procrastinate.contrib.django import app

from adrag_site import jobs
from knowledge.ingestion import document_ingest_run, documents_reap
from knowledge.models import WebSource
from knowledge.term_blocks import blocks_maintain
from knowledge.vector_index import indexes_maintain
from knowledge.web_sources import web_source_queue, web_source_sync, web_sources_due


@app.task(queue="ingest", name="knowledge.ingest_document", pass_context=True)
def ingest_document(context, document_id: int) -> None:
    """Ingest one stored document into the three stores."""
    document_ingest_run(
        document_id=document_id,
        should_abort=context.should_abort,
        worker_stopping=jobs.worker_stopping(context),
    )


@app.periodic(cron="* * * * * */10", periodic_id="documents_reap")
@app.task(queue="default", name="knowledge.documents_reap")
def documents_reap_periodic(timestamp: int) -> int:
    """Every ten seconds, fail the ingestions whose worker died."""
    return documents_reap()


@app.task(queue="ingest", name="knowledge.sync_web_source")
def sync_web_source(source_id: int) -> None:
    """Crawl one web source and bring its documents in line with its pages."""
    web_source_sync(source_id=source_id)


@app.periodic(cron="* * * * *", periodic_id="web_sources_due")
@app.task(queue="default", name="knowledge.web_sources_due")
def web_sources_due_periodic(timestamp: int) -> int:
    """Every minute, queue the syncs of the web sources that are due."""
    due = web_sources_due()
    for source_id in due:
        web_source_queue(source=WebSource(id=source_id))
    return len(due)


@app.periodic(cron="* * * * *", periodic_id="vector_indexes_build")
@app.task(queue="ingest", name="knowledge.vector_indexes_build")
def vector_indexes_build_periodic(timestamp: int) -> int:
    """Every minute, build the HNSW index of each KB that has grown large enough for one,
    and drop those of deleted KBs."""
    return len(indexes_maintain()["built"])


@app.periodic(cron="* * * * *", periodic_id="term_blocks_build")
@app.task(queue="ingest", name="knowledge.term_blocks_build")
def term_blocks_build_periodic(timestamp: int) -> int:
    """Every minute, copy the postings of each KB grown large enough into term blocks, copy
    again those that changed too much since, and drop those of KBs that shrank."""
    return len(blocks_maintain()["built"])
