"""How a run ends: the error codes of its terminal `error` event and their messages, named once.

The codes are part of the wire contract (the `code` key of an `error` event, a run's
`error_code`); the runner, the worker and the cancel service all write them from here.
"""

from __future__ import annotations

CANCELLED = "cancelled"
CANCELLED_MESSAGE = "Run cancelled"

PIPELINE_FAILED = "pipeline_failed"

INTERRUPTED = "interrupted"
INTERRUPTED_MESSAGE = "The worker running this query stopped before it finished."
