"""A document's tables are written with its chunks and go with them: re-indexing replaces them,
deleting the document or its knowledge base deletes them."""

from __future__ import annotations

import pytest

from knowledge import services
from knowledge.models import Chunk, Table, TableRow
from tests.knowledge.conftest import FILES, run_ingestion


def _ingest(kb, user, name: str):
    document, _ = services.document_upload(
        kb=kb, file_name=name, data=(FILES / name).read_bytes(), user=user
    )
    run_ingestion(document.id)
    document.refresh_from_db()
    return document


@pytest.mark.django_db
def test_each_sheet_is_a_typed_table_whose_rows_point_at_their_row_chunks(kb, user) -> None:
    document = _ingest(kb, user, "sample.xlsx")
    tables = list(Table.objects.filter(document=document).order_by("ordinal"))
    assert [table.caption for table in tables] == ["sample: Scientists", "sample: Lab budgets"]
    scientists, budgets = tables
    assert [(c["name"], c["type"]) for c in budgets.columns] == [
        ("Lab", "text"), ("Budget 2026 (EUR)", "number"), ("Head", "text"),
    ]  # fmt: skip
    assert scientists.columns[4]["type"] == "date" and scientists.row_count == 4
    for row in TableRow.objects.filter(table__document=document).select_related("chunk"):
        # The row's chunk is a row chunk of this document holding the same cells.
        assert row.chunk.document_id == document.id and row.chunk.kind == "row"
        assert row.chunk.structure["cells"] == row.cells
    assert all(table.knowledge_base_id == kb.id for table in tables)


@pytest.mark.django_db
def test_reindexing_replaces_the_tables_and_deleting_removes_them(kb, user) -> None:
    document = _ingest(kb, user, "sample.csv")
    first = set(TableRow.objects.filter(table__document=document).values_list("id", flat=True))
    assert len(first) == 5
    assert services.document_reindex(document=document)
    run_ingestion(document.id)
    again = set(TableRow.objects.filter(table__document=document).values_list("id", flat=True))
    assert len(again) == 5 and not first & again
    assert Table.objects.filter(document=document).count() == 1
    services.document_delete(document=document)
    assert not Table.objects.exists() and not TableRow.objects.exists()


@pytest.mark.django_db
def test_deleting_a_knowledge_base_deletes_its_tables(kb, user) -> None:
    _ingest(kb, user, "sample.pptx")
    assert Table.objects.filter(knowledge_base=kb).count() == 1
    services.kb_delete(kb=kb)
    assert not Table.objects.exists() and not TableRow.objects.exists()
    assert not Chunk.objects.exists()


@pytest.mark.django_db
def test_among_many_tables_a_table_is_found_by_its_best_rows_not_its_length(
    kb, user, monkeypatch
) -> None:
    """Thirty rows that each repeat a word of the question do not outvote the one row that names
    what it asks: a table's vote is its two best rows' BM25 scores, so a long table whose every
    row says "stadium" and "attendance" no longer buries the short table holding Stadium Aurora."""
    from knowledge.tables.store import ALL_TABLES_UP_TO, table_votes

    long_rows = "\n".join(f"{n},Stadium North,{1000 + n}" for n in range(1, 31))
    documents = {
        "rounds.csv": "Round,Venue,Attendance\n" + long_rows,
        "venues.csv": "Venue,Attendance\nStadium Aurora,5200\nRiver Park,800\nOld Mill,650",
        "staff.csv": "Name,Role\nAna Lopes,Coach\nBo Chen,Physio",
        "kits.csv": "Season,Colour\n2021,Red\n2022,Blue",
    }
    for name, text in documents.items():
        document, _ = services.document_upload(kb=kb, file_name=name, data=text.encode(), user=user)
        run_ingestion(document.id)
    assert Table.objects.filter(knowledge_base=kb).count() > ALL_TABLES_UP_TO
    votes = table_votes([kb.id], "What was the attendance at Stadium Aurora?", None)
    first = Table.objects.get(id=next(iter(votes)))
    assert first.document.file_name == "venues.csv"
    assert abs(sum(votes.values()) - 1.0) < 1e-9
    # The shortlist's order is the finding model's (knowledge/tables/finding.py): one that
    # weighs nothing but a large vocabulary puts the long table of rounds first.
    import numpy as np

    from knowledge.tables import finding

    signals = len(finding.SIGNALS)
    weights = np.zeros(signals)
    weights[finding.SIGNALS.index("log_vocabulary")] = 5.0
    model = {"weights": weights, "mean": np.zeros(signals), "spread": np.ones(signals)}
    monkeypatch.setattr(finding, "load_finding", lambda: model)
    votes = table_votes([kb.id], "What was the attendance at Stadium Aurora?", None)
    assert Table.objects.get(id=next(iter(votes))).document.file_name == "rounds.csv"


