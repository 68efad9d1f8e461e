"""The password hasher of the tests and of the processes they start (tests/live_settings.py)."""

from __future__ import annotations

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class FastPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2 at one iteration, for the users tests make (hundreds of them: at the
    default 1,000,000 iterations each costs a quarter to a third of a second of CPU). The live
    servers a test starts hash with it too: on the default hashers, every sign-in there verified
    or re-hashed the password at full strength."""

    iterations = 1
