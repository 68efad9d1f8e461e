"""The extractive provider's rule for follow-ups: resolved from the earlier turns, by rule."""

from __future__ import annotations

import pytest

from providers.llm.base import CallContext
from providers.llm.extractive import ExtractiveProvider
from providers.llm.extractive.followups import condense, person_in, subject_of


def turn(query: str, answer: str = "", standalone: str = "") -> dict[str, str]:
    return {"query": query, "standalone_query": standalone or query, "answer": answer}


FALCON = turn(
    "What does Project Falcon do?",
    "Project Falcon is the payments scheduler that batches card settlements every night. [1]",
)
FALCON_DEPLOYED = turn(
    "Who deployed it first?",
    "Maria Santos deployed Project Falcon first, on 14 March 2021, from the Lisbon office. [1]",
    standalone="Who deployed Project Falcon first?",
)
TOWER = turn("When was the Eiffel Tower built?", "It was built from 1887 to 1889 [1].")


@pytest.mark.parametrize(
    ("follow_up", "history", "standalone"),
    [
        # A pronoun stands for the subject of the earlier question.
        ("Who deployed it first?", [FALCON], "Who deployed Project Falcon first?"),
        ("Who designed it?", [TOWER], "Who designed the Eiffel Tower?"),
        ("Where is its source code kept?", [FALCON], "Where is Project Falcon's source code kept?"),
        ("Who built this?", [FALCON], "Who built Project Falcon?"),
        # With no name, the subject is the first noun phrase (without a do-question's verb).
        (
            "How much does it cost?",
            [turn("How long does the battery last?", "Ten hours [1].")],
            "How much does the battery cost?",
        ),
        # he/she/her: the person the last answer introduced, not the question's subject.
        (
            "Which office was she working from?",
            [FALCON, FALCON_DEPLOYED],
            "Which office was Maria Santos working from?",
        ),
        (
            "When did he retire?",
            [turn("Who founded Acme Corp?", "Acme Corp was founded by John Smith in 1950 [1].")],
            "When did John Smith retire?",
        ),
        ("What was her role?", [FALCON, FALCON_DEPLOYED], "What was Maria Santos' role?"),
        # A bare question word asks the previous question again: swapped after an auxiliary...
        ("And where?", [TOWER], "Where was the Eiffel Tower built?"),
        # ...else added to it.
        ("and when?", [FALCON, FALCON_DEPLOYED], "Who deployed Project Falcon first, and when?"),
        # "What about X?" asks the previous question about X.
        (
            "What about Project Heron?",
            [FALCON, FALCON_DEPLOYED],
            "Who deployed Project Heron first?",
        ),
        # Already standalone: unchanged.
        ("What is Project Heron?", [FALCON], "What is Project Heron?"),
        (
            "What does this document say about refunds?",
            [FALCON],
            "What does this document say about refunds?",
        ),
        (
            "Is Project Falcon still running, and is it fast?",
            [FALCON],
            "Is Project Falcon still running, and is it fast?",
        ),
        ("thanks!", [FALCON], "thanks!"),
        # No earlier turn: the question itself.
        ("Who deployed it first?", [], "Who deployed it first?"),
    ],
)
def test_a_follow_up_is_rewritten_to_stand_alone(follow_up, history, standalone):
    assert condense(follow_up, history) == standalone


def test_the_subject_is_taken_from_the_latest_turn_that_has_one():
    history = [FALCON, turn("Why?", "Because card settlements must clear overnight [1].")]
    assert condense("Who owns it?", history) == "Who owns Project Falcon?"


def test_only_the_first_pronoun_of_a_referent_is_replaced():
    assert (
        condense("Who deployed it and why did they choose it?", [FALCON])
        == "Who deployed Project Falcon and why did they choose it?"
    )


def test_subject_and_person_extraction():
    assert subject_of("What does Project Falcon do?") == "Project Falcon"
    assert subject_of("Describe the University of Chicago") == "the University of Chicago"
    assert subject_of("What is the refund policy of the shop?") == "the refund policy"
    assert subject_of("how do i reset a password?") == "a password"
    assert subject_of("why?") == ""
    assert person_in(FALCON_DEPLOYED["answer"], "Who deployed Project Falcon first?") == (
        "Maria Santos"
    )
    assert person_in("Project Falcon runs nightly in the Lisbon office.", "What is it?") == ""


def test_the_provider_counts_one_condense_call_and_none_without_history():
    provider = ExtractiveProvider()
    ctx = CallContext()
    assert provider.condense_query("Who deployed it first?", [], ctx) == "Who deployed it first?"
    assert ctx.usage == {}
    rewritten = provider.condense_query("Who deployed it first?", [FALCON], ctx)
    assert rewritten == "Who deployed Project Falcon first?"
    assert ctx.usage["condense"].calls == 1
