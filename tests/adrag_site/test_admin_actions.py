"""Admin actions that change things need the change permission, not just a staff account."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission

from queries.models import QueryRun

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued_run(user):
    return QueryRun.objects.create(user=user, query="busy", provider="extractive", status="queued")


def cancel_through_admin(client, run) -> None:
    client.post(
        "/admin/queries/queryrun/",
        {"action": "cancel_runs", "_selected_action": [str(run.id)]},
        follow=True,
    )


def test_a_staff_member_who_may_only_view_runs_cannot_cancel_them(client, staff_user, queued_run):
    staff_user.user_permissions.add(Permission.objects.get(codename="view_queryrun"))
    client.force_login(staff_user)
    assert client.get("/admin/queries/queryrun/").status_code == 200
    cancel_through_admin(client, queued_run)
    queued_run.refresh_from_db()
    assert queued_run.status == "queued" and not queued_run.cancel_requested


def test_a_staff_member_who_may_change_runs_cancels_them(client, staff_user, queued_run):
    staff_user.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_queryrun", "change_queryrun"])
    )
    client.force_login(staff_user)
    cancel_through_admin(client, queued_run)
    queued_run.refresh_from_db()
    assert queued_run.status == "cancelled"


def test_document_actions_need_the_change_permission(client, staff_user):
    from knowledge.admin import DocumentAdmin

    for name in ("reindex", "cancel"):
        assert list(getattr(DocumentAdmin, name).allowed_permissions) == ["change"]
