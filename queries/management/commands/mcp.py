"""`manage.py mcp`: the portal's MCP server over stdio, for a client that starts it as a command.

The key (`--token`, or ADRAG_MCP_TOKEN) is checked once at start, as the web server checks a
bearer token: an unknown, expired or revoked key exits 2. Every tool call then acts as its user,
within its scope, and is audited with `transport: stdio`.
"""

from __future__ import annotations

import os
import sys

import anyio
from django.core.management.base import BaseCommand

from queries.mcp_server.principal import authenticate_key, set_stdio_principal
from queries.mcp_server.server import build_server


class Command(BaseCommand):
    help = "Serve the MCP server over stdio, as the user of an API token."

    def add_arguments(self, parser):
        parser.add_argument("--token", help="an API key (default: $ADRAG_MCP_TOKEN)")

    def handle(self, *args, **options):
        key = options["token"] or os.environ.get("ADRAG_MCP_TOKEN", "")
        access = authenticate_key(key) if key else None
        if access is None:
            # stdout is the protocol's: the refusal goes to stderr.
            sys.stderr.write("manage.py mcp: no valid API token (--token or ADRAG_MCP_TOKEN)\n")
            sys.exit(2)
        set_stdio_principal(access)
        anyio.run(build_server().run_stdio_async)
