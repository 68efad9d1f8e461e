"""What the workers report about themselves that the web process cannot see: the local model."""

from __future__ import annotations

from django.db import models


class LocalModelState(models.Model):
    """A run worker's local model: loading, ready or failed, refreshed while the worker lives."""

    LOADING, READY, FAILED = "loading", "ready", "failed"

    worker = models.CharField(max_length=200, unique=True, help_text="host:pid")
    model = models.CharField(max_length=300)
    state = models.CharField(
        max_length=10, choices=[(LOADING, LOADING), (READY, READY), (FAILED, FAILED)]
    )
    seconds = models.FloatField(null=True, blank=True, help_text="time to load and warm up")
    error = models.TextField(blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["worker"]

    def __str__(self) -> str:
        return f"{self.worker}: {self.model} {self.state}"
