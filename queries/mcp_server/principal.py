"""Who calls a tool: the portal's scoped API tokens, checked through the SDK's token verifier.

Over HTTP the SDK's bearer middleware calls `PortalTokenVerifier` on every request (no cache:
a revoked token stops at once) and keeps the result in a context variable; over stdio the
command sets one process-wide principal. Scopes nest as on the REST API: `read` lists, searches
and reads; `ask` may also ask; `manage` may do everything.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from rest_framework import exceptions

from adrag_site.models import ApiToken
from adrag_site.tokens import LEVELS, ScopedTokenAuthentication, key_hash, scope_of
from queries.mcp_server.db import db

logger = logging.getLogger(__name__)


class PortalAccessToken(AccessToken):
    """The SDK's access token with the portal's user and token behind it."""

    user_id: int
    scope: str
    token_kind: str  # "scoped" (adrag_…) or "drf" (manage.py drf_create_token)
    token_ref: str  # the token's id, or a hash of a DRF key: never the key


@dataclass(frozen=True)
class Principal:
    """The caller of a tool: a user, through one token with one scope."""

    user_id: int
    scope: str
    token_kind: str
    token_ref: str
    transport: str

    def allows(self, needed: str) -> bool:
        return LEVELS[self.scope] >= LEVELS[needed]


def nested_scopes(scope: str) -> list[str]:
    """Return the scopes a token's scope includes (`ask`: read and ask)."""
    return [name for name, level in LEVELS.items() if level <= LEVELS[scope]]


def authenticate_key(key: str) -> PortalAccessToken | None:
    """Return the access token for an API key, or None when it is unknown, expired or its user
    is inactive (the REST API's own check: last use and the `token_used` audit included)."""
    try:
        user, token = ScopedTokenAuthentication().authenticate_credentials(key)
    except exceptions.AuthenticationFailed:
        return None
    scope = scope_of(token)
    scoped = isinstance(token, ApiToken)
    return PortalAccessToken(
        token=key,
        client_id=f"token:{token.prefix if scoped else key_hash(key)[:16]}",
        scopes=nested_scopes(scope),
        expires_at=int(token.expires_at.timestamp()) if scoped and token.expires_at else None,
        subject=str(user.pk),
        user_id=user.pk,
        scope=scope,
        token_kind="scoped" if scoped else "drf",
        token_ref=str(token.pk) if scoped else key_hash(key)[:16],
    )


class PortalTokenVerifier:
    """The SDK's TokenVerifier over the portal's API tokens. It never raises: an exception here
    would be Starlette's plain 500, so a database error refuses the request (401) and is logged."""

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            return await db(authenticate_key, token)
        except Exception:  # noqa: BLE001 - refuse, never crash the transport
            logger.exception("MCP token verification failed")
            return None


_stdio_principal: Principal | None = None


def set_stdio_principal(access: PortalAccessToken) -> None:
    """Make `access` the caller of every tool in this process (`manage.py mcp`)."""
    global _stdio_principal
    _stdio_principal = principal_of(access, transport="stdio")


def principal_of(access: PortalAccessToken, transport: str) -> Principal:
    return Principal(
        user_id=access.user_id,
        scope=access.scope,
        token_kind=access.token_kind,
        token_ref=access.token_ref,
        transport=transport,
    )


def current_principal() -> Principal | None:
    """Return the caller of the tool being run: the HTTP request's token, else stdio's."""
    access = get_access_token()
    if isinstance(access, PortalAccessToken):
        return principal_of(access, transport="http")
    return _stdio_principal
