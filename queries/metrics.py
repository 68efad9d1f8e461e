"""The portal's figures for /metrics (adrag_site.metrics): runs, stage latencies and ingestion,
read from the database when scraped, and the streams this web process holds open.

Latencies and ingestion throughput cover the runs and documents of the last
METRICS_WINDOW_MINUTES, so they are exported as gauge histograms (OpenMetrics' type for a
distribution over a window): `histogram_quantile(0.95, adrag_stage_duration_seconds_bucket)`
is the 95th percentile of that window, with no `rate()`. A cumulative histogram would have to
rescan every run ever made at each scrape, or live in the workers' memory, where no scraper
reaches it.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import connection
from django.db.models import Count
from django.utils import timezone
from prometheus_client import Gauge
from prometheus_client.metrics_core import GaugeHistogramMetricFamily, GaugeMetricFamily

from adrag_site.metrics import REGISTRY, register_collector, window_seconds
from knowledge.models import Chunk, Document
from queries.models import QueryRun, RunEvent
from queries.pipeline import stages

STAGE_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
RUN_BUCKETS = (0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
INGEST_BUCKETS = (0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0)
# The events that end a stage's attempt; the last of them before the next start counts, so a
# stage that failed and fell back is timed to the end of its fallback.
STAGE_END_EVENTS = (
    stages.STAGE_COMPLETE,
    stages.RETRIEVAL_RESULT,
    stages.STAGE_ERROR,
    stages.STAGE_SKIP,
)

# Per web process, by endpoint: `query` is POST /api/query, `events` GET /api/runs/<id>/events.
OPEN_STREAMS = Gauge(
    "adrag_streams_open",
    "Event streams this web process is sending now, by endpoint.",
    ["endpoint"],
    registry=REGISTRY,
)
for _endpoint in ("query", "events"):
    OPEN_STREAMS.labels(_endpoint)


def _histogram(values: list[float], bounds: tuple[float, ...]) -> tuple[list, float]:
    """Return cumulative (le, count) buckets ending in +Inf, and the sum, for a gauge histogram."""
    buckets = [(str(bound), sum(1 for value in values if value <= bound)) for bound in bounds]
    buckets.append(("+Inf", len(values)))
    return buckets, sum(values)


def _stage_durations(since) -> dict[str, list[float]]:
    """Return each stage attempt's duration (start to its last end event) in runs since `since`.

    A retry runs stages again: each `stage_start` opens an attempt, numbered per run and stage.
    """
    events, runs = RunEvent._meta.db_table, QueryRun._meta.db_table
    marks = ", ".join(["%s"] * (len(STAGE_END_EVENTS) + 1))
    sql = f"""
        WITH marks AS (
            SELECT e.run_id, e.type, e.created_at, e.payload::jsonb -> 'data' ->> 'stage' AS stage,
                   e.seq
            FROM {events} e JOIN {runs} r ON r.id = e.run_id
            WHERE r.created_at >= %s AND e.type IN ({marks})
        ), attempts AS (
            SELECT stage, type, created_at, run_id,
                   count(*) FILTER (WHERE type = %s)
                       OVER (PARTITION BY run_id, stage ORDER BY seq) AS attempt
            FROM marks
        )
        SELECT stage,
               EXTRACT(EPOCH FROM max(created_at) FILTER (WHERE type <> %s)
                                  - min(created_at) FILTER (WHERE type = %s))
        FROM attempts
        WHERE attempt > 0 AND stage IS NOT NULL
        GROUP BY run_id, stage, attempt
        HAVING count(*) FILTER (WHERE type <> %s) > 0
    """
    start = stages.STAGE_START
    params = [since, start, *STAGE_END_EVENTS, start, start, start, start]
    durations: dict[str, list[float]] = {stage: [] for stage in stages.STAGES}
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        for stage, seconds in cursor.fetchall():
            durations.setdefault(stage, []).append(max(float(seconds), 0.0))
    return durations


class RunCollector:
    """Runs by status and provider; stage and run latencies over the window."""

    def collect(self):
        runs = GaugeMetricFamily(
            "adrag_runs",
            "Query runs in the database by status and provider.",
            labels=["status", "provider"],
        )
        counts = (
            QueryRun.objects.order_by()
            .values_list("provider", "status")
            .annotate(count=Count("id"))
        )
        by_provider: dict[str, dict[str, int]] = {}
        for provider, status, count in counts:
            by_provider.setdefault(provider, {})[status] = count
        for provider, statuses in sorted(by_provider.items()):
            for status in QueryRun.Status.values:
                runs.add_metric([status, provider], statuses.get(status, 0))
        yield runs

        since = timezone.now() - timedelta(seconds=window_seconds())
        stage_family = GaugeHistogramMetricFamily(
            "adrag_stage_duration_seconds",
            "Pipeline stage durations (stage_start to its end event) in runs of the window.",
            labels=["stage"],
        )
        for stage, values in _stage_durations(since).items():
            buckets, total = _histogram(values, STAGE_BUCKETS)
            stage_family.add_metric([stage], buckets, total)
        yield stage_family

        run_family = GaugeHistogramMetricFamily(
            "adrag_run_duration_seconds",
            "Durations of the runs of the window that finished, start to end, by provider.",
            labels=["provider"],
        )
        finished = QueryRun.objects.filter(
            created_at__gte=since, started_at__isnull=False, finished_at__isnull=False
        ).values_list("provider", "started_at", "finished_at")
        run_values: dict[str, list[float]] = {}
        for provider, started_at, finished_at in finished:
            run_values.setdefault(provider, []).append((finished_at - started_at).total_seconds())
        for provider, values in sorted(run_values.items()):
            buckets, total = _histogram(values, RUN_BUCKETS)
            run_family.add_metric([provider], buckets, total)
        yield run_family
        yield GaugeMetricFamily(
            "adrag_metrics_window_seconds",
            "The span of recent runs and ingestions the latency and throughput figures cover.",
            value=window_seconds(),
        )


class IngestionCollector:
    """Documents by status, chunks indexed, and what was indexed within the window.

    Read here, beside the runs, so that one module holds the figures the portal exports.
    """

    def collect(self):
        documents = GaugeMetricFamily(
            "adrag_documents", "Documents by ingestion status.", labels=["status"]
        )
        counts = dict(Document.objects.order_by().values_list("status").annotate(count=Count("id")))
        for status in Document.Status.values:
            documents.add_metric([status], counts.get(status, 0))
        yield documents
        yield GaugeMetricFamily(
            "adrag_chunks_indexed",
            "Chunks in the index, searchable by the three stores.",
            value=Chunk.objects.count(),
        )

        since = timezone.now() - timedelta(seconds=window_seconds())
        recent = Document.objects.filter(indexed_at__gte=since).values_list(
            "chunk_count", "started_at", "indexed_at"
        )
        chunks, seconds = 0, []
        for chunk_count, started_at, indexed_at in recent:
            chunks += chunk_count
            if started_at and started_at <= indexed_at:
                seconds.append((indexed_at - started_at).total_seconds())
        yield GaugeMetricFamily(
            "adrag_ingest_recent_documents",
            "Documents indexed within the window (divide by the window for a rate).",
            value=len(recent),
        )
        yield GaugeMetricFamily(
            "adrag_ingest_recent_chunks",
            "Chunks written by the documents indexed within the window.",
            value=chunks,
        )
        family = GaugeHistogramMetricFamily(
            "adrag_ingest_duration_seconds",
            "Time from a worker taking a document to its being indexed, within the window.",
        )
        buckets, total = _histogram(seconds, INGEST_BUCKETS)
        family.add_metric([], buckets, total)
        yield family


def register() -> None:
    """Export the run and ingestion figures (called once per process from QueriesConfig)."""
    register_collector("runs", RunCollector())
    register_collector("ingestion", IngestionCollector())
