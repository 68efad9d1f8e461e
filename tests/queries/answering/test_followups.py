"""The extractive strategy's rule for follow-ups: resolved from the earlier turns, by rule."""

from __future__ import annotations

import pytest

from providers.llm.base import CallContext
from providers.llm.chat import OfflineBackend
from queries.answering.extractive import ExtractiveStrategy
from queries.answering.extractive.followups import condense, person_in, subject_of


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


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("Who signed the Northwind catering contract?", "the Northwind catering contract"),
        ("Who owns the Helix v3 migration plan?", "the Helix v3 migration plan"),
        ("When does the Orion 2.4 release freeze end?", "the Orion 2.4 release freeze"),
        ("Which team runs the Q3 pricing review?", "the Q3 pricing review"),
        ("Is GPT-4 approved for customer tickets?", "GPT-4"),
        ("Who leads Project Kestrel?", "Project Kestrel"),
        ("What are the Porto office opening hours?", "the Porto office opening hours"),
    ],
)
def test_the_subject_is_the_noun_phrase_the_name_sits_in(question, subject):
    assert subject_of(question) == subject


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        # A participle ends the phrase: it is what was done to the subject.
        ("When was the Harbour Street warehouse leased?", "the Harbour Street warehouse"),
        ("When was the Golden Gate Bridge finished?", "the Golden Gate Bridge"),
        ("Why was the Meridian badge policy chosen?", "the Meridian badge policy"),
        # Without a determiner the name stands alone: the noun after it is the object.
        ("When did Grace Hopper join the Navy?", "Grace Hopper"),
        # After do-support the word before a preposition (or the end) is the verb.
        ("What did the Lisbon office spend on travel?", "the Lisbon office"),
        ("How many laptops does the Oslo office need?", "the Oslo office"),
        ("What does the basic support plan cover?", "the basic support plan"),
        # A preposition or a predicate adjective ends it too.
        ("What is the notice period in the Acme contract?", "the Acme contract"),
        ("Is the Madrid office open on Saturdays?", "the Madrid office"),
    ],
)
def test_the_subject_phrase_stops_at_verbs_participles_and_prepositions(question, subject):
    assert subject_of(question) == subject


ROLLOUT = turn(
    "Who signed off the Orion v4 rollout plan?",
    "Priya Raman signed off the Orion v4 rollout plan after the load test [1].",
)
WAREHOUSE = turn("When was the Harbour Street warehouse leased?", "In March 2019 [1].")
MADRID = turn("How many people work in the Madrid office?", "The Madrid office has 38 staff [2].")
VENDOR_STEPS = turn(
    "What is step 3 of onboarding a new vendor?", "Step 3 is the security questionnaire [1]."
)
HIRING = turn(
    "Who approved the Q3 hiring plan?",
    "Tomas Keller approved the Q3 hiring plan on 12 June [1].",
)


@pytest.mark.parametrize(
    ("follow_up", "history", "standalone"),
    [
        ("And when was that?", [ROLLOUT], "Who signed off the Orion v4 rollout plan, and when?"),
        ("When did that happen?", [ROLLOUT], "Who signed off the Orion v4 rollout plan, and when?"),
        ("Where was that?", [ROLLOUT], "Who signed off the Orion v4 rollout plan, and where?"),
        ("Why?", [ROLLOUT], "Who signed off the Orion v4 rollout plan, and why?"),
        ("And when?", [ROLLOUT], "Who signed off the Orion v4 rollout plan, and when?"),
        # An auxiliary to swap: the new question word takes the old one's place.
        ("Why was that?", [WAREHOUSE], "Why was the Harbour Street warehouse leased?"),
        ("And where was that?", [WAREHOUSE], "Where was the Harbour Street warehouse leased?"),
    ],
)
def test_a_question_word_with_an_empty_clause_asks_the_previous_question_again(
    follow_up, history, standalone
):
    assert condense(follow_up, history) == standalone


def test_the_reported_follow_ups_keep_the_whole_subject():
    # Both were rewritten with half a subject: "And when was the Lumen?", "the Dublin?".
    launch = turn(
        "Who decided to move the Lumen v2 launch date?",
        "Ines Duarte decided to move it after the security review [1].",
    )
    rewritten = condense("And when was that?", [launch])
    assert "Lumen v2 launch date" in rewritten and "when" in rewritten.lower()
    office = turn("How many people work in the Dublin office?", "Forty-two [1].")
    assert condense("Who manages it?", [office]) == "Who manages the Dublin office?"


@pytest.mark.parametrize(
    ("follow_up", "standalone"),
    [
        ("Who manages it?", "Who manages the Madrid office?"),
        ("Who runs it?", "Who runs the Madrid office?"),
        ("What is its phone extension?", "What is the Madrid office's phone extension?"),
        ("What about it?", "What about the Madrid office?"),
    ],
)
def test_it_and_its_stand_for_the_whole_subject_phrase(follow_up, standalone):
    assert condense(follow_up, [MADRID]) == standalone


