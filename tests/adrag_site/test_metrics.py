"""The /metrics endpoint: off until configured, a bearer token and an address allow-list, and
Procrastinate's queue depths."""

from __future__ import annotations

import pytest

from knowledge.services import document_upload, kb_create
from tests.metrics_scrape import samples, value

pytestmark = pytest.mark.django_db

TOKEN = "scrape-me-3f9a"


def scrape(client, token: str | None = TOKEN, **extra):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.get("/metrics", headers=headers, **extra)


def test_metrics_answer_404_until_a_token_or_an_allow_list_is_set(client, settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_IPS = "", []
    assert scrape(client).status_code == 404
    assert scrape(client, token=None).status_code == 404


def test_a_scrape_needs_the_bearer_token(client, settings):
    settings.METRICS_TOKEN = TOKEN
    for token in (None, "wrong", TOKEN + "x"):
        response = scrape(client, token=token)
        assert response.status_code == 401, token
        assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
        assert b"adrag_" not in response.content
    response = client.get("/metrics", headers={"Authorization": f"Token {TOKEN}"})
    assert response.status_code == 401
    response = scrape(client)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    assert b"# TYPE adrag_runs gauge" in response.content
    assert client.post("/metrics").status_code == 405


def test_other_methods_are_a_json_405_even_where_csrf_is_enforced(settings):
    from django.test import Client

    settings.METRICS_TOKEN = TOKEN
    strict = Client(enforce_csrf_checks=True)
    for method in ("post", "put", "delete"):
        response = getattr(strict, method)("/metrics")
        assert response.status_code == 405, method
        assert response["Content-Type"] == "application/json"
        assert response.json()["code"] == "method_not_allowed"
        assert response["Allow"] == "GET, HEAD"


def test_the_allow_list_admits_addresses_and_networks_and_both_checks_apply(client, settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_IPS = "", ["10.0.0.0/8", "192.0.2.7"]
    assert scrape(client, token=None, REMOTE_ADDR="127.0.0.1").status_code == 403
    assert scrape(client, token=None, REMOTE_ADDR="10.20.30.40").status_code == 200
    assert scrape(client, token=None, REMOTE_ADDR="192.0.2.7").status_code == 200
    settings.METRICS_TOKEN = TOKEN
    assert scrape(client, token=None, REMOTE_ADDR="10.20.30.40").status_code == 401
    assert scrape(client, REMOTE_ADDR="127.0.0.1").status_code == 403
    assert scrape(client, REMOTE_ADDR="10.20.30.40").status_code == 200


def test_openmetrics_scrapers_get_openmetrics(client, settings):
    settings.METRICS_TOKEN = TOKEN
    response = scrape(client, HTTP_ACCEPT="application/openmetrics-text; version=1.0.0")
    assert response["Content-Type"].startswith("application/openmetrics-text")
    text = response.content.decode()
    assert "# TYPE adrag_stage_duration_seconds gaugehistogram" in text
    assert text.endswith("# EOF\n")


def test_queue_depths_count_procrastinate_jobs_by_queue_and_status(client, settings, user):
    settings.METRICS_TOKEN = TOKEN
    # Counted from the jobs table as it is: other tests of this process may have left jobs.
    before = samples(scrape(client).content.decode())
    kb = kb_create(owner=user, name="Uploads")
    for name, text in (("a.txt", b"First file."), ("b.txt", b"Second file.")):
        document_upload(kb=kb, file_name=name, data=text, user=user)
    after = samples(scrape(client).content.decode())

    def added(queue: str, status: str) -> float:
        return value(after, "adrag_queue_jobs", queue=queue, status=status) - value(
            before, "adrag_queue_jobs", queue=queue, status=status
        )

    assert added("ingest", "todo") == 2
    for queue, status in (("runs", "todo"), ("default", "todo"), ("ingest", "doing")):
        assert added(queue, status) == 0
