"""The JSON schemas of the three JSON stages, sent to servers that constrain output to them.

They follow OpenAI's strict structured-output rules (every property required, no additional
properties), which llama.cpp's server and Ollama also accept, so one schema serves all three.
Parsing still tolerates replies that ignore them: the spec's fallbacks stay in place.
"""

from __future__ import annotations

from typing import Any

PLAN: dict[str, Any] = {
    "type": "object",
    "properties": {
        "retrieve": {"type": "boolean"},
        "use_external": {"type": "boolean"},
        "query_type": {
            "type": "string",
            "enum": [
                "factual",
                "analytical",
                "conversational",
                "computational",
                "coding",
                "current_events",
            ],
        },
        "reasoning": {"type": "string"},
    },
    "required": ["retrieve", "use_external", "query_type", "reasoning"],
    "additionalProperties": False,
}

ANSWER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {
            "type": "string",
            "description": "The answer, each sentence ending with its block number, like [2].",
        },
        "confidence": {"type": "number"},
        "cited_sources": {"type": "array", "items": {"type": "integer"}},
        "key_facts": {"type": "array", "items": {"type": "string"}},
        "is_sufficient": {"type": "boolean"},
    },
    "required": ["answer", "confidence", "cited_sources", "key_facts", "is_sufficient"],
    "additionalProperties": False,
}

VERDICT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "grounded": {"type": "boolean"},
        "confidence": {"type": "number"},
        "issues": {"type": "array", "items": {"type": "string"}},
        "feedback": {"type": "string"},
        "should_retry": {"type": "boolean"},
    },
    "required": ["grounded", "confidence", "issues", "feedback", "should_retry"],
    "additionalProperties": False,
}

# The schema each JSON stage is asked for, with the name OpenAI's json_schema format wants.
BY_STAGE: dict[str, tuple[str, dict[str, Any]]] = {
    "planner": ("plan", PLAN),
    "reasoning": ("answer", ANSWER),
    "reflection": ("verdict", VERDICT),
}
