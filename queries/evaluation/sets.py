"""Evaluation sets read from files: CSV, JSON Lines, or a JSON list (the bench's
`{"questions": [...]}` too), each item checked, every bad line reported with its number.

An item: `question` (required); the gold, at least one of `answers` (any one counts; CSV
`answer` or `answers`, several values separated by `|`), `answers_all` (every one must appear),
`passage` (text of the passage that holds the answer), `not_in_documents` (true: the documents
do not hold the answer; the bench's `kind: "unanswerable"` says the same); optionally
`sources` (the files that hold it; CSV `document` or `documents`), `turns` (earlier questions of
a follow-up, asked first in one conversation), `standalone_contains`, `id`, `kind`.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from adrag_site.errors import ServiceError

UNANSWERABLE = "unanswerable"
LIST_FIELDS = ("answers", "answers_all", "sources", "turns", "standalone_contains")
TEXT_FIELDS = ("question", "passage", "id", "kind")
# CSV columns and JSON keys that are other names of a field.
ALIASES = {"answer": "answers", "document": "sources", "documents": "sources"}
FIELDS = {*LIST_FIELDS, *TEXT_FIELDS, "not_in_documents", *ALIASES}
TRUE_WORDS = {"true", "yes", "1", "y"}
FALSE_WORDS = {"false", "no", "0", "n", ""}
# Errors listed in one answer at most: the first ones say what is wrong.
MAX_ERRORS_SHOWN = 50


@dataclass
class ParsedQuestion:
    position: int
    question: str
    kind: str
    external_id: str
    gold: dict[str, Any]


def _as_list(value: Any, *, csv_cell: bool) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        parts = value.split("|") if csv_cell else [value]
        return [part.strip() for part in parts if part.strip()]
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return [str(v).strip() for v in value if str(v).strip()]
    raise ValueError("must be a string or a list of strings")


def _as_flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in TRUE_WORDS | FALSE_WORDS:
        return value.strip().lower() in TRUE_WORDS
    raise ValueError("must be true or false")


def question_parse(record: Any, *, position: int, csv_row: bool = False) -> ParsedQuestion:
    """Return one checked item, or raise ValueError saying what is wrong with it."""
    if not isinstance(record, dict):
        raise ValueError("an item must be an object with a 'question'")
    unknown = sorted(str(key) for key in record if key not in FIELDS and key is not None)
    if unknown:
        raise ValueError(
            f"unknown field {unknown[0]!r}; the fields are {', '.join(sorted(FIELDS))}"
        )
    values: dict[str, Any] = {}
    for key, value in record.items():
        name = ALIASES.get(key, key)
        try:
            if name in LIST_FIELDS:
                values[name] = values.get(name, []) + _as_list(value, csv_cell=csv_row)
            elif name == "not_in_documents":
                values[name] = _as_flag(value)
            elif value is not None and not isinstance(value, str | int):
                raise ValueError("must be a string")
            else:
                values[name] = "" if value is None else str(value).strip()
        except ValueError as error:
            raise ValueError(f"{key}: {error}") from None
    return _checked(values, position)


def _checked(values: dict[str, Any], position: int) -> ParsedQuestion:
    question = values.get("question", "")
    if not question:
        raise ValueError("question: missing or empty")
    if len(question) > settings.MAX_QUERY_CHARS:
        raise ValueError(f"question: longer than {settings.MAX_QUERY_CHARS} characters")
    unanswerable = values.get("not_in_documents", False) or values.get("kind") == UNANSWERABLE
    kind = UNANSWERABLE if unanswerable else values.get("kind", "")
    has_gold = any(values.get(name) for name in ("answers", "answers_all", "passage"))
    if unanswerable and has_gold:
        raise ValueError("an item not in the documents has no expected answer or passage")
    if not unanswerable and not has_gold:
        raise ValueError("no gold: give answers, answers_all or passage, or not_in_documents: true")
    gold = {name: values[name] for name in LIST_FIELDS if values.get(name)}
    if values.get("passage"):
        gold["passage"] = values["passage"]
    return ParsedQuestion(
        position=position,
        question=question,
        kind=kind,
        external_id=values.get("id", "")[:200],
        gold=gold,
    )


def _records(data: bytes, file_name: str) -> list[tuple[int, Any, bool]]:
    """Return (line, record, from CSV) for each item of the file, or raise ServiceError 400."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ServiceError(400, "invalid_evaluation_set", "The file is not UTF-8 text.") from None
    name = file_name.lower()
    if name.endswith(".csv"):
        reader = csv.DictReader(io.StringIO(text))
        if not reader.fieldnames or "question" not in reader.fieldnames:
            raise ServiceError(
                400,
                "invalid_evaluation_set",
                "A CSV set needs a header row with a question column.",
            )
        return [(reader.line_num, row, True) for row in reader]
    if name.endswith(".json"):
        return _json_records(text)
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                records.append((number, json.loads(line), False))
            except ValueError as error:
                records.append((number, ValueError(f"not JSON: {error.msg}"), False))
    return records


def _json_records(text: str) -> list[tuple[int, Any, bool]]:
    try:
        document = json.loads(text)
    except ValueError as error:
        raise ServiceError(
            400, "invalid_evaluation_set", f"Not JSON: {error.msg} (line {error.lineno})."
        ) from None
    if isinstance(document, dict) and isinstance(document.get("questions"), list):
        document = document["questions"]
    if not isinstance(document, list):
        raise ServiceError(
            400, "invalid_evaluation_set", 'A JSON set is a list of items or {"questions": [...]}.'
        )
    return [(number, record, False) for number, record in enumerate(document, start=1)]


def set_file_parse(*, data: bytes, file_name: str) -> list[ParsedQuestion]:
    """Return the items of an uploaded set, or raise ServiceError 400 `invalid_evaluation_set`
    listing each bad line (`details.errors`: line and error)."""
    records = _records(data, file_name)
    parsed: list[ParsedQuestion] = []
    errors: list[dict[str, Any]] = []
    for line, record, csv_row in records:
        try:
            if isinstance(record, ValueError):
                raise record
            parsed.append(question_parse(record, position=len(parsed) + 1, csv_row=csv_row))
        except ValueError as error:
            errors.append({"line": line, "error": str(error)})
    if errors:
        raise ServiceError(
            400,
            "invalid_evaluation_set",
            f"{len(errors)} bad line{'s' if len(errors) > 1 else ''} (the first on line "
            f"{errors[0]['line']}: {errors[0]['error']}); nothing was saved.",
            details={"errors": errors[:MAX_ERRORS_SHOWN]},
        )
    if not parsed:
        raise ServiceError(400, "invalid_evaluation_set", "The file holds no questions.")
    if len(parsed) > settings.EVALUATION_MAX_QUESTIONS:
        raise ServiceError(
            400,
            "invalid_evaluation_set",
            f"The set has {len(parsed)} questions; the limit is {settings.EVALUATION_MAX_QUESTIONS}.",
        )
    return parsed
