"""Prepare the test provider's database: `python -m tests.oidc_provider.prepare CONFIG.json`.

The JSON names the client (id, secret, redirect URI) and the people with their teams.
"""

import json
import sys

import django


def main(path: str) -> None:
    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from oauth2_provider.models import Application

    config = json.loads(open(path).read())
    call_command("migrate", verbosity=0)
    for person in config["people"]:
        user = User.objects.create_user(
            person["username"], person["email"], person["password"], first_name=person["name"]
        )
        user.groups.set(Group.objects.get_or_create(name=team)[0] for team in person["teams"])
    client = config["client"]
    Application.objects.create(
        name="adRAG portal",
        client_id=client["id"],
        client_secret=client["secret"],
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=client["redirect_uri"],
        algorithm=Application.RS256_ALGORITHM,
        skip_authorization=True,
    )


if __name__ == "__main__":
    main(sys.argv[1])