@pytest.mark.parametrize(
    ("follow_up", "history", "standalone"),
    [
        (
            "How many people work there?",
            [turn("Who manages the Porto office?", "Rita Alves [1].")],
            "How many people work in the Porto office?",
        ),
        ("How do I get there?", [MADRID], "How do I get to the Madrid office?"),
        (
            "Who moved there?",
            [turn("When did the Kraków hub open?", "In May 2021 [1].")],
            "Who moved to the Kraków hub?",
        ),
        (
            "Which vendors deliver there?",
            [turn("Where is Brightwater Depot?", "On the ring road [1].")],
            "Which vendors deliver in Brightwater Depot?",
        ),
    ],
)
def test_there_stands_for_a_place_or_a_name(follow_up, history, standalone):
    assert condense(follow_up, history) == standalone


@pytest.mark.parametrize(
    ("follow_up", "history"),
    [
        # Existential "there" stands for no place.
        ("Is there a parking garage?", [MADRID]),
        ("How many meeting rooms are there?", [MADRID]),
        ("Will there be a holiday party?", [MADRID]),
        # A plan and a person are nowhere to work.
        ("Who works there?", [ROLLOUT]),
        ("Who worked there?", [turn("When did Grace Hopper join the Navy?", "In 1943 [1].")]),
    ],
)
def test_there_is_left_alone_when_it_is_not_a_place(follow_up, history):
    assert condense(follow_up, history) == follow_up


@pytest.mark.parametrize(
    ("follow_up", "history", "standalone"),
    [
        ("What about Porto?", [MADRID], "How many people work in the Porto office?"),
        ("And Porto?", [MADRID], "How many people work in the Porto office?"),
        ("And for Porto?", [MADRID], "How many people work in the Porto office?"),
        ("What about in Porto?", [MADRID], "How many people work in the Porto office?"),
        ("What about Orion v5?", [ROLLOUT], "Who signed off the Orion v5 rollout plan?"),
    ],
)
def test_a_bare_name_replaces_only_the_name_inside_the_subject(follow_up, history, standalone):
    assert condense(follow_up, history) == standalone


@pytest.mark.parametrize(
    ("follow_up", "history", "standalone"),
    [
        ("How about the Porto office?", [MADRID], "How many people work in the Porto office?"),
        (
            "What about the premium support plan?",
            [turn("What does the basic support plan cover?", "Email support on weekdays [1].")],
            "What does the premium support plan cover?",
        ),
        # A subject that is a name alone is replaced whole, its determiner included.
        (
            "And Tower Bridge?",
            [turn("When was the Golden Gate Bridge finished?", "In 1937 [1].")],
            "When was Tower Bridge finished?",
        ),
    ],
)
def test_a_phrase_or_a_name_replaces_the_whole_subject(follow_up, history, standalone):
    assert condense(follow_up, history) == standalone


@pytest.mark.parametrize(
    ("follow_up", "standalone"),
    [
        ("And step 4?", "What is step 4 of onboarding a new vendor?"),
        ("What about step 1?", "What is step 1 of onboarding a new vendor?"),
        ("And the next step?", "What is step 4 of onboarding a new vendor?"),
        ("What about the previous step?", "What is step 2 of onboarding a new vendor?"),
        ("And the step after that?", "What is step 4 of onboarding a new vendor?"),
    ],
)
def test_a_follow_up_about_another_step_asks_for_that_step(follow_up, standalone):
    assert condense(follow_up, [VENDOR_STEPS]) == standalone


def test_other_numbered_parts_and_the_first_step_follow_the_same_rule():
    office_move = turn("What happens in phase 2 of the office move?", "Desks are packed [1].")
    assert condense("And the next phase?", [office_move]) == (
        "What happens in phase 3 of the office move?"
    )
    # There is no step 0: the previous step of step 1 asks about step 1 again.
    first = turn("What is step 1 of the expense claim process?", "Keep the receipt [1].")
    assert condense("And the previous step?", [first]) == (
        "What is step 1 of the expense claim process?"
    )


@pytest.mark.parametrize(
    ("follow_up", "standalone"),
    [
        ("What is his role?", "What is Tomas Keller's role?"),
        ("When did he join finance?", "When did Tomas Keller join finance?"),
        # "they" after a who-question is the person, and its auxiliary agrees with one person.
        ("Which team are they on?", "Which team is Tomas Keller on?"),
        ("Do they sign vendor contracts too?", "Does Tomas Keller sign vendor contracts too?"),
        ("What is their approval limit?", "What is Tomas Keller's approval limit?"),
    ],
)
def test_a_person_pronoun_names_the_person_the_last_answer_introduced(follow_up, standalone):
    assert condense(follow_up, [HIRING]) == standalone


