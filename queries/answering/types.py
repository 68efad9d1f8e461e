"""The values answering strategies return: plans, answers, critiques, and the evidence blocks.

Typed, so a node reads `answer.answered_by`, not `result.get("answered_by") == "..."`; each
converts from a model's JSON reply with the spec's tolerance (missing keys take defaults).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

# Who wrote an answer when a strategy has more than one way: the model, or the passages quoted.
AnsweredBy = Literal["model", "extractive", "table"]
BY_MODEL: AnsweredBy = "model"
BY_QUOTE: AnsweredBy = "extractive"
# A table program computed the answer (knowledge/tables/): every provider answers so.
BY_TABLE: AnsweredBy = "table"
# Who planned: the rules, or the model.
PlannedBy = Literal["rules", "model"]
# How a strategy retries an answer the check did not verify: "again" searches again and
# answers with the critique; "other_way" answers the other way (a quote after the model, the
# model after a quote) from the same passages.
RetryMode = Literal["again", "other_way"]
AGAIN: RetryMode = "again"
OTHER_WAY: RetryMode = "other_way"


def _bool(value: Any, default: bool) -> bool:
    """Return a model's yes or no: JSON's true and false, or the words ("false" is no)."""
    if value is None:
        return default
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("true", "yes", "1"):
            return True
        if word in ("false", "no", "0", ""):
            return False
        return default
    return bool(value)


def _float(value: Any, default: float = 0.0) -> float:
    """Return a model's number between 0 and 1 (a confidence): NaN or junk is the default."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return min(max(number, 0.0), 1.0) if math.isfinite(number) else default


def _strings(value: Any) -> tuple[str, ...]:
    """Return a model's list of strings; a lone string is a list of one."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if isinstance(value, list | tuple):
        return tuple(str(item) for item in value)
    return (str(value),)


@dataclass(frozen=True)
class Plan:
    """What the planner decided: retrieve, search the web, the kind of question, and why."""

    retrieve: bool = True
    use_external: bool = False
    query_type: str = "factual"
    reasoning: str = ""
    planned_by: PlannedBy | None = None
    # An arithmetic expression the rules found ("15% of 200"): computed, not searched.
    expression: str | None = None

    @classmethod
    def from_reply(cls, reply: dict[str, Any], planned_by: PlannedBy | None = None) -> Plan:
        return cls(
            retrieve=_bool(reply.get("retrieve"), True),
            use_external=_bool(reply.get("use_external"), False),
            query_type=str(reply.get("query_type") or "factual"),
            reasoning=str(reply.get("reasoning") or ""),
            planned_by=planned_by,
        )

    @property
    def plain_lookup(self) -> bool:
        """Whether this is a plain document lookup: retrieve, no web, a factual question."""
        return self.retrieve and not self.use_external and self.query_type == "factual"


@dataclass(frozen=True)
class Answer:
    """An attempt's answer with its [n] citations, and what the answer says of its evidence."""

    text: str
    confidence: float = 0.0
    cited: tuple[int, ...] = ()
    key_facts: tuple[str, ...] = ()
    # The answer's own judgement of its evidence; None when it gave none (a plain answer).
    is_sufficient: bool | None = None
    answered_by: AnsweredBy | None = None
    # The values the answer asserts as data (a cell read from a table's row), for the `done`
    # metadata's `answer_values`; empty for an answer in words.
    values: tuple = ()

    @classmethod
    def from_reply(cls, reply: dict[str, Any], answered_by: AnsweredBy | None = None) -> Answer:
        cited = []
        declared = reply.get("cited_sources")
        for value in declared if isinstance(declared, list) else [declared] if declared else []:
            try:
                cited.append(int(value))
            except (TypeError, ValueError):
                continue
        text = str(reply.get("answer") or "")
        return cls(
            text=text,
            confidence=_float(reply.get("confidence")),
            cited=tuple(cited),
            key_facts=_strings(reply.get("key_facts")),
            is_sufficient=_bool(reply.get("is_sufficient"), bool(text.strip())),
            answered_by=answered_by,
        )


@dataclass(frozen=True)
class Critique:
    """A critic's verdict on an answer: grounded or not, why, and whether to try again."""

    grounded: bool
    confidence: float = 0.0
    issues: tuple[str, ...] = ()
    feedback: str = ""
    should_retry: bool = False

    @classmethod
    def from_reply(cls, reply: dict[str, Any]) -> Critique:
        return cls(
            grounded=_bool(reply.get("grounded"), False),
            confidence=_float(reply.get("confidence")),
            issues=_strings(reply.get("issues")),
            feedback=str(reply.get("feedback") or ""),
            should_retry=_bool(reply.get("should_retry"), False),
        )


# A critique that leaves the verdict to the deterministic check alone.
DEFER_TO_CHECK = Critique(grounded=True, confidence=1.0)


@dataclass
class SourceBlock:
    """One numbered evidence block the answer may cite as [index].

    `section` is the headings the passage sits under; `kind` says what it is (prose, list,
    row, table) and `structure` holds a row's headers and cells, a run of rows, or a list's
    item count (knowledge/ingest/chunking.py).
    """

    index: int
    file_name: str
    text: str
    source_type: str = "vector"
    rerank_score: float | None = None
    section: tuple[str, ...] = ()
    kind: str = ""
    structure: dict[str, Any] | None = None

    @property
    def context_text(self) -> str:
        """Return the text with what frames it (section path, caption, column headers)."""
        frame = [*self.section]
        structure = self.structure or {}
        if structure.get("caption"):
            frame.append(str(structure["caption"]))
        if structure.get("headers"):
            frame.append(" ".join(str(h) for h in structure["headers"]))
        return "\n".join([*frame, self.text])


@dataclass(frozen=True)
class StructuredAnswer:
    """An answer read from structure: its text with [n] markers, and what it rests on."""

    text: str
    cited: list[int]
    facts: list[str] = field(default_factory=list)
    confidence: float = 0.9
    # The values it asserts as data: the cell a row answer reads (a number as a number).
    values: list = field(default_factory=list)
