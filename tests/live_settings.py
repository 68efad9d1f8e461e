"""The settings of the processes a test starts (web servers, workers, manage.py commands):
the project's own, with the tests' one-iteration password hasher (tests/hashers.py).
tests/support.py `child_env` names this module.

A process that embeds with the tests' small deterministic embedder (tests/embedding.py) loads
no torch: nothing it runs needs it, but spaCy's thinc imports it on the way to offering it as a
backend, about 2.5 CPU-s of each such worker's start here. `import torch` fails in it instead,
as thinc expects where torch is not installed."""

import os
import sys

from adrag_site.settings import *  # noqa: F403

PASSWORD_HASHERS = ["tests.hashers.FastPBKDF2PasswordHasher"]

if os.environ.get("EMBEDDER_PLUGIN", "").startswith("tests.embedding."):
    sys.modules.setdefault("torch", None)
