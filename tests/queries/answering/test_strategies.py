"""Typed values from model replies: the spec's tolerance, and nothing that breaks the log."""

from __future__ import annotations

import json
import math

from queries.answering.types import Answer, Critique, Plan


def test_a_model_s_words_for_yes_and_no_are_read_as_such():
    verdict = Critique.from_reply({"grounded": "false", "should_retry": "yes", "issues": "x"})
    assert verdict.grounded is False and verdict.should_retry is True
    assert verdict.issues == ("x",)  # a lone string is one issue, not its letters
    assert Plan.from_reply({"retrieve": "no"}).retrieve is False
    assert Plan.from_reply({}).retrieve is True


def test_a_confidence_is_a_finite_number_between_0_and_1():
    for raw, expected in ((float("nan"), 0.0), ("high", 0.0), (7, 1.0), (-2, 0.0), ("0.4", 0.4)):
        answer = Answer.from_reply({"answer": "A [1].", "confidence": raw})
        assert answer.confidence == expected and math.isfinite(answer.confidence)
        json.dumps({"confidence": answer.confidence}, allow_nan=False)


def test_declared_citations_tolerate_a_lone_number_and_junk():
    assert Answer.from_reply({"answer": "A", "cited_sources": 2}).cited == (2,)
    assert Answer.from_reply({"answer": "A", "cited_sources": [1, "x", "3"]}).cited == (1, 3)
