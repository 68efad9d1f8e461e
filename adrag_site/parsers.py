"""Request body parsers that refuse what would crash a view or the database, with a 400.

Two kinds of body used to reach the views and end as a 500:
- JSON nested so deeply that the decoder (or any recursive walk after it) overflows the stack;
- strings PostgreSQL cannot store: text cannot hold NUL, and UTF-8 cannot encode a lone
  surrogate (JSON's "\\ud800" decodes to one).
Both are refused here, once, for every API view (REST_FRAMEWORK's DEFAULT_PARSER_CLASSES), and
through `check_value` by the streaming views, which parse their own JSON.
"""

from __future__ import annotations

import re
from typing import Any

from django.http import QueryDict
from rest_framework import parsers
from rest_framework.exceptions import ParseError

# The API's bodies are two levels deep at most; this leaves clients room for extras and stops
# bodies whose only purpose is to exhaust the stack.
MAX_JSON_DEPTH = 32
INVALID_CHARACTERS = re.compile("[\x00\ud800-\udfff]")
TOO_DEEP_MESSAGE = f"JSON body is nested too deeply (the limit is {MAX_JSON_DEPTH} levels)."
INVALID_CHARACTERS_MESSAGE = "Text may not contain NUL characters or lone surrogates."
TOO_DEEP_CODE = "too_deeply_nested"
INVALID_CHARACTERS_CODE = "invalid_characters"


class BodyRefused(ValueError):
    """A body that parsed but cannot be accepted; `code` is the API error code."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def has_invalid_characters(text: str) -> bool:
    """Tell whether the text holds a NUL or a lone surrogate."""
    return INVALID_CHARACTERS.search(text) is not None


def check_value(value: Any) -> None:
    """Raise BodyRefused for a value nested too deeply or holding a string we cannot store."""
    # Iterative, so that checking depth cannot itself overflow the stack.
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if has_invalid_characters(item):
                raise BodyRefused(INVALID_CHARACTERS_MESSAGE, INVALID_CHARACTERS_CODE)
        elif isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise BodyRefused(TOO_DEEP_MESSAGE, TOO_DEEP_CODE)
            if isinstance(item, dict):
                pending.extend((key, depth) for key in item)
                pending.extend((child, depth + 1) for child in item.values())
            else:
                pending.extend((child, depth + 1) for child in item)


def _check_form(data: QueryDict) -> None:
    for key, values in data.lists():
        check_value([key, *values])


def _refuse(exc: BodyRefused) -> ParseError:
    return ParseError(detail=exc.message, code=exc.code)


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, answering 400 for deep nesting and unstorable strings."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(detail=TOO_DEEP_MESSAGE, code=TOO_DEEP_CODE) from None
        try:
            check_value(data)
        except BodyRefused as exc:
            raise _refuse(exc) from None
        return data


class FormParser(parsers.FormParser):
    """DRF's form parser, answering 400 for fields holding unstorable strings."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        try:
            _check_form(data)
        except BodyRefused as exc:
            raise _refuse(exc) from None
        return data


class MultiPartParser(parsers.MultiPartParser):
    """DRF's multipart parser, answering 400 for fields holding unstorable strings.

    Django already strips unprintable characters from uploaded files' names.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        result = super().parse(stream, media_type, parser_context)
        try:
            _check_form(result.data)
        except BodyRefused as exc:
            raise _refuse(exc) from None
        return result
