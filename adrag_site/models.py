"""What the site keeps of its own processes: which workers are alive, and for which queues."""

from __future__ import annotations

from django.db import models


class WorkerPresence(models.Model):
    """A long-running Procrastinate worker, refreshed while it lives and removed as it stops.

    Procrastinate's own heartbeat table says that some worker is alive, not which queues it
    takes; /api/health needs to know that each queue (runs, ingest) has one.

    Like Procrastinate's tables, this is the processes' state, not the portal's data: the
    model is unmanaged (its migration makes the table), so that `flush`, and the test runner's
    flush between tests, leave the rows of running workers alone.
    """

    worker = models.CharField(max_length=200, unique=True, help_text="host:pid")
    queues = models.CharField(max_length=300, help_text="comma-separated; empty: every queue")
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        managed = False
        db_table = "adrag_site_workerpresence"
        ordering = ["worker"]
        verbose_name = "worker"

    def __str__(self) -> str:
        return f"{self.worker} ({self.queues or 'every queue'})"

    @property
    def queue_list(self) -> list[str]:
        return [queue for queue in self.queues.split(",") if queue]


class ApiToken(models.Model):
    """A user's API key with a scope, made by the user (POST /api/tokens) and shown once.

    Only the key's SHA-256 is stored: the keys are 256 random bits, so a fast hash is as safe
    as a slow one, and a stolen table reveals no key. `prefix` (the key's first characters)
    tells a user's keys apart in lists.
    """

    class Scope(models.TextChoices):
        READ = "read", "read: runs, conversations, knowledge bases"
        ASK = "ask", "ask: read, and ask, re-run, stop and rate runs"
        MANAGE = "manage", "manage: everything the user may do"

    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    scope = models.CharField(max_length=10, choices=Scope.choices)
    prefix = models.CharField(max_length=16)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.name} ({self.scope}, {self.prefix}…)"


class AuditEvent(models.Model):
    """Who did what, when, from where: sign-ins, tokens, uploads, deletions, sharing, exports,
    re-runs (adrag_site/audit.py). Kept for AUDIT_RETENTION_DAYS."""

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        "auth.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The name as it was: kept when the user is deleted, and for failed sign-ins.
    actor_name = models.CharField(max_length=150, blank=True, default="")
    action = models.CharField(max_length=50, db_index=True)
    target_type = models.CharField(max_length=50, blank=True, default="")
    target_id = models.CharField(max_length=100, blank=True, default="")
    ip = models.GenericIPAddressField(null=True, blank=True)
    request_id = models.CharField(max_length=128, blank=True, default="")
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["actor", "-at"])]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.actor_name or '-'} {self.action}"


class SsoIdentity(models.Model):
    """Who a person is at an OpenID Connect provider: its issuer and their subject there.

    A person signing in with single sign-on is found by this pair, never by e-mail alone
    (adrag_site/sso.py).
    """

    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="sso_identities")
    issuer = models.CharField(max_length=500)
    subject = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="sso_identity_unique")
        ]
        verbose_name = "single sign-on identity"
        verbose_name_plural = "single sign-on identities"

    def __str__(self) -> str:
        return f"{self.user} at {self.issuer}"
