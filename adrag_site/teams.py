"""Teams: Django groups whose members share knowledge bases (a knowledge base's `team`). Staff
make them and add or remove members on the portal's Teams page or through /api/teams; each
change is audited."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction

from adrag_site import audit
from adrag_site.audit import audit_record
from adrag_site.errors import ServiceError

MAX_TEAM_NAME = 150  # Group.name's length


def team_create(*, name: str, actor) -> Group:
    """Make a team; 409 when one has that name already."""
    name = " ".join(name.split())
    if not name:
        raise ServiceError(400, "invalid_request", "A team needs a name.")
    try:
        with transaction.atomic():
            team = Group.objects.create(name=name[:MAX_TEAM_NAME])
    except IntegrityError:
        raise ServiceError(409, "team_exists", f"A team named {name!r} exists already.") from None
    audit_record(audit.TEAM_CREATED, target=team, actor=actor, name=team.name)
    return team


def team_member_add(*, team: Group, username: str, actor):
    """Add a user, by user name, to a team (nothing changes when they are in it already)."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ServiceError(404, "not_found", f"No user is named {username!r}.")
    if not team.user_set.filter(id=user.id).exists():
        team.user_set.add(user)
        audit_record(
            audit.TEAM_MEMBER_ADDED, target=team, actor=actor, team=team.name, member=username
        )
    return user


def team_member_remove(*, team: Group, user_id: int, actor) -> None:
    """Take a user out of a team; 404 when they are not in it."""
    user = team.user_set.filter(id=user_id).first()
    if user is None:
        raise ServiceError(404, "not_found", "That user is not a member of this team.")
    team.user_set.remove(user)
    audit_record(
        audit.TEAM_MEMBER_REMOVED,
        target=team,
        actor=actor,
        team=team.name,
        member=user.get_username(),
    )
