from __future__ import annotations

from django.urls import path

from providers.apis import ProviderListApi

urlpatterns = [
    path("providers", ProviderListApi.as_view(), name="providers"),
]
