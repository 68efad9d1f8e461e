from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

admin.site.site_header = "adRAG administration"
admin.site.site_title = "adRAG admin"

# UserAdmin already defines search_fields, which autocomplete fields elsewhere rely on.
if not admin.site.is_registered(get_user_model()):
    admin.site.register(get_user_model(), UserAdmin)
