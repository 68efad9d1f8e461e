"""Metadata filters: which documents a search may return, applied inside each store's SQL.

A filter narrows a search to documents by id, file type and upload time (`Document.created_at`:
re-uploading the same bytes re-indexes a document but keeps its upload time). Each store puts
the filter in the WHERE clause of its own query, so a filtered-out document is never scored,
never ranked and never returned; nothing is dropped after the fact.

Bounds are half-open: `uploaded_after` is "at or after", `uploaded_before` is "before". A date
(no time) means midnight UTC, and a date as `uploaded_before` includes that whole day, so
`{"uploaded_after": "2025-03-01", "uploaded_before": "2025-03-01"}` is the 1st of March. A naive
date-time is UTC. File types are the upload extensions (`knowledge.ingest.filetypes`), compared
case-insensitively; `md` also matches `.markdown` files and `html` matches `.htm`, as they are
one kind. An empty list or a null value leaves that part unfiltered.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NoReturn

from adrag_site.dates import day_start, parse_moment
from adrag_site.errors import ServiceError
from knowledge.ingest.filetypes import SUPPORTED_EXTENSIONS

INVALID_FILTERS = "invalid_filters"
FILTER_KEYS = ("documents", "file_types", "uploaded_after", "uploaded_before")
MAX_FILTER_DOCUMENTS = 500
_POSTGRES_MAX_INT = 2**63 - 1
# Extensions that name one kind of file: asking for either finds both.
_SAME_KIND = ({"md", "markdown"}, {"html", "htm"})


@dataclass(frozen=True)
class DocumentFilter:
    """A parsed, validated filter; `uploaded_from`/`uploaded_until` are the SQL bounds."""

    documents: tuple[int, ...] = ()
    file_types: tuple[str, ...] = ()
    uploaded_after: str = ""
    uploaded_before: str = ""
    uploaded_from: datetime | None = None
    uploaded_until: datetime | None = None

    @property
    def is_empty(self) -> bool:
        return not (self.documents or self.file_types or self.uploaded_from or self.uploaded_until)

    def to_json(self) -> dict[str, Any]:
        """Return the filter as stored on a run and echoed by the API (set keys only)."""
        stored: dict[str, Any] = {}
        if self.documents:
            stored["documents"] = list(self.documents)
        if self.file_types:
            stored["file_types"] = list(self.file_types)
        if self.uploaded_after:
            stored["uploaded_after"] = self.uploaded_after
        if self.uploaded_before:
            stored["uploaded_before"] = self.uploaded_before
        return stored

    def matched_file_types(self) -> list[str]:
        """Return every stored file type the filter's types match (with their same-kind twins)."""
        matched = set(self.file_types)
        for kind in _SAME_KIND:
            if matched & kind:
                matched |= kind
        return sorted(matched)

    def document_sql(self, *, kbs_param: str = "kbs") -> tuple[str, dict[str, Any]]:
        """Return `SELECT d.id ...` of the searched KBs' documents that pass, and its parameters.

        The subquery names the searched KBs itself (`%(kbs)s` of the caller's parameters), so
        it stays small however large the documents table grows.
        """
        where, params = self.document_where(kbs_param=kbs_param)
        return f"SELECT d.id FROM knowledge_document d WHERE {where}", params

    def document_where(self, *, kbs_param: str = "kbs") -> tuple[str, dict[str, Any]]:
        """Return the WHERE conditions on `knowledge_document d` and their parameters."""
        conditions = [f"d.knowledge_base_id = ANY(%({kbs_param})s)"]
        params: dict[str, Any] = {}
        if self.documents:
            conditions.append("d.id = ANY(%(filter_documents)s)")
            params["filter_documents"] = list(self.documents)
        if self.file_types:
            conditions.append("lower(d.file_type) = ANY(%(filter_file_types)s)")
            params["filter_file_types"] = self.matched_file_types()
        if self.uploaded_from is not None:
            conditions.append("d.created_at >= %(filter_uploaded_from)s")
            params["filter_uploaded_from"] = self.uploaded_from
        if self.uploaded_until is not None:
            conditions.append("d.created_at < %(filter_uploaded_until)s")
            params["filter_uploaded_until"] = self.uploaded_until
        return " AND ".join(conditions), params

    def chunk_sql(self, *, kbs_param: str = "kbs") -> tuple[str, dict[str, Any]]:
        """Return `SELECT c.id ...` of the searched KBs' chunks whose document passes."""
        documents, params = self.document_sql(kbs_param=kbs_param)
        return (
            f"SELECT c.id FROM knowledge_chunk c WHERE c.knowledge_base_id = ANY(%({kbs_param})s) "
            f"AND c.document_id IN ({documents})",
            params,
        )


