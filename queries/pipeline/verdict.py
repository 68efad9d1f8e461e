"""An attempt's verdict: the critic's judgement and the deterministic check, combined.

Pure: `combine` reads only what it is given, so the rule that says when an answer is verified,
unverified or not found is tested without a run, a database or a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from queries.answering.checks import AnswerCheck
from queries.answering.types import Critique

VERIFIED = "verified"
UNVERIFIED = "unverified"
NOT_FOUND = "not_found"
# An answer the documents do not support scores at most this.
NOT_FOUND_CONFIDENCE = 0.3


@dataclass
class Verdict:
    """The combined judgement of one attempt."""

    grounded: bool
    confidence: float
    issues: list[str] = field(default_factory=list)
    feedback: str = ""
    should_retry: bool = False
    sufficient: bool = True
    # The answer with the markers the check assigned ("" keeps the attempt's answer).
    answer: str = ""
    check: AnswerCheck | None = None
    # The critic's failure, as a user may read it ("" when it answered).
    error: str = ""


def combine(
    critic: Critique,
    check: AnswerCheck,
    *,
    answer_doubts: bool = False,
    retry_count: int = 0,
    error: str = "",
    other_way: bool = False,
) -> Verdict:
    """Return the verdict of the critic and the deterministic check together.

    `answer_doubts`: the answer itself said the evidence is not sufficient. `retry_count`: the
    attempts before this one. `error`: the critic's failure, as a user may read it.
    `other_way`: the strategy's retry answers the other way (quote-first's: the model after
    a quote). Then a first answer the check does not verify (a
    refusal, a word no passage holds, an unsupported claim) is answered once the other way.
    """
    issues = list(critic.issues)
    issues += [issue for issue in check.issues if issue not in issues]
    # The answer's own judgement counts too: an answer written as not sufficient is no
    # verified one, whatever the critic says afterwards.
    self_doubt = answer_doubts and check.sufficient
    if self_doubt:
        issues.append("The answer itself found the evidence insufficient.")
    grounded = (
        critic.grounded
        and not check.unsupported
        and check.sufficient
        and not check.doubtful
        and not self_doubt
    )
    confidence = min(critic.confidence, check.supported_share)
    if not check.sufficient:
        confidence = min(confidence, NOT_FOUND_CONFIDENCE)
    feedback = critic.feedback
    if check.unsupported and not feedback:
        feedback = "; ".join(check.issues)
    # A word no document holds cannot be found by searching again, and an answer that says
    # the documents do not hold it is tried again only if its critic asks.
    own_doubt = (bool(check.unsupported) or not check.sufficient) and not check.refusal
    should_retry = not grounded and not check.absent and (critic.should_retry or own_doubt)
    if other_way:
        should_retry = not grounded and not retry_count
    return Verdict(
        grounded=grounded,
        confidence=confidence,
        issues=issues,
        feedback=feedback,
        should_retry=should_retry and not error,
        error=error,
        sufficient=check.sufficient,
        answer=check.answer if check.markers_added else "",
        check=check,
    )