@pytest.mark.django_db
def test_a_question_whose_first_passage_is_a_run_of_the_tables_rows_is_about_the_table(
    kb, user
) -> None:
    """BM25 may rank first the chunk that holds a run of the table's rows (it holds every name
    the question says) rather than one row: the question is still about that table."""
    from knowledge.retrieval.bm25 import bm25_scores
    from knowledge.tables.store import supported

    text = (
        "Place,Athlete,Club\n1,Ana Lopes,Braga\n2,Bo Chen,Faro\n3,Cy Dunn,Evora\n"
        "4,Di Moss,Porto\n5,Runner Five,Club Five\n6,Runner Six,Club Six"
    )
    document, _ = services.document_upload(
        kb=kb, file_name="race.csv", data=text.encode(), user=user
    )
    run_ingestion(document.id)
    question = "Of Lopes, Chen, Dunn and Moss, who placed best?"
    top = bm25_scores(kb_ids=[kb.id], query=question, top_k=1, filters=None)[0][0]
    assert Chunk.objects.get(id=top).kind == "table"  # the run of rows, not one row
    assert supported([kb.id], question, None, [Table.objects.get(document=document).id])


@pytest.mark.django_db
def test_a_fault_in_the_parser_leaves_the_question_to_the_passages(
    kb, user, monkeypatch, caplog
) -> None:
    """A bug in a table rule costs the question its computed passage, not the run; a database
    failure still ends it, as it does for every store."""
    from django.db import OperationalError

    from knowledge.retrieval.stores import StoreQuery
    from knowledge.tables import store, trying

    _ingest(kb, user, "sample.csv")
    asked = StoreQuery([kb.id], "How many scientists are in the table?", None, 5, None)
    assert store.table_search(asked)  # the count answers when nothing fails

    def broken(*args, **kwargs):
        raise ValueError("a rule's bug")

    monkeypatch.setattr(trying, "followed", broken)
    with caplog.at_level("ERROR", logger="knowledge.tables.store"):
        assert store.table_search(asked) == []
    assert "the passages answer" in caplog.text and "a rule's bug" in caplog.text

    def database_down(*args, **kwargs):
        raise OperationalError("connection lost")

    monkeypatch.setattr(trying, "followed", database_down)
    with pytest.raises(OperationalError):
        store.table_search(asked)


