"""Per-user run limits answer 429 JSON before any stream opens."""

from __future__ import annotations

import pytest

from queries.models import QueryRun

pytestmark = pytest.mark.django_db(transaction=True)


def test_too_many_concurrent_runs_is_429(auth_client, user, settings):
    settings.RUNS_MAX_CONCURRENT_PER_USER = 1
    QueryRun.objects.create(user=user, query="busy", provider="extractive", status="running")
    response = auth_client.post("/api/query", {"query": "another"}, format="json")
    assert response.status_code == 429
    assert response.json()["code"] == "rate_limited" and int(response["Retry-After"]) >= 1
    assert QueryRun.objects.count() == 1


def test_too_many_runs_in_an_hour_is_429(auth_client, user, settings):
    settings.RUNS_PER_HOUR_PER_USER = 2
    for n in range(2):
        QueryRun.objects.create(user=user, query=f"q{n}", provider="extractive", status="succeeded")
    response = auth_client.post("/api/query", {"query": "third"}, format="json")
    assert response.status_code == 429 and "last hour" in response.json()["error"]


def test_session_users_need_csrf_on_query(user):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post("/api/query", {"query": "x"}, content_type="application/json")
    assert response.status_code == 403 and response.json()["code"] == "csrf_failed"


@pytest.mark.slow
def test_parallel_queries_from_one_user_are_accepted_exactly_up_to_the_limit(stack, user):
    from concurrent.futures import ThreadPoolExecutor

    import requests
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=user).key
    stack.env["RUNS_MAX_CONCURRENT_PER_USER"] = "3"
    url = stack.start_web()  # no worker: accepted runs stay queued, so they stay counted

    def ask(n: int) -> int:
        response = requests.post(
            url + "/api/query",
            json={"query": f"question {n}", "provider": "extractive"},
            headers={"Authorization": f"Token {token}"},
            stream=True,
            timeout=30,
        )
        response.close()
        return response.status_code

    with ThreadPoolExecutor(max_workers=30) as pool:
        statuses = list(pool.map(ask, range(30)))
    print(f"\n30 parallel queries: {statuses.count(200)} accepted, {statuses.count(429)} refused")
    assert statuses.count(200) == 3 and statuses.count(429) == 27
    assert QueryRun.objects.filter(user=user).count() == 3
