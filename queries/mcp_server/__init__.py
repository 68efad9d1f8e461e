"""The portal as a Model Context Protocol server (the official `mcp` SDK, 2.3).

Streamable HTTP at /mcp on the web process (`http.py`, mounted by adrag_site/asgi.py) and stdio
(`manage.py mcp`). The tools (`tools.py`, `ask.py`) call the same selectors and services as the
REST API; `server.py` is the one choke point for scopes, stable error codes and the audit.
Not named `mcp`: that would shadow the SDK.
"""
