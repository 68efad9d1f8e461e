"""Django settings: every value comes from the environment, with safe defaults.

One module per concern; this package is what DJANGO_SETTINGS_MODULE names (`adrag_site.settings`).
docs/configuration.md lists every setting, and tests/test_readme.py holds it against these
modules. Reading the settings starts nothing: no database, no model, no environment change (the
site app sets OMP_WAIT_POLICY when it is ready).
"""

from adrag_site.settings.access import *  # noqa: F403
from adrag_site.settings.answering import *  # noqa: F403
from adrag_site.settings.ingestion import *  # noqa: F403
from adrag_site.settings.site import *  # noqa: F403
