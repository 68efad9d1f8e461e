"""A follow-up in a conversation: the planner rewrites it to stand alone, and the whole run
(plan, retrieval, answer, check, retry) works on the standalone question.

The runs search the documents held in memory (tests/queries/pipeline/memory.py); a model's
rewrite and the extractive provider's follow-up also run end to end on PostgreSQL (`any_kb`)."""

from __future__ import annotations

import pytest

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from providers.llm.base import ProviderError
from providers.llm.chat import OfflineBackend
from providers.reranker import FallbackReranker
from queries.answering.extractive import ExtractiveStrategy
from queries.answering.model import standalone_line
from queries.pipeline.events import ListSink
from queries.pipeline.runner import run_pipeline
from tests.queries.pipeline.contract import CLEAN_PASS, check_frames
from tests.queries.pipeline.memory import MemoryStores, searched
from tests.queries.pipeline.scripted import (
    PLAN_RETRIEVE,
    Script,
    answer,
    scripted_model,
    verdict,
)

DOCS = {
    "falcon.md": (
        "Project Falcon is the payments scheduler that batches card settlements every night. "
        "Maria Santos deployed Project Falcon first, on 14 March 2021, from the Lisbon office."
    ),
    "heron.md": (
        "Project Heron is the search indexer that rebuilds the product catalogue every hour. "
        "Kenji Watanabe deployed Project Heron first, on 2 June 2022, from the Osaka office."
    ),
    "risotto.md": "Risotto is cooked with arborio rice and stock added slowly.",
}
HISTORY = [
    {
        "query": "What does Project Falcon do?",
        "standalone_query": "What does Project Falcon do?",
        "answer": "Project Falcon is the payments scheduler that batches card settlements [1].",
    }
]
FOLLOW_UP = "Who deployed it first?"
STANDALONE = "Who deployed Project Falcon first?"


@pytest.fixture
def kb():
    """The documents in memory: the run reads no database."""
    return MemoryStores(DOCS)


@pytest.fixture(
    params=["memory", pytest.param("database", marks=pytest.mark.django_db(transaction=True))]
)
def any_kb(request):
    """The documents in memory, then ingested into PostgreSQL."""
    if request.param == "memory":
        return MemoryStores(DOCS)
    kb = kb_create(owner=request.getfixturevalue("user"), name="Platform")
    documents_ingest_inline(kb=kb, items=[TextItem(n, t.encode()) for n, t in DOCS.items()])
    return kb


def run(kb, strategy, query=FOLLOW_UP, **overrides):
    sink = ListSink()
    overrides.setdefault("reranker", FallbackReranker())
    outcome = run_pipeline(query=query, strategy=strategy, sink=sink, **searched(kb), **overrides)
    check_frames(sink.frames())
    return sink, outcome


def planner_complete(sink) -> dict:
    return next(
        f["data"]
        for f in sink.frames()
        if f["type"] == "stage_complete" and f["data"]["stage"] == "planner"
    )


def question_in(prompt: list[str]) -> str:
    user = prompt[1]
    return user.split("<<<BEGIN QUESTION>>>\n", 1)[1].split("\n<<<END QUESTION>>>", 1)[0]


def test_the_model_rewrites_a_follow_up_and_the_run_works_on_the_rewrite(any_kb):
    script = Script(
        condense=[f"Standalone question: {STANDALONE}\n(That is the rewrite.)"],
        planner=[PLAN_RETRIEVE],
        reasoning=[answer("Maria Santos deployed it first [1].")],
        reflection=[verdict()],
    )
    sink, outcome = run(any_kb, scripted_model(script), history=HISTORY)
    assert sink.sequence() == CLEAN_PASS
    assert planner_complete(sink)["standalone_query"] == STANDALONE
    assert outcome.standalone_query == STANDALONE
    # One condense call, bounded by its own budget, sent the earlier turn and the follow-up.
    condense = [r for r in script.requests if r.stage == "condense"]
    assert len(condense) == 1 and condense[0].max_tokens == 80 and not condense[0].json_mode
    assert "User: What does Project Falcon do?" in condense[0].user
    assert "[1]" not in condense[0].user.split("<<<BEGIN QUESTION>>>")[0]
    assert question_in([condense[0].system, condense[0].user]) == FOLLOW_UP
    # Planner, answer and check all read the standalone question.
    for stage, prompt in script.prompts:
        if stage != "condense":
            assert question_in(prompt) == STANDALONE, stage
    # Retrieval searched it too: the Falcon document leads, not Heron's.
    done = next(f["data"] for f in sink.frames() if f["type"] == "done")
    assert done["sources"][0]["file_name"] == "falcon.md"
    assert outcome.usage["condense"]["calls"] == 1


