"""The inputs of the streaming endpoints and of POST /api/search, one serializer each, and
their errors.

`QueryInput` is the body of POST /api/query, `RerunInput` the body of POST
/api/runs/<id>/rerun, `SearchInput` the body of POST /api/search (sharing the query's checks
and error codes with `QueryInput`). The views validate with them, the re-run service checks a re-run's
settings with `RerunInput`, and the OpenAPI schema (queries/schema.py) is drawn from them, so
the three never disagree. The fields that both bodies carry (provider, model, knowledge bases)
are the same field classes.

Each error keeps its stable code: POST /api/query answers with the code of the first field
that failed (`missing_query`, `invalid_provider`, ...; the spec's two messages unchanged), a
re-run with `invalid_override` naming the setting in `details.key`.
"""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from adrag_site.errors import ServiceError
from knowledge.ingest.filetypes import SUPPORTED_EXTENSIONS
from knowledge.retrieval.filters import MAX_FILTER_DOCUMENTS
from knowledge.retrieval.stores import fusion_lists
from providers.llm.registry import default_provider_name, provider_names
from queries.models import QueryRun
from queries.pipeline.config import RERUN_RANGES, TUNABLES

MISSING_QUERY = "Missing or empty 'query' field"
# The spec's message, with the providers this portal adds after it.
SPEC_BAD_PROVIDER = "provider must be 'openai' or 'ollama'"
MAX_MODEL_CHARS = QueryRun._meta.get_field("model").max_length


def bad_provider_message() -> str:
    """Return the spec's unknown-provider message, naming this portal's other providers too."""
    others = [name for name in provider_names() if name not in ("openai", "ollama")]
    if not others:
        return SPEC_BAD_PROVIDER
    return f"{SPEC_BAD_PROVIDER} (or {', '.join(repr(name) for name in others)})"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class StrictIntegerField(serializers.IntegerField):
    """An integer as JSON writes one: no strings of digits, no booleans."""

    def to_internal_value(self, data):
        if not _is_int(data):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictCharField(serializers.CharField):
    """A string as JSON writes one: DRF's CharField would take 42 as "42"."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictUUIDField(serializers.UUIDField):
    """A UUID written as a string: DRF's UUIDField would take 12 as UUID(int=12)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid", value=data)
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """true or false: DRF's BooleanField would take "off" and 0 as false."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class ProviderField(serializers.ChoiceField):
    """A provider's name, case-insensitive: one of the registry's (built-in or plugin)."""

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("help_text", "Case-insensitive.")
        super().__init__(choices=list(provider_names()), **kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_choice", input=data)
        return super().to_internal_value(data.lower().strip())


class ModelField(StrictCharField):
    """The provider's model; null or empty for its default."""

    def __init__(self, **kwargs) -> None:
        super().__init__(
            allow_null=True,
            allow_blank=True,
            max_length=MAX_MODEL_CHARS,
            required=False,
            error_messages={
                "invalid": "must be a string, or null for the provider's default.",
                "max_length": "is too long: the limit is {max_length} characters.",
            },
            **kwargs,
        )


class KnowledgeBaseIdsField(serializers.ListField):
    """Knowledge base ids (their access is checked by the service that uses them)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(child=StrictIntegerField(), required=False, **kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, list) or not all(_is_int(k) for k in data):
            raise serializers.ValidationError(
                "must be a list of knowledge base ids.", code="invalid"
            )
        return list(dict.fromkeys(data))


MOMENT = {"type": "string", "anyOf": [{"format": "date"}, {"format": "date-time"}]}


@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "additionalProperties": False,
        "description": "Metadata filters applied inside every document store's search (not to "
        "web search). Empty lists or nulls leave a part unfiltered.",
        "properties": {
            "documents": {
                "type": "array",
                "items": {"type": "integer", "minimum": 1},
                "maxItems": MAX_FILTER_DOCUMENTS,
                "description": "Only these documents (each in a searched knowledge base).",
            },
            "file_types": {
                "type": "array",
                "items": {"type": "string", "enum": sorted(SUPPORTED_EXTENSIONS)},
                "description": "Only these upload extensions (case-insensitive; md matches "
                ".markdown, html matches .htm).",
            },
            "uploaded_after": {
                **MOMENT,
                "description": "Uploaded at or after: an ISO date (midnight UTC) or date-time "
                "(naive ones are UTC).",
            },
            "uploaded_before": {
                **MOMENT,
                "description": "Uploaded before: a date-time, or an ISO date (that whole day "
                "included).",
            },
        },
    }
)
class FiltersField(serializers.JSONField):
    """Metadata filters, checked with the user's access by `queries.filters.filters_validate`."""


