"""The question frame: one reading of a question, the same for every stage that reads it."""

from __future__ import annotations

import pytest

from queries.answering.frame import QuestionFrame, frame_question, noun_type


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # who: a person (or an organisation)
        ("Who runs the Dublin office?", "person"),
        ("Who led the Panthers in sacks?", "person"),
        ("whom should I ask about payroll?", "person"),
        ("Who was the quarterback for the Broncos?", "person"),
        # when / which year: a date
        ("When does the Alertwave contract end?", "date"),
        ("In what year did the war end?", "date"),
        ("In which year did the Munich office open?", "date"),
        ("What date is the offsite?", "date"),
        # where / which city: a place
        ("Where did the team train?", "place"),
        ("Which city hosts the summit?", "place"),
        ("What is the name of the stadium where Super Bowl 50 was played?", "place"),
        # how many: a number; how much: an amount; how long: a length of time
        ("How many people work in the Kraków office?", "number"),
        ("how many steps does the rollback have?", "number"),
        ("What percentage of the population was below the poverty line?", "number"),
        ("What is the phone extension of the Toronto office?", "number"),
        ("How much do we pay Orbitdesk per year?", "amount"),
        ("How much can I spend on a company phone?", "amount"),
        ("What does the Premier support plan cost?", "amount"),
        ("What is the nightly hotel cap in Lisbon?", "amount"),
        ("How long does it take to restore a backup?", "duration"),
        ("How long did the war last?", "duration"),
        ("What is the first response time of the Priority plan?", "duration"),
        ("How long is the Rhine?", "number"),
        # which team / company: an organisation
        ("Which team won Super Bowl XLIX?", "organisation"),
        ("Which company supplies the laptops?", "organisation"),
        # why, how, summaries, yes/no, lists
        ("Why did the Porto office grow faster than Lisbon?", "reason"),
        ("How do I reset my password?", "description"),
        ("Summarize the travel policy.", "description"),
        ("Explain the expense rules.", "description"),
        ("Is parking free at the Lisbon office?", "yes_no"),
        ("Does the Premier plan include phone support?", "yes_no"),
        ("Which offices opened before 2015?", "list"),
        ("List the vendors whose contracts end in 2026.", "list"),
        # anything else: any answer will do
        ("What did Marie Curie discover?", ""),
        ("What is the leave policy?", ""),
    ],
)
def test_the_answer_type_follows_the_question_word_and_the_noun_it_asks_for(question, expected):
    assert frame_question(question).answer_type == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # A noun the list types gives its type; one it does not, none ("what") or a name
        # ("which"): nothing is guessed.
        ("What stadium hosted the final?", "place"),
        ("Which engineer approved the change?", "person"),
        ("Which club did she join?", "organisation"),
        ("Which fort was rebuilt in 1964?", "name"),
        ("What policy covers remote work?", ""),
        ("What is the term for a hyperactive immune system?", ""),
        ("What body must a pharmacy technician register with?", ""),
    ],
)
def test_a_noun_the_list_does_not_name_asks_for_no_type_or_a_name(question, expected):
    assert frame_question(question).answer_type == expected
    assert noun_type("term") == noun_type("body") == ""


def test_the_thing_asked_is_the_noun_phrase_not_the_rest_of_the_question():
    assert frame_question("What is the salary range for a software engineer in Porto?").asked == (
        "salary range"
    )
    assert frame_question("How many people work in the Kraków office?").asked == "people"
    assert frame_question("Which vendors do we pay monthly?").plural


def test_names_the_question_asks_about_are_its_entities():
    frame = frame_question("Which team represented the AFC at Super Bowl 50?")
    assert "AFC" in frame.entities and any("Super Bowl" in name for name in frame.entities)
    assert frame_question("When was v3.4.0 released?").entities == ("3.4.0",)
    # A demonym or a common capitalised word names no particular thing.
    assert frame_question("What did the French call the fort?").entities == ()
    assert frame_question("How many rivers did Peyton Manning cross on Earth?").entities == (
        "Peyton Manning",
    )


@pytest.mark.parametrize(
    ("question", "number", "last"),
    [
        ("What is step 3 of rolling back a deploy?", 3, False),
        ("What's the 2nd item on the onboarding checklist?", 2, False),
        ("What is the third step of the expense claim process?", 3, False),
        ("What is the last step of rolling back a deploy?", 0, True),
    ],
)
def test_a_list_item_is_a_constraint(question, number, last):
    item = frame_question(question).constraint("item")
    assert item is not None and (item["number"], item["last"]) == (number, last)


def test_an_item_next_to_a_named_one_comparisons_and_superlatives_are_constraints():
    after = frame_question("What is the step after restarting the service?").constraint("relative")
    assert after == {"kind": "relative", "side": "after", "anchor": "restarting the service"}
    compare = frame_question("Which offices have more than 50 staff?").constraint("compare")
    assert compare == {"kind": "compare", "op": "more than", "value": "50"}
    assert frame_question("What is the largest office?").constraint("superlative")


def test_a_frame_survives_the_pipeline_state_as_json():
    import json

    frame = frame_question("What is step 3 of rolling back a deploy in v3.2.0?")
    again = QuestionFrame.from_dict(json.loads(json.dumps(frame.to_dict())))
    assert again == frame
