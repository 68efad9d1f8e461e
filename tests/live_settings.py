"""The settings of the processes a test starts (web servers, workers, manage.py commands):
the project's own, with the tests' one-iteration password hasher (tests/hashers.py).
tests/support.py `child_env` names this module."""

from adrag_site.settings import *  # noqa: F403

PASSWORD_HASHERS = ["tests.hashers.FastPBKDF2PasswordHasher"]
