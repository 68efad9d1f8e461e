"""The pages' scripts read the wire contract's stage ids and event types from the page, never
from a second list: an event type added in stages.py reaches the tracker."""

from __future__ import annotations

import json
import re

import pytest

from queries.pipeline import stages
from tests.support import ROOT

pytestmark = pytest.mark.django_db


def page_json(html: str, element_id: str):
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html)
    assert match, element_id
    return json.loads(match.group(1))


@pytest.mark.parametrize("path", ["/", "/history/"])
def test_pages_carry_the_stage_ids_and_every_event_type(client, user, path):
    client.force_login(user)
    html = client.get(path).content.decode()
    pipeline = page_json(html, "adrag-pipeline")
    assert pipeline["stages"] == list(stages.STAGES)
    assert set(pipeline["event_types"]) == {*stages.EVENT_TYPES, stages.WAITING}
    assert [store["name"] for store in page_json(html, "adrag-stores")] == [
        "vector",
        "bm25",
        "graph",
        "table",
    ]


def test_the_tracker_holds_no_list_of_its_own():
    script = (ROOT / "static" / "js" / "run-view.js").read_text()
    assert not re.search(r'\[\s*"(stage_start|planner)"', script)
