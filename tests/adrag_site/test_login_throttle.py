"""Login throttling: after LOGIN_FAILURE_LIMIT failures for one username from one address, the
portal's and the admin's login forms answer 429 with a page saying when to retry."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.support import run_manage

pytestmark = pytest.mark.django_db

PORTAL_LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"
LIMIT = 5  # the default LOGIN_FAILURE_LIMIT


def sign_in(client: Client, password: str, url: str = PORTAL_LOGIN, username: str = "alice"):
    return client.post(url, {"username": username, "password": password})


def fail(client: Client, times: int, url: str = PORTAL_LOGIN, username: str = "alice"):
    return [sign_in(client, "wrong-password", url, username) for _ in range(times)]


def assert_locked_out(response) -> int:
    assert response.status_code == 429
    assert b"Too many sign-in attempts" in response.content
    assert b'id="retry-at"' in response.content
    retry_after = int(response["Retry-After"])
    assert 14 * 60 < retry_after <= 15 * 60
    return retry_after


def test_wrong_passwords_below_the_limit_just_show_the_form_again(client, user):
    for response in fail(client, LIMIT - 1):
        assert response.status_code == 200
        assert b"didn't match" in response.content
    assert sign_in(client, "alice-pass-123").status_code == 302


def test_the_fifth_failure_locks_the_username_out_even_with_the_right_password(client, user):
    responses = fail(client, LIMIT)
    assert [r.status_code for r in responses[:-1]] == [200] * (LIMIT - 1)
    assert_locked_out(responses[-1])
    locked = sign_in(client, "alice-pass-123")
    assert_locked_out(locked)
    assert "_auth_user_id" not in client.session
    assert b"15 minutes" in locked.content


def test_the_lock_is_per_username_and_address(client, user, other_user):
    fail(client, LIMIT)
    assert sign_in(client, "bob-pass-123", username="bob").status_code == 302
    elsewhere = Client(REMOTE_ADDR="10.0.0.7")
    assert sign_in(elsewhere, "alice-pass-123").status_code == 302


def test_sign_in_works_again_after_the_cool_off(client, user):
    from axes.models import AccessAttempt

    fail(client, LIMIT)
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert sign_in(client, "alice-pass-123").status_code == 302


def test_a_successful_sign_in_resets_the_count(client, user):
    fail(client, LIMIT - 1)
    assert sign_in(client, "alice-pass-123").status_code == 302
    client.post("/accounts/logout/")
    assert all(response.status_code == 200 for response in fail(client, LIMIT - 1))


def test_the_admin_login_is_throttled_too(client, staff_user):
    responses = fail(client, LIMIT, url=ADMIN_LOGIN, username="carol")
    assert [r.status_code for r in responses[:-1]] == [200] * (LIMIT - 1)
    assert_locked_out(responses[-1])
    assert_locked_out(sign_in(client, "carol-pass-123", url=ADMIN_LOGIN, username="carol"))


@pytest.mark.slow
def test_the_limit_and_cool_off_come_from_the_environment():
    shown = run_manage(
        "shell",
        "-c",
        "from django.conf import settings; "
        "print(settings.AXES_FAILURE_LIMIT, settings.AXES_COOLOFF_TIME.total_seconds())",
        LOGIN_FAILURE_LIMIT="3",
        LOGIN_COOLOFF_MINUTES="2",
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip().splitlines()[-1].split() == ["3", "120.0"]
