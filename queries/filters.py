"""The `filters` of POST /api/query: parsed by knowledge, then checked against what the user sees."""

from __future__ import annotations

from typing import Any

from adrag_site.errors import ServiceError
from knowledge.retrieval.filters import INVALID_FILTERS, parse_filters
from knowledge.selectors import document_list_for_user


def filters_validate(*, raw: Any, user, kb_ids: list[int]) -> dict[str, Any]:
    """Return a request's filters as stored on the run ({} for none).

    Raises ServiceError 400 `invalid_filters` for a malformed filter or a document outside the
    searched knowledge bases, and 404 `not_found` for a document the user cannot read, exactly
    as for a missing one, so another team's document ids are not confirmed.
    """
    document_filter = parse_filters(raw)
    if document_filter.documents:
        visible = dict(
            document_list_for_user(user=user)
            .filter(id__in=document_filter.documents)
            .values_list("id", "knowledge_base_id")
        )
        for document_id in document_filter.documents:
            if document_id not in visible:
                raise ServiceError(404, "not_found", f"No such document: {document_id}.")
        searched = set(kb_ids)
        for document_id in document_filter.documents:
            if visible[document_id] not in searched:
                raise ServiceError(
                    400,
                    INVALID_FILTERS,
                    f"Document {document_id} is not in the knowledge bases searched.",
                )
    return document_filter.to_json()
