"""Prometheus metrics at /metrics, for a scraper holding METRICS_TOKEN or on METRICS_ALLOWED_IPS.

The portal runs as several processes, often on several machines: web processes, run workers and
ingest workers, and the workers serve no HTTP. A counter kept in one process's memory would
show that process's share only. So the business figures (runs, documents, queues, latencies)
are read from PostgreSQL when a scrape comes in, and every web process answers the same: a
scrape of any one of them is the whole picture. Only what belongs to one process lives in its
memory: the streams that web process holds open (queries.metrics).

Apps add their collectors with `register_collector` (from their AppConfig.ready), as they add
health probes; this module reads Procrastinate's queue table, which the site owns.
"""

from __future__ import annotations

import ipaddress
import logging
import secrets

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import GaugeMetricFamily

from adrag_site import jobs
from adrag_site.errors import json_error

logger = logging.getLogger(__name__)

# Not prometheus_client's global registry: only what this module is given is exported, and
# nothing is collected when a collector is registered.
REGISTRY = CollectorRegistry()
_registered: set[str] = set()

QUEUE_STATUSES_ALWAYS_SHOWN = ("todo", "doing")


def register_collector(name: str, collector) -> None:
    """Export a collector (an object with `collect()`) under a unique name, once per process."""
    if name not in _registered:
        REGISTRY.register(collector)
        _registered.add(name)


def window_seconds() -> float:
    """Return the span that latency and throughput figures cover."""
    return settings.METRICS_WINDOW_MINUTES * 60


class QueueCollector:
    """Procrastinate's jobs by queue and status: `todo` is a queue's depth, `doing` its work."""

    def collect(self):
        family = GaugeMetricFamily(
            "adrag_queue_jobs",
            "Procrastinate jobs by queue and status (todo: waiting, doing: being worked on).",
            labels=["queue", "status"],
        )
        counts = {
            (queue, status): 0
            for queue in settings.PROCRASTINATE_WORKER_DEFAULTS["queues"]
            for status in QUEUE_STATUSES_ALWAYS_SHOWN
        }
        for queue, status, count in jobs.queue_depths():
            counts[(queue, status)] = count
        for (queue, status), count in sorted(counts.items()):
            family.add_metric([queue, status], count)
        yield family


register_collector("queues", QueueCollector())


def _address_allowed(address: str, allowed: list[str]) -> bool:
    try:
        client = ipaddress.ip_address(address)
    except ValueError:
        return False
    for entry in allowed:
        try:
            if client in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            logger.warning("METRICS_ALLOWED_IPS: %r is not an address or a network", entry)
    return False


def _bearer_matches(request: HttpRequest, token: str) -> bool:
    scheme, _, presented = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and secrets.compare_digest(
        presented.strip().encode(), token.encode()
    )


@csrf_exempt
def metrics_view(request: HttpRequest) -> HttpResponse:
    """Serve the metrics; 404 while neither METRICS_TOKEN nor METRICS_ALLOWED_IPS is set.

    Any method but GET and HEAD is a JSON 405 (CSRF does not apply: nothing is changed).
    """
    if request.method not in ("GET", "HEAD"):
        response = json_error(405, f"Method {request.method} not allowed.", "method_not_allowed")
        response["Allow"] = "GET, HEAD"
        return response
    token, allowed = settings.METRICS_TOKEN, settings.METRICS_ALLOWED_IPS
    if not token and not allowed:
        raise Http404("Metrics are not enabled.")
    # REMOTE_ADDR only: uvicorn sets it from X-Forwarded-For for trusted proxies alone.
    if allowed and not _address_allowed(request.META.get("REMOTE_ADDR", ""), allowed):
        return HttpResponse(
            "Not allowed from this address.\n", status=403, content_type="text/plain"
        )
    if token and not _bearer_matches(request, token):
        response = HttpResponse(
            "A valid bearer token is required.\n", status=401, content_type="text/plain"
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    encoder, content_type = choose_encoder(request.headers.get("Accept", ""))
    response = HttpResponse(encoder(REGISTRY), content_type=content_type)
    response["Cache-Control"] = "no-store"
    return response
