#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys

# What a command run against a data folder the portal never migrated says, instead of a
# traceback ending in `relation "auth_user" does not exist`.
NO_DATABASE_HINT = """
The database of {where} holds no portal tables: {error}
If the portal runs with another data folder, run this command with the same ADRAG_DATA_DIR (or
DATABASE_URL) as the portal; `runportal` prints its commands with it. To set up this one, run
`manage.py migrate` (or start the portal with `manage.py runportal`).
"""


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "adrag_site.settings")
    from django.core.management import execute_from_command_line
    from django.db.utils import ProgrammingError

    try:
        execute_from_command_line(sys.argv)
    except ProgrammingError as exc:
        if "does not exist" not in str(exc):
            raise
        from django.conf import settings

        where = (
            "DATABASE_URL"
            if os.environ.get("DATABASE_URL")
            else f"the data folder {settings.DATA_DIR}"
        )
        first_line = str(exc).strip().splitlines()[0]
        sys.stderr.write(NO_DATABASE_HINT.format(where=where, error=first_line))
        sys.exit(1)


if __name__ == "__main__":
    main()