def test_they_after_a_question_about_a_thing_is_still_the_subject():
    hours = turn("What are the Porto office opening hours?", "9:00 to 18:00 [1].")
    assert condense("Are they the same on Fridays?", [hours]) == (
        "Are the Porto office opening hours the same on Fridays?"
    )


def test_that_before_a_participle_stands_for_the_subject():
    contract = turn("Who signed the Northwind catering contract?", "Ana Silva signed it [3].")
    assert condense("When was that signed?", [contract]) == (
        "When was the Northwind catering contract signed?"
    )


@pytest.mark.parametrize(
    "follow_up",
    ["And why did the team pick it?", "And you?", "And thanks!", "Also, is it fast?"],
)
def test_and_before_a_clause_is_not_taken_for_a_new_subject(follow_up):
    assert not condense(follow_up, [ROLLOUT]).startswith("Who signed off")


def test_the_provider_counts_one_condense_call_and_none_without_history():
    provider = ExtractiveStrategy("extractive", OfflineBackend())
    ctx = CallContext()
    assert provider.condense("Who deployed it first?", [], ctx) == "Who deployed it first?"
    assert ctx.usage == {}
    rewritten = provider.condense("Who deployed it first?", [FALCON], ctx)
    assert rewritten == "Who deployed Project Falcon first?"
    assert ctx.usage["condense"].calls == 1


def test_a_follow_up_that_names_nothing_keeps_what_was_asked_of_the_subject():
    planned = turn(
        "When was general availability of the Ledger online checkout originally planned?"
    )
    assert condense("And what is the new date?", [planned]) == (
        "What is the new date for general availability of the Ledger online checkout?"
    )


def test_when_was_that_decided_asks_about_the_previous_question_as_a_whole():
    moving = turn("Which building is the Rotterdam office moving to?")
    assert condense("And when was that decided?", [moving]) == (
        "When was it decided which building the Rotterdam office is moving to?"
    )


STEP_3 = [{"query": "What is step 3 of rolling back a deploy?", "answer": "Step 3 of ..."}]
PREMIER = [{"query": "What does the Premier support plan cost?", "answer": "890 ... [1]."}]
VENDORS = [{"query": "How many vendors do we have?", "answer": "We have 12 vendors."}]


@pytest.mark.parametrize(
    ("history", "follow_up", "standalone"),
    [
        # another item of the same list, by "one"
        (STEP_3, "and the next one?", "What is step 4 of rolling back a deploy?"),
        (STEP_3, "What about the previous one?", "What is step 2 of rolling back a deploy?"),
        (STEP_3, "And the last one?", "What is the last step of rolling back a deploy?"),
        # another of the same kind, named
        (PREMIER, "and the Priority one?", "What does the Priority support plan cost?"),
        (
            PREMIER,
            "What about the Enterprise Care one?",
            "What does the Enterprise Care support plan cost?",
        ),
        # "them" for what the previous question asked for, when it named no subject
        (
            VENDORS,
            "and how many of them are in Portugal?",
            "How many of the vendors are in Portugal?",
        ),
        (
            [{"query": "Which offices opened before 2015?", "answer": "Lisbon, Porto."}],
            "Who runs them?",
            "Who runs the offices?",
        ),
    ],
)
def test_a_short_follow_up_is_rewritten_from_what_the_last_question_asked(
    history, follow_up, standalone
):
    assert condense(follow_up, history) == standalone


@pytest.mark.parametrize(
    ("question", "answer", "follow_up", "standalone"),
    [
        (
            "Which payment processor was chosen for the Ledger online checkout?",
            "Decision: go with Keystone Pay for the Ledger online checkout [1].",
            "When was its contract signed?",
            "When was Keystone Pay's contract signed?",
        ),
        (
            "Which vendor provides our phone lines?",
            "Northpeak Telecom provides office phone lines [1].",
            "When does its contract end?",
            "When does Northpeak Telecom's contract end?",
        ),
        (
            "Which company supplies the laptops?",
            "Laptops come from Lenovo under a framework agreement [2].",
            "How much do we pay them?",
            "How much do we pay Lenovo?",
        ),
        # A question about a place keeps its subject: "it" is the office, not its manager.
        (
            "Who runs the Dublin office?",
            "Aoife Brennan is the office manager for Dublin [1].",
            "When did it open?",
            "When did the Dublin office open?",
        ),
    ],
)
def test_it_stands_for_the_thing_the_last_answer_named_when_the_question_asked_for_one(
    question, answer, follow_up, standalone
):
    history = [{"query": question, "answer": answer}]
    assert condense(follow_up, history) == standalone
