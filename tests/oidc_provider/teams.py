"""Change a person's teams at the provider: `python -m tests.oidc_provider.teams NAME TEAM...`."""

import sys

import django

if __name__ == "__main__":
    django.setup()
    from django.contrib.auth.models import Group, User

    user = User.objects.get(username=sys.argv[1])
    user.groups.set(Group.objects.get_or_create(name=team)[0] for team in sys.argv[2:])
