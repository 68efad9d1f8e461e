"""The Teams page (staff, real browser): make a team, add a member by name, see the knowledge
bases shared with it, remove the member; each change audited."""

from __future__ import annotations

import pytest

from adrag_site.models import AuditEvent
from knowledge.services import kb_create
from tests.portal.conftest import screenshot

pytestmark = pytest.mark.slow


def test_staff_make_a_team_and_manage_its_members(portal, new_page, django_user_model):
    from django.contrib.auth.models import Group

    django_user_model.objects.create_user("carol", "c@example.com", "carol-pass-123", is_staff=True)
    dana = django_user_model.objects.create_user("dana", "d@example.com", "dana-pass-123")
    page = new_page()
    portal.sign_in(page, "carol")
    page.get_by_role("link", name="Teams").click()
    page.wait_for_selector("#team-list li:text('No teams yet.')")

    page.fill("#team-name", "Harbour crew")
    page.get_by_role("button", name="Make team").click()
    page.wait_for_selector("#team-title:text('Harbour crew')")
    page.fill("#member-name", "dana")
    page.get_by_role("button", name="Add member").click()
    page.wait_for_selector("#member-rows tr[data-username='dana']")
    page.wait_for_selector("#team-list .team-item:has-text('1 member')")
    team = Group.objects.get(name="Harbour crew")
    assert dana.groups.filter(id=team.id).exists()

    # Dana shares a knowledge base with the team: the page lists it.
    kb_create(owner=dana, name="Mooring rules", team=team)
    page.reload()
    page.click(f"#team-list .team-item[data-team-id='{team.id}']")
    page.wait_for_selector("#team-kbs li:has-text('Mooring rules')")
    assert "owned by dana" in page.inner_text("#team-kbs")
    screenshot(page, "teams")

    page.on("dialog", lambda dialog: dialog.accept())
    page.locator("#member-rows tr[data-username='dana']").get_by_role(
        "button", name="Remove"
    ).click()
    page.wait_for_selector("#member-rows td:text('No members yet.')")
    assert not dana.groups.filter(id=team.id).exists()
    assert list(
        AuditEvent.objects.filter(target_id=str(team.id))
        .order_by("id")
        .values_list("action", flat=True)
    ) == ["team_created", "team_member_added", "team_member_removed"]