class QuestionInput(serializers.Serializer):
    """What POST /api/query and POST /api/search both take: the query, checked one way, and
    errors answered with the code of the first field that failed."""

    query = StrictCharField(
        help_text="The question (at most MAX_QUERY_CHARS characters).",
        error_messages={
            "required": MISSING_QUERY,
            "blank": MISSING_QUERY,
            "null": "'query' must be a string",
            "invalid": "'query' must be a string",
        },
    )

    # The code and message of each field's errors (the query's own are told apart below).
    CODES: dict[str, str] = {"filters": "invalid_filters"}
    MESSAGES: dict[str, str] = {}

    def validate_query(self, value: str) -> str:
        limit = settings.MAX_QUERY_CHARS
        if len(value) > limit:
            raise serializers.ValidationError(
                f"'query' is too long: the limit is {limit} characters.", code="query_too_long"
            )
        return value

    def query_error(self) -> ServiceError:
        """Return the 400 of the first field that failed, with its stable code."""
        key, detail = first_error(self.errors)
        if key == "query":
            code = {
                "required": "missing_query",
                "blank": "missing_query",
                "query_too_long": "query_too_long",
            }.get(detail.code, "invalid_query")
            return ServiceError(400, code, str(detail))
        if key == "non_field_errors":
            return ServiceError(400, "missing_query", MISSING_QUERY)
        code = self.CODES.get(key.split(".")[0], "invalid_request")
        message = self.MESSAGES.get(key.split(".")[0], "{}").format(detail)
        return ServiceError(400, code, message)


class QueryInput(QuestionInput):
    """The body of POST /api/query."""

    provider = ProviderField(required=False)
    model = ModelField(help_text="The provider's model; default the provider's default model.")
    knowledge_bases = KnowledgeBaseIdsField(
        allow_null=True,
        help_text="The knowledge bases to search; default every one the caller may read.",
    )
    filters = FiltersField(required=False, allow_null=True)
    answer_deltas = StrictBooleanField(
        required=False,
        default=False,
        help_text="true: the stream also carries the answer as it is written (`answer_delta` "
        "frames) and the `waiting` notice, as GET /api/runs/{run_id}/events does; the portal's "
        "page asks for them. Omitted or false: the spec's event types only.",
    )
    conversation = StrictUUIDField(
        required=False,
        allow_null=True,
        help_text="Ask a follow-up in this conversation of the caller's (the "
        "`X-Conversation-Id` of an earlier answer); omitted or null starts a new one.",
    )

    # The code of each field's errors (the query's own are told apart in `query_error`).
    CODES = {
        "provider": "invalid_provider",
        "model": "invalid_model",
        "knowledge_bases": "invalid_knowledge_bases",
        "filters": "invalid_filters",
        "conversation": "invalid_conversation",
    }
    MESSAGES = {
        "model": "'model' {}",
        "knowledge_bases": "'knowledge_bases' {}",
        "conversation": "'conversation' must be a conversation id (a UUID).",
    }

    def to_internal_value(self, data):
        if isinstance(data, dict) and "knowledge_bases" not in data and "knowledgeBases" in data:
            data = {**data, "knowledge_bases": data["knowledgeBases"]}  # the spec's spelling
        return super().to_internal_value(data)

    def validated(self) -> dict[str, Any]:
        """Return the checked body with its defaults, or raise ServiceError 400."""
        if not self.is_valid():
            raise self.query_error()
        data = dict(self.validated_data)
        data.setdefault("provider", default_provider_name())
        data["model"] = (data.get("model") or "").strip() or None
        data.setdefault("knowledge_bases", None)
        data.setdefault("filters", None)
        conversation = data.get("conversation")
        data["conversation"] = str(conversation) if conversation else None
        return data

    def query_error(self) -> ServiceError:
        key, detail = first_error(self.errors)
        if key == "provider":
            return ServiceError(400, "invalid_provider", bad_provider_message())
        if key == "model" and detail.code == "max_length":
            return ServiceError(400, "model_too_long", f"'model' {detail}")
        return super().query_error()


# How many passages a search returns, by default and at most (POST /api/search, MCP `search`).
SEARCH_PASSAGES_DEFAULT = 8
MAX_SEARCH_PASSAGES = 50


class SearchInput(QuestionInput):
    """The body of POST /api/search: the MCP `search` tool's arguments."""

    knowledge_bases = KnowledgeBaseIdsField(
        allow_null=True,
        help_text="The knowledge bases to search; default every one the caller may read.",
    )
    filters = FiltersField(required=False, allow_null=True)
    k = StrictIntegerField(
        required=False,
        default=SEARCH_PASSAGES_DEFAULT,
        min_value=1,
        max_value=MAX_SEARCH_PASSAGES,
        help_text=f"How many passages (1 to {MAX_SEARCH_PASSAGES}).",
    )

    CODES = {**QuestionInput.CODES, "knowledge_bases": "invalid_knowledge_bases"}
    MESSAGES = {
        "knowledge_bases": "'knowledge_bases' {}",
        "k": f"'k' must be an integer from 1 to {MAX_SEARCH_PASSAGES}.",
    }

    def validated(self) -> dict[str, Any]:
        """Return the checked body with its defaults, or raise ServiceError 400."""
        if not self.is_valid():
            raise self.query_error()
        data = dict(self.validated_data)
        data.setdefault("knowledge_bases", None)
        data.setdefault("filters", None)
        return data


