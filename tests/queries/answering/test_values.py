"""Values of an answer type found in a text (queries/answering/values.py)."""

from __future__ import annotations

import pytest

from queries.answering.values import values


@pytest.mark.parametrize(
    ("text", "answer_type", "expected"),
    [
        ("Restores take about 40 minutes.", "duration", "40 minutes"),
        ("The coalition holds until the end of the current Parliament.", "duration",
         "until the end of the current Parliament"),
        ("The ban lasted till 1990.", "duration", "till 1990"),
        ("The Lisbon office has 42 staff.", "number", "42"),
        ("Meals are capped at EUR 45 a day.", "amount", "EUR 45"),
        ("Ines Duarte approves leave requests.", "person", "Ines Duarte"),
        ("The office opened on 12 March 2015.", "date", "12 March 2015"),
    ],
)  # fmt: skip
def test_a_value_of_the_type_asked_is_found(text, answer_type, expected):
    found = [value.text for value in values(text, answer_type)]
    assert any(expected in value or value in expected for value in found), found


@pytest.mark.parametrize(
    ("text", "answer_type"),
    [
        ("Wait until he calls.", "duration"),  # "until" before a clause: no end point
        ("See the runbook [3] for details.", "number"),  # a citation marker is no count
        ("Upgrade to v3.1.0 now.", "number"),  # a version is no count
        ("The office opened in 2014.", "duration"),  # a year is no length of time
    ],
)
def test_what_only_looks_like_a_value_is_not_one(text, answer_type):
    assert values(text, answer_type) == []


def test_a_value_the_question_holds_is_not_new():
    assert values("The office opened in 2015.", "date", "When did the office open in 2015?") == []