NO_FILTER = DocumentFilter()


def as_filter(value: DocumentFilter | dict | None) -> DocumentFilter:
    """Return a DocumentFilter for a parsed filter, a stored one (a run's JSON), or None."""
    if value is None:
        return NO_FILTER
    if isinstance(value, DocumentFilter):
        return value
    return parse_filters(value)


def parse_filters(raw: Any) -> DocumentFilter:
    """Validate a request's `filters` object; raise ServiceError 400 `invalid_filters`."""
    if raw is None:
        return NO_FILTER
    if not isinstance(raw, dict):
        _refuse("'filters' must be an object.")
    unknown = sorted(str(key) for key in raw if key not in FILTER_KEYS)
    if unknown:
        _refuse(
            f"Unknown filter '{unknown[0][:60]}': the filters are " + ", ".join(FILTER_KEYS) + "."
        )
    documents = _document_ids(raw.get("documents"))
    file_types = _file_types(raw.get("file_types"))
    after_text, uploaded_from = _bound(raw.get("uploaded_after"), "uploaded_after", end=False)
    before_text, uploaded_until = _bound(raw.get("uploaded_before"), "uploaded_before", end=True)
    if uploaded_from is not None and uploaded_until is not None and uploaded_from >= uploaded_until:
        _refuse("'uploaded_after' must be earlier than 'uploaded_before'.")
    return DocumentFilter(
        documents=documents,
        file_types=file_types,
        uploaded_after=after_text,
        uploaded_before=before_text,
        uploaded_from=uploaded_from,
        uploaded_until=uploaded_until,
    )


def _refuse(message: str) -> NoReturn:
    raise ServiceError(400, INVALID_FILTERS, message)


def _document_ids(value: Any) -> tuple[int, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(item, int) and not isinstance(item, bool) for item in value
    ):
        _refuse("'documents' must be a list of document ids.")
    if len(value) > MAX_FILTER_DOCUMENTS:
        _refuse(f"'documents' may name at most {MAX_FILTER_DOCUMENTS} documents.")
    if any(item < 1 or item > _POSTGRES_MAX_INT for item in value):
        _refuse("'documents' must be a list of document ids.")
    return tuple(dict.fromkeys(value))


def _file_types(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        _refuse("'file_types' must be a list of file types such as pdf or md.")
    types = []
    for item in value:
        name = item.strip().lstrip(".").lower()
        if name not in SUPPORTED_EXTENSIONS:
            _refuse(
                f"Unknown file type '{item[:40]}': the types are "
                + ", ".join(sorted(SUPPORTED_EXTENSIONS))
                + "."
            )
        types.append(name)
    return tuple(dict.fromkeys(types))


def _bound(value: Any, field: str, *, end: bool) -> tuple[str, datetime | None]:
    """Return the normalised text and the SQL bound of an ISO date or date-time."""
    if value is None or value == "":
        return "", None
    message = f"'{field}' must be an ISO date (2025-03-01) or date-time (2025-03-01T09:30:00Z)."
    if not isinstance(value, str) or len(value) > 64:
        _refuse(message)
    moment = parse_moment(value)
    if isinstance(moment, datetime):
        return moment.isoformat().replace("+00:00", "Z"), moment
    if moment is not None:
        start = day_start(moment)
        try:
            return moment.isoformat(), (start + timedelta(days=1)) if end else start
        except OverflowError:  # the day after 9999-12-31
            pass
    _refuse(message)
