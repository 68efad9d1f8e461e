"""PostgreSQL on the embedded server, started on the first connection, not when settings load.

Django's PostgreSQL backend, except that a connection to a database configured with
`EMBEDDED: True` first makes sure the embedded server (pgserver, with pgvector) is running and
takes its socket; the application database is created on first use. So `manage.py check` or
importing settings starts nothing; the first query does.
"""

from __future__ import annotations

from django.conf import settings
from django.db.backends.postgresql import base

from adrag_site import embedded_db


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self):
        if self.settings_dict.get("EMBEDDED") and not self.settings_dict.get("HOST"):
            server = embedded_db.ensure_server(settings.DATA_DIR)
            self.settings_dict.update(HOST=server["HOST"], PORT=server["PORT"])
            # The application's own database; a test database is made by the test runner.
            if self.settings_dict["NAME"] == self.settings_dict.get("EMBEDDED_NAME"):
                embedded_db.ensure_database(self.settings_dict["NAME"])
        return super().get_connection_params()
