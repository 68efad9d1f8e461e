"""Read a /metrics page as a scraper would: samples keyed by name and labels."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    """Return every sample of a Prometheus text page, keyed by (name, {label: value})."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(scraped: dict, name: str, **labels: str) -> float:
    """Return one sample's value; KeyError when the page does not have it."""
    return scraped[(name, frozenset(labels.items()))]
