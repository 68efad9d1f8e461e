"""Scoped API tokens: their keys, the authentication that reads them, and what each scope allows.

A key is `adrag_` and 43 URL-safe characters, sent as `Authorization: Token <key>` like the
all-powerful tokens of `manage.py drf_create_token` (those still work, with the `manage` scope).
Scopes nest: `read` may use every safe method and search (POST /api/search); `ask` may also
ask, re-run, stop and rate runs; `manage` may do everything the user may. `ApiAuthenticationMiddleware` enforces the scope on
every /api/ path, the async streaming views included.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import timedelta

from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from adrag_site.audit import TOKEN_USED, audit_record
from adrag_site.models import ApiToken

KEY_PREFIX = "adrag_"
READ, ASK, MANAGE = ApiToken.Scope.READ, ApiToken.Scope.ASK, ApiToken.Scope.MANAGE
LEVELS = {READ: 0, ASK: 1, MANAGE: 2}
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
# Writes an `ask` token may make: asking, and what a person does with their runs.
ASK_WRITES = (
    re.compile(r"^/api/query/?$"),
    re.compile(r"^/api/runs/[^/]+/(rerun|cancel|feedback)/?$"),
)
# POSTs that only read: a search sends its query as a body, as the MCP `search` tool does.
READ_POSTS = (re.compile(r"^/api/search/?$"),)
# Token management needs `manage`, reading the list included.
MANAGE_ONLY = re.compile(r"^/api/tokens(/|$)")
# A token's last use is written at most this often.
LAST_USED_EVERY = timedelta(minutes=1)


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def token_create(
    *, user, name: str, scope: str, expires_in_days: int | None
) -> tuple[ApiToken, str]:
    """Make a token; return it and its key (shown once, never stored)."""
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name.strip(),
        scope=scope,
        prefix=key[: len(KEY_PREFIX) + 6],
        key_hash=key_hash(key),
        expires_at=timezone.now() + timedelta(days=expires_in_days) if expires_in_days else None,
    )
    return token, key


# Where ApiAuthenticationMiddleware leaves (user, token) on the request it authenticated.
TOKEN_RESULT = "_adrag_token_result"


def required_scope(method: str, path: str) -> str:
    """Return the least scope a request needs."""
    if MANAGE_ONLY.match(path):
        return MANAGE
    if method.upper() in SAFE_METHODS:
        return READ
    if method.upper() == "POST" and any(pattern.match(path) for pattern in READ_POSTS):
        return READ
    if any(pattern.match(path) for pattern in ASK_WRITES):
        return ASK
    return MANAGE


def scope_of(auth) -> str:
    """Return the scope of what authenticated a request (a legacy token: `manage`)."""
    return auth.scope if isinstance(auth, ApiToken) else MANAGE


def allows(auth, method: str, path: str) -> bool:
    return LEVELS[scope_of(auth)] >= LEVELS[required_scope(method, path)]


class ScopedTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`: a scoped key (adrag_…), else DRF's own token."""

    def authenticate(self, request):
        # ApiAuthenticationMiddleware authenticated this request's token already (to bind its
        # scope): the view reads that result instead of looking the token up a second time.
        held = getattr(getattr(request, "_request", request), TOKEN_RESULT, None)
        if held is not None:
            return held
        return super().authenticate(request)

    def authenticate_credentials(self, key):
        if not key.startswith(KEY_PREFIX):
            user, token = super().authenticate_credentials(key)
            _audit_plain_token_use(user, key)
            return user, token
        token = ApiToken.objects.select_related("user").filter(key_hash=key_hash(key)).first()
        now = timezone.now()
        if token is None or (token.expires_at is not None and token.expires_at <= now):
            raise exceptions.AuthenticationFailed("Invalid or expired token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
            # Written (and audited) at most once a minute per token, not on every request.
            if ApiToken.objects.filter(id=token.id, last_used_at=token.last_used_at).update(
                last_used_at=now
            ):
                audit_record(TOKEN_USED, target=token, actor=token.user, name=token.name)
            token.last_used_at = now
        return token.user, token


def _audit_plain_token_use(user, key: str) -> None:
    """Record the use of a DRF token (`drf_create_token`) as `token_used`, at most once a minute
    per token and process (such a token has no last-used time to compare). Its key is its
    primary key, so the event names it by a hash, never by the key."""
    from django.core.cache import cache

    digest = key_hash(key)
    if cache.add(f"token-used:{digest}", True, timeout=int(LAST_USED_EVERY.total_seconds())):
        audit_record(
            TOKEN_USED,
            target_type="token",
            target_id=digest[:16],
            actor=user,
            kind="drf",
        )
