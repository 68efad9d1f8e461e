from __future__ import annotations

from django.urls import path

from providers import pages

urlpatterns = [
    path("providers/", pages.providers_view, name="providers-page"),
]
