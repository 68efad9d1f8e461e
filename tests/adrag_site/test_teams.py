"""Teams through /api/teams: staff make one, add and remove members by name, and see its
knowledge bases; every change is audited; nobody else may."""

from __future__ import annotations

import pytest

from adrag_site.models import AuditEvent
from knowledge.services import kb_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(api_client, staff_user):
    from rest_framework.authtoken.models import Token

    api_client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=staff_user).key}")
    return api_client


def test_staff_make_a_team_add_and_remove_a_member_and_see_its_knowledge_bases(
    staff_client, user, other_user
):
    made = staff_client.post("/api/teams", {"name": "  People   Ops "}, format="json")
    assert made.status_code == 201, made.content
    team = made.json()
    assert team["name"] == "People Ops" and team["member_count"] == 0
    again = staff_client.post("/api/teams", {"name": "People Ops"}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "team_exists"

    added = staff_client.post(
        f"/api/teams/{team['id']}/members", {"username": user.username}, format="json"
    )
    assert added.status_code == 200 and [m["username"] for m in added.json()["members"]] == [
        "alice"
    ]
    # The member shares a knowledge base with the team; the team page lists it.
    kb_create(owner=user, name="Handbook", team=user.groups.get(id=team["id"]))
    detail = staff_client.get(f"/api/teams/{team['id']}").json()
    assert [(kb["name"], kb["owner"]) for kb in detail["knowledge_bases"]] == [
        ("Handbook", "alice")
    ]
    assert detail["member_count"] == 1 and detail["knowledge_base_count"] == 1
    unknown = staff_client.post(
        f"/api/teams/{team['id']}/members", {"username": "nobody"}, format="json"
    )
    assert unknown.status_code == 404 and "nobody" in unknown.json()["error"]
    not_in = staff_client.delete(f"/api/teams/{team['id']}/members/{other_user.id}")
    assert not_in.status_code == 404

    removed = staff_client.delete(f"/api/teams/{team['id']}/members/{user.id}")
    assert removed.status_code == 200 and removed.json()["members"] == []
    assert not user.groups.filter(id=team["id"]).exists()

    audited = list(
        AuditEvent.objects.filter(target_id=str(team["id"]))
        .order_by("id")
        .values_list("action", "details")
    )
    assert [action for action, _ in audited] == [
        "team_created", "team_member_added", "team_member_removed"
    ]  # fmt: skip
    assert audited[1][1]["member"] == "alice" and audited[2][1]["team"] == "People Ops"


def test_only_staff_manage_teams(auth_client, client, user):
    for method, path, body in (
        ("get", "/api/teams", None),
        ("post", "/api/teams", {"name": "Mine"}),
        ("get", "/api/teams/1", None),
        ("post", "/api/teams/1/members", {"username": "alice"}),
        ("delete", "/api/teams/1/members/1", None),
    ):
        response = getattr(auth_client, method)(path, body, format="json")
        assert response.status_code == 403, (method, path)
        assert response.json()["code"] == "permission_denied"
    client.force_login(user)
    assert client.get("/teams/").status_code == 403
    assert not AuditEvent.objects.filter(action__startswith="team_").exists()
