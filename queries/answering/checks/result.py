"""What the check found of an answer: each claim's support, and the rules' findings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from queries.answering.checks.claims import Claim

if TYPE_CHECKING:
    from queries.answering.checks.reading import Reading

NOT_FOUND = "not_found"
DOUBT = "doubt"


@dataclass(frozen=True)
class Finding:
    """What a rule found: how serious, and what a reader should know ("" says nothing)."""

    rule: str
    severity: str
    message: str = ""
    # Only the first such finding's message is shown: they explain the same doubt.
    exclusive: bool = False


@dataclass
class AnswerCheck:
    """What the check found: each claim's support, and the rules' findings."""

    answer: str
    claims: list[Claim] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    refusal: bool = False
    markers_added: int = 0
    # The share of the question's words (by weight) the evidence holds, each word's part,
    # and the words it lacks; those no searched document holds at all.
    coverage: float = 1.0
    terms: list[tuple[str, float, bool]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    # Names the question holds that the supporting passages lack.
    unnamed: list[str] = field(default_factory=list)
    # The words of the thing asked for ("shift pattern") that the evidence never mentions.
    unasked: list[str] = field(default_factory=list)
    # Near misses: the question's "sabbatical leave" where the passages say "annual leave".
    contrasts: list[tuple[str, str]] = field(default_factory=list)
    # The first sentence gives no value of the type asked for from a passage about it.
    unfitting: bool = False

    @property
    def sufficient(self) -> bool:
        """Whether the documents answer the question (no rule found them silent)."""
        return not any(finding.severity == NOT_FOUND for finding in self.findings)

    @property
    def doubtful(self) -> bool:
        """Whether the answer may miss the question though the documents may answer it."""
        return self.sufficient and any(finding.severity == DOUBT for finding in self.findings)

    @property
    def unsupported(self) -> list[Claim]:
        return [claim for claim in self.claims if claim.problem]

    @property
    def supported_share(self) -> float:
        if not self.claims:
            return 0.0
        return (len(self.claims) - len(self.unsupported)) / len(self.claims)

    @property
    def supporting(self) -> list[int]:
        """Return the passages that support a claim, in the order the answer cites them."""
        return list(dict.fromkeys(c.supported_by for c in self.claims if c.supported_by))

    @property
    def issues(self) -> list[str]:
        """Return what a reader should know, one line each: the claims' problems, then the
        findings (of findings that explain the same doubt, the first)."""
        issues = [f'{claim.problem}: "{shorten(claim.text)}"' for claim in self.unsupported]
        shown_exclusive = False
        # What makes the answer "not found" is said before what only leaves it unverified.
        ordered = sorted(self.findings, key=lambda finding: finding.severity != NOT_FOUND)
        for finding in ordered:
            if not finding.message or finding.message in issues:
                continue
            if finding.exclusive:
                if shown_exclusive:
                    continue
                shown_exclusive = True
            issues.append(finding.message)
        return issues


def shorten(text: str, limit: int = 120) -> str:
    """Return text cut to `limit` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class Rule:
    """A check of an answer against its question and passages; `apply` adds findings (the rules
    are listed in queries/answering/checks/rules.py)."""

    name: ClassVar[str] = ""

    def apply(self, reading: Reading) -> None:
        raise NotImplementedError

    def find(
        self, reading: Reading, severity: str, message: str = "", *, exclusive: bool = False
    ) -> None:
        reading.result.findings.append(Finding(self.name, severity, message, exclusive))
