"""What every page's scripts need of the pipeline's wire contract: its stage ids and event types.

static/js/run-view.js reads them from the page (a JSON script), so a stage or an event type
added in queries/pipeline/stages.py reaches the tracker with no second list to keep in sync.
"""

from __future__ import annotations

from queries.pipeline import stages


def pipeline(request) -> dict:
    return {
        "adrag_pipeline": {
            "stages": list(stages.STAGES),
            "event_types": [*stages.EVENT_TYPES, stages.WAITING],
        }
    }