@pytest.mark.django_db
def test_rebuild_tables_builds_them_again_from_the_row_chunks(kb, user) -> None:
    """`manage.py rebuild_tables` gives documents ingested before a table rule the tables a new
    ingestion writes (a career row adding up the seasons is no season), from the stored row
    chunks and with nothing embedded again; `--kb` leaves other knowledge bases alone."""
    from io import StringIO

    from django.core.management import call_command

    from knowledge.models import KnowledgeBase

    seasons = "Year,Wins,Earnings\n2019,1,300\n2020,0,120\n2021,2,910\n2022,1,455\n2023,0,98\n"
    document, _ = services.document_upload(
        kb=kb, file_name="golf.csv", data=(seasons + "Career,4,1883\n").encode(), user=user
    )
    run_ingestion(document.id)
    other = KnowledgeBase.objects.create(name="Other", owner=user)
    _ingest(other, user, "sample.csv")
    written = {t.document_id: (t.row_count, t.dropped) for t in Table.objects.all()}
    rows = set(TableRow.objects.values_list("chunk_id", "number"))
    assert written[document.id] == (5, [{"row": 6, "reason": "totals row", "cells":
                                         ["Career", "4", "1883"]}])  # fmt: skip
    # As a version before the rule wrote them: the career row kept as a sixth season.
    Table.objects.filter(document=document).update(row_count=6, dropped=[])
    Table.objects.filter(knowledge_base=other).delete()
    out = StringIO()
    call_command("rebuild_tables", "--kb", str(kb.id), stdout=out)
    assert "1 tables of 1 documents" in out.getvalue()
    assert {t.document_id: (t.row_count, t.dropped) for t in Table.objects.all()} == {
        document.id: written[document.id]
    }
    call_command("rebuild_tables", stdout=out)
    assert {t.document_id: (t.row_count, t.dropped) for t in Table.objects.all()} == written
    assert set(TableRow.objects.values_list("chunk_id", "number")) == rows


@pytest.mark.django_db
def test_a_question_that_says_nothing_of_the_only_table_is_its_likeliest_reading(kb, user) -> None:
    """ "Who came in first?" says no word of a results table (Pos, Driver, Team): when it is the
    only table searched, its first row is the likeliest reading, answered only when the passages
    find nothing and never verified; beside another table it could be about either, and the
    store gives nothing."""
    from knowledge.tables.store import choose

    results = "Pos,Driver,Team\n1,Ana Lopes,Braga Racing\n2,Bo Chen,Faro Motors\n3,Cy Dunn,Evora GP"
    document, _ = services.document_upload(
        kb=kb, file_name="results.csv", data=results.encode(), user=user
    )
    run_ingestion(document.id)
    question = "Who came in first?"
    choice = choose([kb.id], question)
    assert choice is not None and choice.tentative
    assert choice.best.result.values == ["Ana Lopes"]
    kits = "Season,Colour\n2021,Red\n2022,Blue"
    other, _ = services.document_upload(kb=kb, file_name="kits.csv", data=kits.encode(), user=user)
    run_ingestion(other.id)
    assert choose([kb.id], question) is None
    # A search narrowed to the results file has one table again.
    assert choose([kb.id], question, {"documents": [document.id]}).tentative


def _upload_all(kb, user, documents: dict[str, str]) -> None:
    for name, text in documents.items():
        document, _ = services.document_upload(kb=kb, file_name=name, data=text.encode(), user=user)
        run_ingestion(document.id)


OTHER_TABLES = {
    "staff.csv": "Name,Role\nAna Lopes,Coach\nBo Chen,Physio",
    "kits.csv": "Season,Colour\n2021,Red\n2022,Blue",
    "rooms.csv": "Room,Seats\nNorth,12\nSouth,30",
}


@pytest.mark.django_db
def test_a_question_no_row_shares_a_word_with_finds_the_table_its_file_names(kb, user) -> None:
    """Among many tables, "which incident had the longest downtime?" says no word of the
    incident log's rows (dates, systems, minutes), and the page holds nothing but its table:
    the file's name, incidents.md, says what its rows are."""
    from knowledge.tables.store import choose

    incidents = (
        "| Date | System | Minutes down |\n|---|---|---|\n| 2026-01-07 | Booking portal | 95 |\n"
        "| 2026-02-03 | Port scheduler | 240 |\n| 2026-03-05 | Payroll | 18 |\n"
    )
    _upload_all(kb, user, {"incidents.md": incidents, **OTHER_TABLES})
    choice = choose([kb.id], "Which incident had the longest downtime?")
    assert choice is not None and choice.file_name == "incidents.md"
    assert choice.best.result.values == ["Port scheduler"]
