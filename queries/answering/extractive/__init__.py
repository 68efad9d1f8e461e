"""The offline `extractive` strategy, one module per concern.

`followups` makes a follow-up stand alone, `questions` holds the planner's rules,
`arithmetic` computes arithmetic safely, `sentences` splits sources into quotable sentences,
`entities` spots the entity a question asks for, `scoring` ranks sentences, `structured`
reads tables and lists, `feedback` reads the critic's feedback, and `strategy` puts them
together behind the Strategy interface.
"""

from __future__ import annotations

from queries.answering.extractive.strategy import NOT_FOUND, ExtractiveStrategy

__all__ = ["NOT_FOUND", "ExtractiveStrategy"]
