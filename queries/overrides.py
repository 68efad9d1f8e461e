"""A re-run's overrides: the check of what a request asks to change.

Which settings may change, and their ranges, are PipelineConfig's (queries/pipeline/config.py):
`PipelineConfig.with_overrides` applies them to a run, and its snapshot records them, so that
the snapshot says what the run really ran with and two runs can be compared.
"""

from __future__ import annotations

from typing import Any

from adrag_site.errors import ServiceError
from queries.inputs import RerunInput


def overrides_validate(*, raw: Any, user) -> dict[str, Any]:
    """Return the checked overrides of a re-run request; raise ServiceError 400 (404 for a KB)."""
    from knowledge.selectors import kb_ids_for_user

    if raw is None:
        return {}
    checked = RerunInput(data=raw).validated()
    if "knowledge_bases" in checked:
        readable = set(kb_ids_for_user(user=user))
        missing = [k for k in checked["knowledge_bases"] if k not in readable]
        if missing:
            raise ServiceError(404, "not_found", f"No such knowledge base: {missing[0]}.")
    return checked
