"""The audit trail: one row per security-relevant act, with who, what, when, from where and the
request id.

Recorded: sign-ins and failed sign-ins, sign-outs, token creation, use (at most once a minute
per token) and revocation, uploads, deletions (knowledge bases, documents, conversations),
sharing changes, exports, re-runs and MCP tool calls. The request in hand is the middleware's
(a context variable), so services record without being passed it. A failure to record is
logged and never fails the act it records.
"""

from __future__ import annotations

import contextvars
import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import signals
from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone

from adrag_site.models import AuditEvent

logger = logging.getLogger(__name__)

current_request: contextvars.ContextVar = contextvars.ContextVar("adrag_request", default=None)

SIGN_IN = "sign_in"
SIGN_IN_FAILED = "sign_in_failed"
SIGN_OUT = "sign_out"
TOKEN_CREATED = "token_created"
TOKEN_USED = "token_used"
TOKEN_REVOKED = "token_revoked"
UPLOAD = "upload"
KB_DELETED = "knowledge_base_deleted"
KB_CLEARED = "knowledge_base_cleared"
KB_SHARED = "sharing_changed"
DOCUMENT_DELETED = "document_deleted"
DOCUMENT_DOWNLOADED = "document_downloaded"
CONVERSATION_DELETED = "conversation_deleted"
EXPORT = "export"
CONVERSATION_SHARED = "conversation_shared"
RERUN = "rerun"
TEAM_CREATED = "team_created"
TEAM_MEMBER_ADDED = "team_member_added"
TEAM_MEMBER_REMOVED = "team_member_removed"
MCP_TOOL_CALL = "mcp_tool_call"
EVALUATION_SET_DELETED = "evaluation_set_deleted"
ACTIONS = (
    SIGN_IN, SIGN_IN_FAILED, SIGN_OUT, TOKEN_CREATED, TOKEN_USED, TOKEN_REVOKED, UPLOAD,
    KB_DELETED, KB_CLEARED, KB_SHARED, DOCUMENT_DELETED, CONVERSATION_DELETED,
    CONVERSATION_SHARED, EXPORT, RERUN, DOCUMENT_DOWNLOADED, TEAM_CREATED, TEAM_MEMBER_ADDED,
    TEAM_MEMBER_REMOVED, MCP_TOOL_CALL, EVALUATION_SET_DELETED,
)  # fmt: skip


def _client_ip(request) -> str | None:
    return (request.META.get("REMOTE_ADDR") or None) if request is not None else None


def audit_record(
    action: str,
    *,
    target: Any = None,
    target_type: str = "",
    target_id: Any = "",
    actor=None,
    actor_name: str = "",
    request=None,
    ip: str | None = None,
    request_id: str = "",
    **details: Any,
) -> None:
    """Record one act. The actor and where it came from are the current request's unless given
    (`ip` and `request_id` for an act outside Django's request cycle, such as an MCP call)."""
    request = request if request is not None else current_request.get()
    if actor is None and request is not None:
        user = getattr(request, "user", None)
        actor = user if user is not None and user.is_authenticated else None
    if target is not None:
        target_type = target_type or target._meta.model_name
        target_id = target_id or target.pk
    try:
        # A savepoint: a failure to record never breaks the caller's transaction.
        with transaction.atomic():
            AuditEvent.objects.create(
                actor=actor,
                actor_name=actor_name or (actor.get_username() if actor is not None else ""),
                action=action,
                target_type=target_type,
                target_id=str(target_id or ""),
                ip=ip or _client_ip(request),
                request_id=(request_id or getattr(request, "request_id", "") or "")[:128],
                details=details,
            )
    except Exception:  # noqa: BLE001 - the act itself must not fail for its record
        logger.exception("could not record the audit event %s", action)


def audit_purge() -> int:
    """Delete audit events older than AUDIT_RETENTION_DAYS; return how many."""
    cutoff = timezone.now() - timedelta(days=settings.AUDIT_RETENTION_DAYS)
    deleted, _ = AuditEvent.objects.filter(at__lt=cutoff).delete()
    return deleted


@receiver(signals.user_logged_in)
def _signed_in(sender, request, user, **kwargs) -> None:
    # How: with a password, or through the single sign-on provider (adrag_site/sso.py).
    via = "sso" if getattr(user, "backend", "").endswith(".SsoBackend") else "password"
    audit_record(SIGN_IN, actor=user, request=request, via=via)


@receiver(signals.user_logged_out)
def _signed_out(sender, request, user, **kwargs) -> None:
    if user is not None:
        audit_record(SIGN_OUT, actor=user, request=request)


@receiver(signals.user_login_failed)
def _sign_in_failed(sender, credentials, request=None, **kwargs) -> None:
    name = str((credentials or {}).get("username") or "")[:150]
    audit_record(SIGN_IN_FAILED, actor_name=name, request=request)
