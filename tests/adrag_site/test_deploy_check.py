from __future__ import annotations

import pytest

from tests.support import run_manage


@pytest.mark.slow
@pytest.mark.django_db
def test_check_deploy_passes_with_production_like_settings():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="",
        SECRET_KEY="k8#Jz2!vQ9@pL4$wX7%nR1^tY6&mC3*bH5(dF0)gS2_eU8+aW4=iO7-uP9",
        ALLOWED_HOSTS="adrag.example.com",
        SECURE_SSL_REDIRECT="1",
        SESSION_COOKIE_SECURE="1",
        CSRF_COOKIE_SECURE="1",
        SECURE_HSTS_SECONDS="31536000",
        SECURE_HSTS_INCLUDE_SUBDOMAINS="1",
        SECURE_HSTS_PRELOAD="1",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.slow
@pytest.mark.django_db
def test_check_deploy_flags_a_debug_deployment():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="1",
        SECRET_KEY="k8#Jz2!vQ9@pL4$wX7%nR1^tY6&mC3*bH5(dF0)gS2_eU8+aW4=iO7-uP9",
    )
    assert result.returncode != 0
    assert "DEBUG" in result.stdout + result.stderr
