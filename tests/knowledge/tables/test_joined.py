"""Two tables read as one where a column of the first names the rows of the second
(knowledge/tables/joined.py): which tables link, what the joined grid holds, and which programs
over it stand in place of either table's own (knowledge/tables/trying.py)."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.choice import stands_highest
from knowledge.tables.joined import joined, links, names_the_link
from knowledge.tables.trying import tried

# A conference organiser's workbook: talks name their room, rooms have a host and seats.
TALKS = (
    ["Talk", "Speaker", "Day", "Audience", "Room"],
    [
        ["Keynote", "Ada Park", "Monday", "310", "Main Hall"],
        ["Rust at scale", "Ben Ode", "Monday", "85", "Cedar"],
        ["Query planning", "Cleo Ng", "Tuesday", "120", "Main Hall"],
        ["Design systems", "Dev Rao", "Tuesday", "60", "Birch"],
        ["Closing panel", "Eli Moss", "Wednesday", "240", "Main Hall"],
    ],
)
ROOMS = (
    ["Room", "Seats", "Host", "Floor"],
    [
        ["Main Hall", "400", "Farah Diaz", "Ground"],
        ["Cedar", "90", "Gus Lind", "First"],
        ["Birch", "70", "Hana Berg", "First"],
        ["Oak", "50", "Ivo Tran", "Second"],
    ],
)


def _grid(table, caption: str):
    return grid(table_from_rows(*table), f"conference.xlsx › {caption}")


def _tables():
    talks, rooms = _grid(TALKS, "Talks"), _grid(ROOMS, "Rooms")
    return [(1, 0.5, (talks, 7, "conference.xlsx", 1)), (2, 0.5, (rooms, 7, "conference.xlsx", 1))]


def _chosen(question: str):
    return stands_highest(tried(question, question, _tables()))


def test_a_column_naming_the_other_table_s_rows_links_them() -> None:
    talks, rooms = _grid(TALKS, "Talks"), _grid(ROOMS, "Rooms")
    assert links(talks, rooms) == [(4, 0)]  # Talks' Room names the rooms' rows
    # Rooms name no talk: nothing links them that way.
    assert links(rooms, talks) == []


def test_the_joined_grid_holds_the_named_row_s_cells_beside_each_row() -> None:
    talks, rooms = _grid(TALKS, "Talks"), _grid(ROOMS, "Rooms")
    both = joined(talks, rooms, 4, 0)
    assert [c.name for c in both.columns] == [*TALKS[0], "Seats", "Host", "Floor"]
    assert both.columns[6].texts == [
        "Farah Diaz",
        "Gus Lind",
        "Farah Diaz",
        "Hana Berg",
        "Farah Diaz",
    ]
    assert both.row_numbers == talks.row_numbers and both.chunk_ids == talks.chunk_ids
    # A second sheet of the same workbook is named by its own name.
    assert both.label == "conference.xlsx › Talks + Rooms"


def test_a_cell_naming_no_row_leaves_the_joined_cells_empty() -> None:
    headers, rows = TALKS
    moved = [*rows[:-1], [*rows[-1][:4], "Garden"]]
    both = joined(_grid((headers, moved), "Talks"), _grid(ROOMS, "Rooms"), 4, 0)
    assert both.columns[6].texts[-1] == "" and both.columns[5].numbers[-1] is None


def test_the_question_must_name_the_link() -> None:
    talks, rooms = _grid(TALKS, "Talks"), _grid(ROOMS, "Rooms")
    assert names_the_link("Who hosts the room of the Keynote?", talks, rooms, 4, 0)
    assert not names_the_link("Who hosts the Keynote?", talks, rooms, 4, 0)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # A cell of the second for a row the first names.
        ("Who is the host of the room the Keynote is in?", ["Farah Diaz"]),
        # The first's rows that a cell of the second keeps.
        (
            "Which talks are in the room Farah Diaz hosts?",
            ["Keynote", "Query planning", "Closing panel"],
        ),
        # A total over the first's rows that a cell of the second keeps.
        ("What is the total audience of the talks in the room Farah Diaz hosts?", [670.0]),
        # The first's rows that a cell of the second keeps.
        ("Which talks are in a room on the first floor?", ["Rust at scale", "Design systems"]),
        # A total of the second's column reads each of its rows once: the Main Hall's seats
        # once for its three talks (400 + 90, not 1,290).
        (
            "How many seats do the rooms of the talks with an audience over 70 have in total?",
            [490.0],
        ),
        (
            "What is the average number of seats in the rooms of talks with an audience above 70?",
            [245.0],
        ),
        # Its cells listed once each, by the program that lists them, not the first row's.
        ("Who hosts the rooms of the talks with an audience over 70?", ["Farah Diaz", "Gus Lind"]),
    ],
)
def test_questions_of_both_tables_are_read_from_the_joined_grid(question, answer) -> None:
    choice = _chosen(question)
    assert (choice.joined.columns, choice.joined.second) == (len(TALKS[0]), 2)
    assert choice.best.result.values == answer


@pytest.mark.parametrize(
    ("question", "answer", "table_id"),
    [
        ("How many seats does the Cedar room have?", ["90"], 2),
        ("Which room has the most seats?", ["Main Hall"], 2),
        ("Who is speaking at the Keynote?", ["Ada Park"], 1),
        ("How many talks are on Tuesday?", [2.0], 1),
    ],
)
def test_questions_of_one_table_are_read_from_it_alone(question, answer, table_id) -> None:
    choice = _chosen(question)
    assert choice.joined is None and choice.table_id == table_id
    assert choice.best.result.values == answer


def _csv(table) -> bytes:
    headers, rows = table
    return "\n".join(",".join(row) for row in [headers, *rows]).encode()


@pytest.mark.django_db
def test_an_answer_over_two_tables_cites_the_rows_of_both(kb, user) -> None:
    from knowledge import services
    from knowledge.models import Chunk
    from knowledge.retrieval.stores import StoreQuery
    from knowledge.tables import store
    from tests.knowledge.conftest import run_ingestion

    documents = {}
    for name, table in (("talks.csv", TALKS), ("rooms.csv", ROOMS)):
        documents[name], _ = services.document_upload(
            kb=kb, file_name=name, data=_csv(table), user=user
        )
        run_ingestion(documents[name].id)
    question = "What is the total audience of the talks in the room Farah Diaz hosts?"
    computed, *rows = store.table_search(StoreQuery([kb.id], question, None, 5, None))
    assert computed.structure["values"] == [670]
    cited = Chunk.objects.filter(id__in=computed.structure["row_chunks"])
    # The three talks' rows, and the Main Hall's row of the rooms.
    assert {chunk.document_id for chunk in cited} == {
        documents["talks.csv"].id,
        documents["rooms.csv"].id,
    }
    assert any("Farah Diaz" in chunk.text for chunk in cited)
    assert [row.chunk_id for row in rows] == computed.structure["row_chunks"]


def test_a_column_of_days_the_second_adds_is_still_read_only_when_asked() -> None:
    headers, rows = ROOMS
    booked = (
        [*headers, "Booked", "Released"],
        [[*row, "1 Mar 2026", f"{3 + i} Mar 2026"] for i, row in enumerate(rows)],
    )
    rooms = _grid(booked, "Rooms")
    assert rooms.columns[-1].name == "Duration (Booked to Released)"
    both = joined(_grid(TALKS, "Talks"), rooms, 4, 0)
    assert both.columns[-1].name == rooms.columns[-1].name
    assert getattr(both.columns[-1], "days_between", False)


EXPENSES = (
    ["Expense", "Amount", "Requested by", "Approved by"],
    [
        ["EX-1", "400", "Ana Ruiz", "Carl Berg"],
        ["EX-2", "250", "Ben Cole", "Carl Berg"],
        ["EX-3", "900", "Ana Ruiz", "Dina Shah"],
        ["EX-4", "120", "Dina Shah", "Ben Cole"],
    ],
)
STAFF = (
    ["Name", "Department", "Office"],
    [
        ["Ana Ruiz", "Sales", "Madrid"],
        ["Ben Cole", "Sales", "Leeds"],
        ["Carl Berg", "Finance", "Oslo"],
        ["Dina Shah", "Finance", "Leeds"],
    ],
)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What is the total amount requested by staff in Sales?", [1550.0]),
        ("What is the total amount approved by staff in Finance?", [1550.0]),
        ("Which expenses were approved by someone in Sales?", ["EX-4"]),
    ],
)
def test_of_two_links_to_one_table_the_one_the_question_names_is_read(question, answer) -> None:
    expenses, staff = _grid(EXPENSES, "Expenses"), _grid(STAFF, "Staff")
    assert links(expenses, staff) == [(2, 0), (3, 0)]
    tables = [
        (1, 0.5, (expenses, 7, "claims.xlsx", 1)),
        (2, 0.5, (staff, 7, "claims.xlsx", 1)),
    ]
    choice = stands_highest(tried(question, question, tables))
    assert choice.joined is not None and choice.best.result.values == answer


def test_a_column_that_sorts_rows_into_kinds_is_no_key() -> None:
    # One room of each Type: its cells differ, but they name kinds of room, not rooms.
    rooms = _grid(
        (
            ["Room", "Type", "Seats"],
            [["Main Hall", "Hall", "400"], ["Cedar", "Studio", "90"], ["Birch", "Lab", "70"]],
        ),
        "Rooms",
    )
    talks = _grid(
        (
            ["Talk", "Type", "Room"],
            [["Keynote", "Hall", "Main Hall"], ["Rust", "Studio", "Cedar"], ["UX", "Lab", "Birch"]],
        ),
        "Talks",
    )
    assert links(talks, rooms) == [(2, 0)]  # by the Room, not by the Type


def test_a_table_of_kinds_led_by_its_kind_is_a_key() -> None:
    # A sheet of service intervals by Type: its Type leads it and names its rows.
    service = _grid(
        (
            ["Type", "Interval", "Vendor"],
            [["Hall", "12 months", "AVCo"], ["Studio", "6 months", "Soundly"]],
        ),
        "Service",
    )
    rooms = _grid(
        (["Room", "Type", "Seats"], [["Main Hall", "Hall", "400"], ["Cedar", "Studio", "90"]]),
        "Rooms",
    )
    assert links(rooms, service) == [(1, 0)]
