"""What the site keeps of its own processes: which workers are alive, and for which queues."""

from __future__ import annotations

from django.db import models


class WorkerPresence(models.Model):
    """A long-running Procrastinate worker, refreshed while it lives and removed as it stops.

    Procrastinate's own heartbeat table says that some worker is alive, not which queues it
    takes; /api/health needs to know that each queue (runs, ingest) has one.

    Like Procrastinate's tables, this is the processes' state, not the portal's data: the
    model is unmanaged (its migration makes the table), so that `flush`, and the test runner's
    flush between tests, leave the rows of running workers alone.
    """

    worker = models.CharField(max_length=200, unique=True, help_text="host:pid")
    queues = models.CharField(max_length=300, help_text="comma-separated; empty: every queue")
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        managed = False
        db_table = "adrag_site_workerpresence"
        ordering = ["worker"]
        verbose_name = "worker"

    def __str__(self) -> str:
        return f"{self.worker} ({self.queues or 'every queue'})"

    @property
    def queue_list(self) -> list[str]:
        return [queue for queue in self.queues.split(",") if queue]
