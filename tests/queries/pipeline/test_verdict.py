"""The verdict rule alone: no run, no database, no model (queries/pipeline/verdict.py)."""

from __future__ import annotations

from queries.answering.checks.claims import Claim
from queries.answering.checks.result import DOUBT, NOT_FOUND, AnswerCheck, Finding
from queries.answering.types import Critique
from queries.pipeline.verdict import NOT_FOUND_CONFIDENCE, combine

SUPPORTED = Claim("Staff get 25 days of annual leave [1].", [1], supported_by=1)
UNSUPPORTED = Claim("Leave doubles after a year [1].", [1], problem="No passage says this")
SURE = Critique(grounded=True, confidence=0.9)


def checked(*claims: Claim, findings=(), refusal=False, absent=()) -> AnswerCheck:
    return AnswerCheck(
        answer=" ".join(c.text for c in claims),
        claims=list(claims),
        findings=list(findings),
        refusal=refusal,
        absent=list(absent),
    )


def test_a_sure_critic_and_a_supported_answer_are_verified():
    verdict = combine(SURE, checked(SUPPORTED))
    assert verdict.grounded and not verdict.should_retry
    assert verdict.confidence == 0.9


def test_an_unsupported_claim_is_not_verified_whatever_the_critic_says_and_asks_again():
    verdict = combine(SURE, checked(SUPPORTED, UNSUPPORTED))
    assert not verdict.grounded
    assert verdict.confidence == 0.5  # one claim of two supported
    assert verdict.should_retry
    assert "No passage says this" in verdict.feedback


def test_documents_that_do_not_answer_cap_the_confidence_and_a_word_no_document_holds_is_not_searched_again():
    silent = Finding("coverage", NOT_FOUND, "The documents do not mention sabbatical leave.")
    verdict = combine(SURE, checked(SUPPORTED, findings=[silent], absent=["sabbatical"]))
    assert not verdict.grounded and not verdict.sufficient
    assert verdict.confidence == NOT_FOUND_CONFIDENCE
    assert not verdict.should_retry
    assert "The documents do not mention sabbatical leave." in verdict.issues


def test_an_answer_that_doubts_its_evidence_is_not_verified():
    verdict = combine(SURE, checked(SUPPORTED), answer_doubts=True)
    assert not verdict.grounded
    assert "The answer itself found the evidence insufficient." in verdict.issues


def test_a_doubtful_check_leaves_the_answer_unverified():
    doubt = Finding("fit", DOUBT, "The answer may not be about the shift pattern.")
    assert not combine(SURE, checked(SUPPORTED, findings=[doubt])).grounded


def test_answering_the_other_way_retries_once_and_a_failed_critic_never_retries():
    first = combine(SURE, checked(UNSUPPORTED), other_way=True)
    again = combine(SURE, checked(UNSUPPORTED), other_way=True, retry_count=1)
    assert first.should_retry and not again.should_retry
    failed = combine(SURE, checked(UNSUPPORTED), error="The critic timed out.")
    assert not failed.should_retry and failed.error == "The critic timed out."
