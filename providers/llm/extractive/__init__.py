"""The offline `extractive` answer provider, one module per concern.

`followups` makes a follow-up stand alone, `questions` reads the question (the planner's
rules, answer types, parts), `arithmetic` computes arithmetic safely, `sentences` splits
sources into quotable sentences, `entities` spots the entity a question asks for, `scoring`
ranks sentences, `feedback` reads the critic's feedback, and `provider` puts them together
behind the AnswerProvider interface.
"""

from __future__ import annotations

from providers.llm.extractive.arithmetic import (
    ArithmeticRejected,
    arithmetic_expression,
    evaluate_arithmetic,
)
from providers.llm.extractive.feedback import UNSUPPORTED_MARKER
from providers.llm.extractive.provider import NOT_FOUND, ExtractiveProvider
from providers.llm.extractive.questions import answer_type, classify, question_parts
from providers.llm.extractive.sentences import parse_context_blocks, split_sentences

__all__ = [
    "NOT_FOUND",
    "UNSUPPORTED_MARKER",
    "ArithmeticRejected",
    "ExtractiveProvider",
    "answer_type",
    "arithmetic_expression",
    "classify",
    "evaluate_arithmetic",
    "parse_context_blocks",
    "question_parts",
    "split_sentences",
]
