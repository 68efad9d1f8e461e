"""ISO dates and date-times as request parameters: one parser for every filter that takes them."""

from __future__ import annotations

from datetime import UTC, date, datetime

from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime


def parse_moment(text: str) -> datetime | date | None:
    """Return a date for an ISO date, an aware UTC datetime for an ISO date-time (naive ones
    are UTC), and None for anything else, impossible dates included.

    Django's parsers return None for what does not look like a date, but raise ValueError for
    what does and is no date: 2025-02-30, month 13, offset +99:00. The date is tried first:
    Python 3.11's fromisoformat (under parse_datetime) reads a bare date as midnight, and a
    date as an upper bound must include that whole day.
    """
    text = text.strip()
    try:
        day = parse_date(text)
        if day is not None:
            return day
        moment = parse_datetime(text)
        if moment is None:
            return None
        if timezone.is_naive(moment):
            moment = timezone.make_aware(moment, UTC)
        # A date near year 1 or 9999 with an offset may not exist in UTC.
        return moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def day_start(day: date) -> datetime:
    """Return midnight UTC at the start of a day."""
    return datetime.combine(day, datetime.min.time(), tzinfo=UTC)
