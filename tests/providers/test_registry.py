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
        "strategy": "extractive",
    }
    assert body["providers"]["openai"]["strategy"] == "model"
    assert body["providers"]["local"]["strategy"] == "quote_first"


def test_default_provider_without_a_key_is_extractive(settings):
    from providers.llm.registry import default_provider_name

    settings.OPENAI_API_KEY = ""
    settings.DEFAULT_PROVIDER = ""
    assert default_provider_name() == "extractive"
    settings.DEFAULT_PROVIDER = "ollama"
    assert default_provider_name() == "ollama"


def test_openai_request_carries_model_override_budget_and_schema():
    from providers.llm.chat import ChatRequest
    from providers.llm.grammar import bounded
    from providers.llm.openai import JSON_OBJECT, JSON_OBJECT_SCHEMA, JSON_SCHEMA, request_payload
    from queries.answering import schemas

    request = ChatRequest(
        task="plan", stage="planner", system="s", user="u", model="gpt-4o",
        temperature=0.0, max_tokens=160, schema=schemas.BY_STAGE["planner"], json_mode=True,
    )  # fmt: skip
    payload = request_payload(request, JSON_SCHEMA)
    assert payload["model"] == "gpt-4o"
    assert payload["max_tokens"] == 160
    assert payload["stream"] is True and payload["stream_options"] == {"include_usage": True}
    assert payload["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "plan", "schema": schemas.PLAN, "strict": True},
    }
    assert request_payload(request, JSON_OBJECT_SCHEMA)["response_format"] == {
        "type": "json_object",
        "schema": bounded(schemas.PLAN),
    }
    assert request_payload(request, JSON_OBJECT)["response_format"] == {"type": "json_object"}
    plain = ChatRequest(
        task="compress", stage="compressor", system="s", user="u", model=None,
        temperature=0.3, max_tokens=800,
    )  # fmt: skip
    assert "response_format" not in request_payload(plain, JSON_SCHEMA)


def test_a_provider_that_cannot_be_built_is_reported_unavailable(auth_client, settings):
    settings.ADRAG_PROVIDER_PLUGINS = ["broken=tests.queries.plugin:Broken"]
    body = auth_client.get("/api/providers").json()
    assert body["providers"]["broken"]["available"] is False
    assert "misconfigured" in body["providers"]["broken"]["error"]
    assert body["providers"]["extractive"]["available"] is True


def test_a_plugin_that_is_not_a_chat_backend_is_refused_by_name(auth_client, settings):
    settings.ADRAG_PROVIDER_PLUGINS = ["odd=tests.queries.plugin:pause"]
    body = auth_client.get("/api/providers").json()
    assert body["providers"]["odd"]["available"] is False
    assert "tests.queries.plugin:pause is not a chat backend" in body["providers"]["odd"]["error"]


@pytest.mark.parametrize(
    ("base_url", "configured", "cached"),
    [
        ("http://127.0.0.1:8080/v1", "auto", True),  # llama.cpp's server keeps the prompt
        ("https://api.openai.com/v1", "auto", False),  # OpenAI rejects the field
        ("", "auto", False),
        ("https://api.openai.com/v1", "true", True),
        ("http://127.0.0.1:8080/v1", "false", False),
    ],
)
def test_a_self_hosted_server_is_asked_to_cache_the_prompt(settings, base_url, configured, cached):
    from providers.llm.chat import ChatRequest
    from providers.llm.openai import NO_FORMAT, request_payload

    settings.OPENAI_BASE_URL, settings.OPENAI_CACHE_PROMPT = base_url, configured
    request = ChatRequest("answer", "reasoning", "s", "u", None, 0.0, 10)
    payload = request_payload(request, NO_FORMAT)
    assert (payload.get("extra_body") == {"cache_prompt": True}) is cached


