"""A three-turn conversation on a real OpenAI-compatible server (llama.cpp's, with a small GGUF
model), through the web server and a worker. Nothing is scripted; a 135M-parameter model's
wording is not asserted, only what it reliably gives: each follow-up is rewritten by a model
call, and every run records a non-empty standalone question under the stream's contract."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token

from queries.models import Conversation, QueryRun
from tests.queries.test_conversations import TURNS, ask_conversation, platform_kb, transcript

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_three_turn_conversation_on_a_real_model_server(model_stack, user):
    platform_kb(user)
    url = model_stack.url
    headers = {"Authorization": f"Token {Token.objects.create(user=user).key}"}

    details = ask_conversation(url, headers, "openai")
    print("\nreal model server conversation:\n" + transcript(details))
    assert [run["query"] for run in details] == TURNS
    assert len({run["conversation"] for run in details}) == 1
    assert Conversation.objects.get(id=details[0]["conversation"]).runs.count() == 3
    for n, detail in enumerate(details):
        run = QueryRun.objects.get(id=detail["id"])
        assert run.status == "succeeded" and run.provider == "openai"
        assert run.standalone_query.strip(), detail
        assert "<<<" not in run.standalone_query and ">>" not in run.standalone_query
        if n == 0:
            # The first question is its own standalone question: no model was asked.
            assert run.standalone_query == TURNS[0] and "condense" not in run.usage
        else:
            # Each follow-up was rewritten by one model call, within its budget.
            assert run.usage["condense"]["calls"] == 1, run.usage
            assert 0 < run.usage["condense"]["output_tokens"] <= 80, run.usage
