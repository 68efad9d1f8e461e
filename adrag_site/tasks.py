"""Site-wide background tasks."""

from __future__ import annotations

import logging

from django.contrib.sessions.models import Session
from django.utils import timezone
from procrastinate.contrib.django import app

from adrag_site.audit import audit_purge

logger = logging.getLogger(__name__)


@app.task(queue="default", name="adrag_site.sessions_clear")
def sessions_clear() -> int:
    """Delete expired login sessions and return how many were removed."""
    deleted, _ = Session.objects.filter(expire_date__lt=timezone.now()).delete()
    logger.info("cleared %d expired sessions", deleted)
    return deleted


@app.periodic(cron="17 * * * *", periodic_id="sessions_clear_hourly")
@app.task(queue="default", name="adrag_site.sessions_clear_periodic")
def sessions_clear_periodic(timestamp: int) -> int:
    """Clear expired sessions once an hour."""
    return sessions_clear()


@app.periodic(cron="41 3 * * *", periodic_id="audit_purge_daily")
@app.task(queue="default", name="adrag_site.audit_purge_periodic")
def audit_purge_periodic(timestamp: int) -> int:
    """Drop audit events past AUDIT_RETENTION_DAYS once a day."""
    deleted = audit_purge()
    logger.info("purged %d audit events", deleted)
    return deleted
