from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from adrag_site.models import ApiToken, AuditEvent, SsoIdentity

admin.site.site_header = "adRAG administration"
admin.site.site_title = "adRAG admin"

# UserAdmin already defines search_fields, which autocomplete fields elsewhere rely on.
if not admin.site.is_registered(get_user_model()):
    admin.site.register(get_user_model(), UserAdmin)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Users' API tokens: who, which scope, when used; the keys themselves are never kept."""

    list_display = ["name", "user", "scope", "prefix", "created_at", "last_used_at", "expires_at"]
    list_filter = ["scope"]
    search_fields = ["name", "user__username", "prefix"]
    readonly_fields = ["user", "name", "scope", "prefix", "key_hash", "created_at", "last_used_at"]

    def has_add_permission(self, request) -> bool:
        return False  # a key is made by its user, who alone sees it


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """The audit trail, read-only: who did what, when, from where."""

    list_display = ["at", "actor_name", "action", "target_type", "target_id", "ip", "request_id"]
    list_filter = ["action", "target_type"]
    search_fields = ["actor_name", "target_id", "request_id"]
    date_hierarchy = "at"

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(SsoIdentity)
class SsoIdentityAdmin(admin.ModelAdmin):
    """Who signs in through single sign-on: their subject at the provider. Made at sign-in;
    deleting one makes the next sign-in of that subject a new person (or links by a verified
    e-mail)."""

    list_display = ["user", "issuer", "subject", "created_at", "updated_at"]
    search_fields = ["user__username", "subject", "issuer"]
    readonly_fields = ["user", "issuer", "subject", "created_at", "updated_at"]

    def has_add_permission(self, request) -> bool:
        return False
