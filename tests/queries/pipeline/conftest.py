"""Fixtures of the pipeline tests."""

from __future__ import annotations

import pytest

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from tests.fixtures.clinics import clinics_workbook


@pytest.fixture
def clinics_kb(user):
    """A knowledge base of the clinics workbook (two sheets) beside a note of prose."""
    kb = kb_create(owner=user, name="Clinics")
    documents_ingest_inline(
        kb=kb,
        items=[
            TextItem("clinics.xlsx", clinics_workbook()),
            TextItem(
                "visits.txt",
                b"Visiting hours at every clinic run from 9 am to 8 pm. Children under 12 visit "
                b"with an adult. Flowers are not allowed in the recovery rooms.",
            ),
        ],
    )
    return kb