MAX_FUSION_WEIGHT = 100.0


@extend_schema_field(
    {
        "type": "object",
        "properties": {
            name: {"type": "number", "minimum": 0, "maximum": MAX_FUSION_WEIGHT}
            for name in fusion_lists()
        },
        "additionalProperties": False,
        "minProperties": 1,
        "description": "Rank-fusion weights of the candidate lists; unnamed lists keep theirs.",
    }
)
class FusionWeightsField(serializers.DictField):
    """Rank-fusion weights of the candidate lists; a list not named keeps its weight."""

    def to_internal_value(self, data):
        lists = fusion_lists()
        if not isinstance(data, dict) or not data:
            raise serializers.ValidationError(
                f"must be an object with weights for {', '.join(lists)}."
            )
        for name, weight in data.items():
            if name not in lists:
                raise serializers.ValidationError(
                    {name: [f"unknown list; the lists are {', '.join(lists)}."]}
                )
            number = isinstance(weight, int | float) and not isinstance(weight, bool)
            if not number or not math.isfinite(weight) or not 0 <= weight <= MAX_FUSION_WEIGHT:
                raise serializers.ValidationError(
                    {name: [f"must be a number from 0 to {MAX_FUSION_WEIGHT:g}."]}
                )
        return {name: float(weight) for name, weight in data.items()}


def _int_setting(name: str) -> StrictIntegerField:
    """An integer setting a re-run may change, within its RERUN_RANGES."""
    lowest, highest = RERUN_RANGES[name]
    return StrictIntegerField(
        required=False, min_value=lowest, max_value=highest, help_text=TUNABLES[name].help
    )


class RerunInput(serializers.Serializer):
    """The body of POST /api/runs/<id>/rerun: the settings to change; the rest are the
    original run's."""

    provider = ProviderField(required=False)
    model = ModelField(help_text="null: the provider's default model.")
    knowledge_bases = KnowledgeBaseIdsField(
        help_text="The knowledge bases to search instead of the original's."
    )
    fusion_weights = FusionWeightsField(
        child=serializers.FloatField(min_value=0, max_value=MAX_FUSION_WEIGHT), required=False
    )
    reranker = StrictBooleanField(
        required=False,
        help_text="false: no reranking, the fused order is kept (scored by fused rank).",
    )

    def get_fields(self):
        """The declared fields, and one per tunable a re-run may change (RERUN_RANGES)."""
        fields = super().get_fields()
        fields.update({name: _int_setting(name) for name in RERUN_RANGES})
        return fields

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError(
                {"non_field_errors": ["The body must be a JSON object of settings to change."]}
            )
        unknown = [key for key in data if key not in self.fields]
        if unknown:
            raise serializers.ValidationError(
                {
                    unknown[0]: [
                        f"unknown setting; the settings a re-run may change are "
                        f"{', '.join(self.fields)}."
                    ]
                }
            )
        return super().to_internal_value(data)

    def validated(self) -> dict[str, Any]:
        """Return the settings asked for, or raise ServiceError 400 `invalid_override`."""
        if not self.is_valid():
            key, detail = first_error(self.errors)
            if key == "non_field_errors":
                raise ServiceError(400, "invalid_override", str(detail))
            message = str(detail)
            if detail.code in ("invalid", "invalid_choice", "min_value", "max_value", "null"):
                message = self.field_rule(key) or message
            raise ServiceError(400, "invalid_override", f"{key}: {message}", details={"key": key})
        data = dict(self.validated_data)
        if "model" in data:
            data["model"] = (data["model"] or "").strip() or None
        return data

    def field_rule(self, key: str) -> str:
        """Return what a setting must be, in words."""
        if key in RERUN_RANGES:
            lowest, highest = RERUN_RANGES[key]
            return f"must be an integer from {lowest} to {highest}."
        if key == "provider":
            return f"must be one of {', '.join(self.fields['provider'].choices)}."
        if key == "reranker":
            return "must be true (the active reranker) or false (fused order)."
        return ""


def first_error(errors: dict) -> tuple[str, ErrorDetail]:
    """Return the dotted key and the detail of a serializer's first error."""
    key, value = next(iter(errors.items()))
    while True:
        if isinstance(value, dict) and value:
            inner, value = next(iter(value.items()))
            key = f"{key}.{inner}"
        elif isinstance(value, list) and value:
            value = value[0]
        else:
            break
    if not isinstance(value, ErrorDetail):
        value = ErrorDetail(str(value), code="invalid")
    return key, value
