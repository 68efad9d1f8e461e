"""A re-run's overrides: the check of what a request asks to change.

Which settings may change, and their ranges, are PipelineConfig's (queries/pipeline/config.py):
`PipelineConfig.with_overrides` applies them to a run, and its snapshot records them, so that
the snapshot says what the run really ran with and two runs can be compared.
"""

from __future__ import annotations

from typing import Any

from adrag_site.errors import ServiceError  # noqa: F401 - raised by RerunInput
from knowledge.selectors import kb_ids_readable
from queries.inputs import RerunInput


def overrides_validate(*, raw: Any, user) -> dict[str, Any]:
    """Return the checked overrides of a re-run request; raise ServiceError 400 (404 for a KB)."""
    if raw is None:
        return {}
    checked = RerunInput(data=raw).validated()
    if "knowledge_bases" in checked:
        kb_ids_readable(user=user, requested=checked["knowledge_bases"])
    return checked
