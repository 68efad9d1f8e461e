"""GET /api/providers: availability per provider, keys never leave the server, probes are short."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.django_db


def test_providers_report_availability_models_and_default(auth_client, settings):
    settings.OPENAI_API_KEY = "sk-very-secret-key"
    settings.OLLAMA_BASE_URL = "http://127.0.0.1:9"  # nothing listens there
    settings.DEFAULT_PROVIDER = ""
    from providers.llm import ollama

    ollama._probe.update(at=0.0, models=None)
    started = time.monotonic()
    response = auth_client.get("/api/providers")
    assert time.monotonic() - started < 5
    body = response.json()
    assert "sk-very-secret-key" not in response.content.decode()
    assert body["default_provider"] == "openai"
    assert body["providers"]["openai"]["available"] is True
    assert body["providers"]["openai"]["default_model"] == "gpt-4o-mini"
    assert body["providers"]["ollama"]["available"] is False
    assert body["providers"]["ollama"]["default_model"] == "llama3.2"
    assert body["providers"]["extractive"] == {
        "name": "extractive",
        "label": "Extractive (offline)",
        "available": True,
        "models": ["extractive"],
        "default_model": "extractive",
    }


def test_default_provider_without_a_key_is_extractive(settings):
    from providers.llm.registry import default_provider_name

    settings.OPENAI_API_KEY = ""
    settings.DEFAULT_PROVIDER = ""
    assert default_provider_name() == "extractive"
    settings.DEFAULT_PROVIDER = "ollama"
    assert default_provider_name() == "ollama"


def test_model_override_reaches_every_chat_provider(settings):
    from providers.llm.ollama import OllamaProvider
    from providers.llm.openai import OpenAIProvider

    settings.OPENAI_API_KEY = "sk-x"
    assert (
        OpenAIProvider().chat_model(model="gpt-4o", temperature=0.0, json_mode=True).model_name
        == "gpt-4o"
    )
    assert (
        OllamaProvider().chat_model(model="qwen2", temperature=0.0, json_mode=True).model == "qwen2"
    )
    assert OllamaProvider().chat_model(model=None, temperature=0.0, json_mode=True).format == "json"


def test_a_provider_that_cannot_be_built_is_reported_unavailable(auth_client, settings):
    settings.ADRAG_PROVIDER_PLUGINS = ["broken=tests.queries.plugin:Broken"]
    body = auth_client.get("/api/providers").json()
    assert body["providers"]["broken"]["available"] is False
    assert "misconfigured" in body["providers"]["broken"]["error"]
    assert body["providers"]["extractive"]["available"] is True