# What the scripted model answers: a sentence of falcon.md (the check reads every answer).
FALCON_ANSWER = (
    "Project Falcon is the payments scheduler that batches card settlements every night."
)
DEPLOYED_ANSWER = "Maria Santos deployed Project Falcon first, on 14 March 2021."


def test_a_first_question_asks_no_model_to_rewrite_it(kb):
    script = Script(
        planner=[PLAN_RETRIEVE], reasoning=[answer(FALCON_ANSWER, cited=())], reflection=[verdict()]
    )
    sink, outcome = run(kb, scripted_model(script), query="What does Project Falcon do?")
    assert [r.stage for r in script.requests] == ["planner", "reasoning", "reflection"]
    assert planner_complete(sink)["standalone_query"] == "What does Project Falcon do?"
    assert outcome.standalone_query == "What does Project Falcon do?"


def test_a_failed_rewrite_leaves_the_question_as_asked_and_the_run_goes_on(kb):
    script = Script(
        condense=[ProviderError("the model call failed")],
        planner=[PLAN_RETRIEVE],
        reasoning=[answer(DEPLOYED_ANSWER, cited=())],
        reflection=[verdict()],
    )
    sink, outcome = run(kb, scripted_model(script), history=HISTORY)
    assert sink.sequence() == CLEAN_PASS
    assert planner_complete(sink)["standalone_query"] == FOLLOW_UP
    assert outcome.status == "succeeded" and outcome.standalone_query == FOLLOW_UP


def test_a_failed_plan_still_retrieves_with_the_standalone_question(kb):
    script = Script(
        condense=[STANDALONE],
        planner=[ProviderError("the plan failed")],
        reasoning=[answer("Maria Santos [1].")],
        reflection=[verdict()],
    )
    sink, outcome = run(kb, scripted_model(script), history=HISTORY)
    assert ("stage_error", "planner") in sink.sequence()
    assert outcome.standalone_query == STANDALONE
    reasoning = next(p for stage, p in script.prompts if stage == "reasoning")
    assert question_in(reasoning) == STANDALONE
    done = next(f["data"] for f in sink.frames() if f["type"] == "done")
    assert done["sources"][0]["file_name"] == "falcon.md"


def test_a_retry_rewrites_from_the_standalone_question(kb):
    script = Script(
        condense=[STANDALONE],
        planner=[PLAN_RETRIEVE],
        reasoning=[answer("Kenji deployed it [1]."), answer("Maria Santos deployed it [1].")],
        reflection=[
            verdict(False, True, ["Kenji is not in [1]"], "Name who deployed Falcon."),
            "Project Falcon first deployment Maria Santos",
            verdict(),
        ],
    )
    sink, outcome = run(kb, scripted_model(script), history=HISTORY)
    assert sink.types().count("retry") == 1
    rewrite = [p for stage, p in script.prompts if stage == "reflection"][1]
    assert question_in(rewrite) == STANDALONE
    assert outcome.answer == "Maria Santos deployed it [1]."


def test_the_extractive_provider_answers_a_follow_up_from_the_first_turns_subject(any_kb):
    sink, outcome = run(any_kb, ExtractiveStrategy("extractive", OfflineBackend()), history=HISTORY)
    assert sink.sequence() == CLEAN_PASS
    assert outcome.standalone_query == STANDALONE
    assert "Maria Santos" in outcome.answer and "Kenji" not in outcome.answer
    assert outcome.sources[0]["file_name"] == "falcon.md"
    # Asked on its own words, the same follow-up cannot tell Falcon from Heron.
    _, alone = run(any_kb, ExtractiveStrategy("extractive", OfflineBackend()))
    assert alone.standalone_query == FOLLOW_UP
    assert "Kenji Watanabe" in alone.answer


@pytest.mark.parametrize(
    ("reply", "line"),
    [
        ("Who deployed Project Falcon first?", "Who deployed Project Falcon first?"),
        (
            'Rewritten question: "Who deployed Project Falcon first?"\nmore',
            "Who deployed Project Falcon first?",
        ),
        ("\n\nUser: When was it built?", "When was it built?"),
        # Small models echo the prompt's fences: never a question.
        (
            "<<<BEGIN QUESTION>>\nWho deployed it first?\n<<<END QUESTION>>>",
            "Who deployed it first?",
        ),
        (
            "<<<BEGIN QUESTION>>> Who deployed Project Falcon first? <<<END QUESTION>>>",
            "Who deployed Project Falcon first?",
        ),
        ("<<<END CONVERSATION>>>", ""),
        ("   \n", ""),
    ],
)
def test_the_models_reply_is_read_as_one_question(reply, line):
    assert standalone_line(reply) == line