def test_an_answer_prompt_puts_what_stays_first_and_the_question_last():
    from queries.answering import prompts

    first = prompts.answer_user("[1] a.txt\nThe context.", "Who?")
    retry = prompts.answer_user("[1] a.txt\nThe context.", "Who?", feedback="Cite [1].")
    context = prompts.fence("CONTEXT", "[1] a.txt\nThe context.")
    assert first.startswith(context) and retry.startswith(context)
    assert retry.index("Cite [1].") < retry.index("<<<BEGIN QUESTION>>>")
    assert retry.endswith(prompts.fence("QUESTION", "Who?"))


def test_each_provider_name_gets_its_backend_and_the_strategy_the_setting_names(settings):
    from providers.llm.chat import OfflineBackend
    from providers.llm.local import LlamaCppBackend
    from providers.llm.ollama import OllamaBackend
    from providers.llm.openai import OpenAIBackend
    from queries.answering.extractive import ExtractiveStrategy
    from queries.answering.model import ModelStrategy
    from queries.answering.quote_first import QuoteFirstStrategy
    from queries.answering.registry import get_strategy

    composed = {
        name: (type(get_strategy(name)), type(get_strategy(name).backend))
        for name in ("openai", "ollama", "local", "extractive")
    }
    assert composed == {
        "openai": (ModelStrategy, OpenAIBackend),
        "ollama": (ModelStrategy, OllamaBackend),
        "local": (QuoteFirstStrategy, LlamaCppBackend),
        "extractive": (ExtractiveStrategy, OfflineBackend),
    }
    # An operator puts a hosted model behind quotes by naming it, whatever its address.
    settings.ANSWER_STRATEGIES = {**settings.ANSWER_STRATEGIES, "openai": "quote_first"}
    settings.OPENAI_BASE_URL = "https://api.example.com/v1"
    assert type(get_strategy("openai")) is QuoteFirstStrategy
    settings.OPENAI_BASE_URL = "http://127.0.0.1:8080/v1"
    settings.ANSWER_STRATEGIES = {**settings.ANSWER_STRATEGIES, "openai": "model"}
    assert type(get_strategy("openai")) is ModelStrategy


def test_an_unknown_strategy_is_a_permanent_error_naming_the_choices(settings):
    from providers.llm.base import ProviderError
    from queries.answering.registry import get_strategy

    settings.ANSWER_STRATEGIES = {**settings.ANSWER_STRATEGIES, "ollama": "guess"}
    with pytest.raises(ProviderError) as error:
        get_strategy("ollama")
    assert error.value.permanent and "model, quote_first, extractive" in str(error.value)


def test_a_plugin_backend_answers_with_the_model_strategy_unless_told(settings):
    from queries.answering.model import ModelStrategy
    from queries.answering.quote_first import QuoteFirstStrategy
    from queries.answering.registry import get_strategy
    from tests.queries.plugin import ScriptedFromFile

    settings.ADRAG_PROVIDER_PLUGINS = ["scripted=tests.queries.plugin:ScriptedFromFile"]
    strategy = get_strategy("scripted")
    assert type(strategy) is ModelStrategy and isinstance(strategy.backend, ScriptedFromFile)
    settings.ANSWER_STRATEGIES = {**settings.ANSWER_STRATEGIES, "scripted": "quote_first"}
    assert type(get_strategy("scripted")) is QuoteFirstStrategy


def test_the_system_check_names_an_unknown_strategy_and_a_removed_variable(settings, monkeypatch):
    from queries.answering.settings_checks import answer_strategies

    assert answer_strategies(None) == []
    settings.ANSWER_STRATEGIES = {**settings.ANSWER_STRATEGIES, "ollama": "guess"}
    monkeypatch.setenv("LOCAL_RETRY", "model")
    problems = {problem.id: problem for problem in answer_strategies(None)}
    assert "'guess'" in problems["queries.E001"].msg
    assert "model, quote_first, extractive" in problems["queries.E001"].hint
    assert problems["queries.W001"].msg == "LOCAL_RETRY is set but no longer read"
