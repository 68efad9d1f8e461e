"""Questions that need several rows of a team's table, through the whole pipeline: the table
store's program computes the answer, the rows it read are cited, the events show the program,
and the values come back as data. A question about prose in the same knowledge base is still
answered from the passages."""

from __future__ import annotations

import pytest

from queries.answering.registry import get_strategy
from queries.pipeline.events import ListSink
from queries.pipeline.runner import run_pipeline
from tests.fixtures.clinics import workbook
from tests.queries.pipeline.contract import check_frames

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def kb(clinics_kb):
    return clinics_kb


def _ask(kb, question: str):
    sink = ListSink()
    outcome = run_pipeline(
        query=question, strategy=get_strategy("extractive"), kb_ids=[kb.id], sink=sink
    )
    check_frames(sink.frames())
    return outcome, sink


def _data(sink, kind: str, stage: str) -> dict:
    return next(
        f["data"] for f in sink.frames() if f["type"] == kind and f["data"].get("stage") == stage
    )


def test_a_count_is_computed_with_its_rows_cited(kb) -> None:
    outcome, sink = _ask(kb, "How many clinics opened after 2019?")
    assert outcome.answer.startswith("3 [1].")
    assert outcome.metadata["answer_values"] == [3]
    program = _data(sink, "retrieval_result", "retrieval")["program"]
    assert program["program"]["op"] == "count" and "Opened > 2019" in program["words"]
    assert _data(sink, "retrieval_result", "retrieval")["table_count"] >= 1
    reasoning = _data(sink, "stage_complete", "reasoning")
    assert reasoning["answered_by"] == "table" and reasoning["answer_values"] == [3]
    # The rows it counted are cited sources that open in the document viewer.
    rows = [source for source in outcome.sources if source.get("chunk_id")]
    assert {source["table"]["rows"][0][0] for source in rows} == {"Braga", "Faro", "Evora"}


def test_the_row_with_the_most_answers_who_leads_it(kb) -> None:
    outcome, _ = _ask(kb, "Who manages the clinic with the most beds?")
    assert outcome.metadata["answer_values"] == ["Pedro Alves"]
    assert "Pedro Alves" in outcome.answer.split(".")[0]


def test_a_total_is_computed(kb) -> None:
    outcome, _ = _ask(kb, "What is the total number of beds across all clinics?")
    assert outcome.metadata["answer_values"] == [310]


def test_a_question_about_prose_is_answered_from_the_passages(kb) -> None:
    outcome, sink = _ask(kb, "When do visiting hours end?")
    assert "answer_values" not in outcome.metadata
    assert "program" not in _data(sink, "retrieval_result", "retrieval")
    assert "8 pm" in outcome.answer


def test_a_two_step_question_reads_the_found_row_again(kb) -> None:
    outcome, sink = _ask(kb, "Which clinic opened first, and who is its manager?")
    assert outcome.metadata["answer_values"] == ["Lisbon", "Pedro Alves"]
    program = _data(sink, "retrieval_result", "retrieval")["program"]
    assert "then read Manager of that row" in program["words"]


def test_a_cross_sheet_question_joins_the_other_sheet_on_its_key(kb) -> None:
    outcome, sink = _ask(kb, "What is the budget of the clinic with the most beds?")
    assert [str(value).replace(",", "") for value in outcome.metadata["answer_values"]] == [
        "2400000"
    ]
    # Read as one table: each budget beside its clinic's row (knowledge/tables/joined.py).
    words = _data(sink, "retrieval_result", "retrieval")["program"]["words"]
    assert "the most Beds" in words and "Budgets + Clinics" in words, words
    # Both rows are cited: the one with the most beds, and its budget on the other sheet.
    cited = {tuple(s["table"]["rows"][0]) for s in outcome.sources if s.get("table")}
    assert ("Lisbon", "2,400,000") in cited and any(
        row[0] == "Lisbon" and "120" in row for row in cited
    )


WORKSHOPS = [
    ("Workshop", "Trainer", "Seats", "Weekday"),
    ("Pottery Basics", "Lena Moss", 10, "Monday"),
    ("Watercolour", "Ravi Shah", 14, "Tuesday"),
    ("Woodturning", "Lena Moss", 6, "Thursday"),
    ("Bookbinding", "Tom Eade", 8, "Friday"),
]
TRAINERS = [
    ("Trainer", "Speciality", "Joined", "Desk"),
    ("Lena Moss", "Ceramics", 2018, "D2"),
    ("Ravi Shah", "Painting", 2020, "D5"),
    ("Tom Eade", "Paper crafts", 2022, "D7"),
]


# More tables than are all tried, so that the finding model's votes count.
OTHER_TABLES = {
    "kits.csv": b"Kit,Price,Stock\nClay set,25,40\nBrush set,18,55\nGlue pack,6,120",
    "holidays.csv": b"Holiday,Date\nSpring break,2026-04-06\nSummer close,2026-08-03",
}


def _kb_of(user, name: str, files: dict[str, bytes]):
    """A knowledge base of these files and OTHER_TABLES, ingested in this process."""
    from knowledge.bulk import TextItem, documents_ingest_inline
    from knowledge.services import kb_create

    kb = kb_create(owner=user, name=name)
    items = [TextItem(file, data) for file, data in (files | OTHER_TABLES).items()]
    documents_ingest_inline(kb=kb, items=items)
    return kb


@pytest.mark.parametrize(
    ("question", "joined"),
    [
        ("What is the speciality of the trainer who runs Bookbinding?", "Paper crafts"),
        ("At which desk does the trainer of Watercolour sit?", "D5"),
    ],
)
def test_a_name_one_sheet_holds_is_read_there_and_joined_to_the_sheet_its_words_match(
    user, question, joined
) -> None:
    """The trainers' sheet matches more of the question's words, but only the workshops' sheet
    holds the workshop it names: its row is found there and the trainer's row joined."""
    from knowledge.tables.store import choose
    from knowledge.tables.wording import computed_text, step_values

    book = workbook({"Workshops": WORKSHOPS, "Trainers": TRAINERS})
    rooms = b"Room,Floor,Seats\nKiln room,0,6\nStudio A,1,16\nStudio B,1,12"
    kb = _kb_of(user, "Workshops", {"workshops.xlsx": book, "rooms.csv": rooms})
    choice = choose([kb.id], question)
    # Read from the workshops' sheet with the trainers' (joined on Trainer: after the program,
    # or as one table, knowledge/tables/joined.py; or asked of it with the trainer the clause
    # names: knowledge/tables/nested.py).
    words = computed_text(choice)[1]
    assert "workshops.xlsx › Workshops" in words and "Workshop is" in words, words
    assert "Trainers" in words and step_values(choice) == [joined]


def test_a_table_over_the_row_cap_is_left_to_its_row_chunks(kb, settings) -> None:
    settings.TABLE_MAX_ROWS = 4  # the clinics sheet has 5 rows, the budgets sheet 5
    outcome, sink = _ask(kb, "How many clinics opened after 2019?")
    assert "program" not in _data(sink, "retrieval_result", "retrieval")
    assert "answer_values" not in outcome.metadata


def test_a_program_answers_when_the_judge_or_its_words_admit_it(kb, settings) -> None:
    from knowledge.tables.store import choose

    question = "How many clinics opened after 2019?"
    settings.TABLE_ANSWER_MIN, settings.TABLE_PROGRAM_MIN = 1.01, 1.01
    assert choose([kb.id], question).tentative  # neither admits it: the passages answer first
    settings.TABLE_TENTATIVE_MIN = 1.01
    assert choose([kb.id], question) is None  # nor is it likely enough to stand in for them
    settings.TABLE_ANSWER_MIN = 0.0  # the judge admits it
    admitted = choose([kb.id], question)
    assert admitted.best.result.values == [3.0] and not admitted.tentative
    settings.TABLE_ANSWER_MIN, settings.TABLE_PROGRAM_MIN = 1.01, 0.2  # its words admit it
    choice = choose([kb.id], question)
    assert choice.best.result.values == [3.0]
    assert 0.0 < choice.confidence < 1.0  # the judge's probability, whoever admitted it


def test_a_program_the_rules_do_not_admit_answers_only_what_the_passages_do_not(
    kb, settings
) -> None:
    # Neither the judge nor its words admit the count: the passages answer first, and when they
    # find nothing the program's result is the answer, as the table's likeliest reading, never
    # verified.
    settings.TABLE_ANSWER_MIN, settings.TABLE_PROGRAM_MIN = 1.01, 1.01
    outcome, sink = _ask(kb, "How many clinics opened after 2019?")
    retrieval = _data(sink, "retrieval_result", "retrieval")
    assert "program" not in retrieval and retrieval["tentative_program"]["values"] == [3]
    assert _data(sink, "stage_complete", "reasoning").get("answered_by") != "table"
    assert outcome.answer.startswith("Probably 3 [1].")
    assert outcome.metadata["verdict"] == "unverified" and not outcome.metadata["grounded"]
    assert outcome.metadata["answer_values"] == [3]
    assert "no passage states this" in outcome.answer
    rows = [source for source in outcome.sources if source.get("chunk_id")]
    assert {source["table"]["rows"][0][0] for source in rows} == {"Braga", "Faro", "Evora"}
    # A question the passages answer keeps their answer.
    outcome, sink = _ask(kb, "When do visiting hours end?")
    assert "8 pm" in outcome.answer and "Probably" not in outcome.answer


def test_a_passage_that_names_nothing_asked_gives_way_to_the_table_s_likeliest_reading(
    kb, settings
) -> None:
    # Neither the judge nor its words admit the program. "Which clinic": the note's sentence
    # about every clinic names none, so it gives nothing of the kind asked, and the program
    # answers, as it does when the passages find nothing.
    settings.TABLE_ANSWER_MIN, settings.TABLE_PROGRAM_MIN = 1.01, 1.01
    outcome, sink = _ask(kb, "Which clinic has the most beds for visiting?")
    assert _data(sink, "retrieval_result", "retrieval")["tentative_program"]["values"] == ["Lisbon"]
    assert outcome.answer.startswith("Probably Lisbon [")
    assert outcome.metadata["verdict"] == "unverified"
    # A question the sentence answers with what it asks for keeps it.
    outcome, _ = _ask(kb, "Until when do visiting hours run at the clinics?")
    assert "8 pm" in outcome.answer and "Probably" not in outcome.answer


def test_a_who_answered_by_a_body_keeps_it_over_a_clinic_s_name(user) -> None:
    # "The regional health authority" is no person the check knows, but a clinic's name is no
    # answer to "who" either: the passage's answer stays.
    from knowledge.bulk import TextItem, documents_ingest_inline
    from knowledge.services import kb_create
    from tests.fixtures.clinics import clinics_workbook

    kb = kb_create(owner=user, name="Clinics and their guide")
    guide = (
        b"Medicines for every clinic are supplied by the regional pharmacy. Clinic budgets are "
        b"approved by the regional health authority."
    )
    documents_ingest_inline(
        kb=kb,
        items=[TextItem("clinics.xlsx", clinics_workbook()), TextItem("guide.txt", guide)],
    )
    outcome, _ = _ask(kb, "Who approves the clinic budgets?")
    assert "regional health authority" in outcome.answer and "Probably" not in outcome.answer


SQUADS = "Squad,People,Floor\nAtlas,7,2\nBorealis,4,3\nCirrus,9,1\n"
APPS = "App,Squad,Launched\nCheckout,Borealis,2021\nSearch,Atlas,2019\nMobile,Cirrus,2023\n"


@pytest.mark.parametrize(
    ("question", "named", "answer"),
    [
        ("How many people are in the squad that maintains Mobile?", "Cirrus", "9"),
        ("On which floor does the squad that built Checkout sit?", "Borealis", "3"),
    ],
)
def test_a_thing_named_by_a_clause_is_found_in_one_table_and_asked_of_another(
    user, question, named, answer
) -> None:
    """The squad that maintains Mobile is a question of its own, answered from the apps'
    table; the rest is asked of the squads' table with its answer in its place."""
    from knowledge.tables.store import choose
    from knowledge.tables.wording import computed_text

    kb = _kb_of(user, "Squads", {"squads.csv": SQUADS.encode(), "apps.csv": APPS.encode()})
    choice = choose([kb.id], question)
    assert choice.grid.label == "squads.csv › squads"
    assert choice.best.result.values == [answer]
    assert choice.before.value == named
    words = computed_text(choice)[1]
    assert "of apps.csv › apps where App is" in words and "; then read" in words


STAFF = "Name,Role,Phone\nAda Moss,Treasurer,0770 101\nBen Ruiz,Secretary,0770 202\nCara Lim,Chair,0770 303\n"
DEPOTS = (
    "Depot,Town,Manager\nNorth Yard,Leeds,Ada Moss\nQuay,Hull,Cara Lim\nRiverside,York,Ada Moss\n"
    "Old Mill,Selby,Ben Ruiz\n"
)


def test_a_person_named_by_a_role_is_found_in_one_table_and_asked_of_another(user) -> None:
    """ "Our treasurer" is the person whose Role cell says Treasurer on the staff sheet; the
    depots' table names her as a Manager. A role no cell says names nobody."""
    from knowledge.tables.store import choose

    kb = _kb_of(user, "Depots", {"staff.csv": STAFF.encode(), "depots.csv": DEPOTS.encode()})
    choice = choose([kb.id], "Which depots does our treasurer manage?")
    assert choice.grid.label == "depots.csv › depots"
    assert choice.best.result.values == ["North Yard", "Riverside"]
    assert choice.before.value == "Ada Moss"
    other = choose([kb.id], "Which depots does our caretaker manage?")
    assert other is None or other.before is None
    # One row: the question does not name it (no passage of its words reads it), so the
    # program answers, not only when the passages find nothing.
    one = choose([kb.id], "Which depot does our secretary look after?")
    assert one.best.result.values == ["Old Mill"] and one.before.value == "Ben Ruiz"
    assert not one.tentative


OFFICERS = "Name,Role\nPia Kent,Trustee\nRay Otto,Trustee\nAda Moss,Treasurer\n"
SITES = (
    "Site,Site lead,Reviewer,Phone\nCanal St,Pia Kent,Ada Moss,0161 100\n"
    "Bridge End,Ray Otto,Pia Kent,0161 200\nMill Lane,Ada Moss,Ray Otto,0161 300\n"
)


@pytest.mark.parametrize(
    "question",
    [
        "Which site does our trustee lead?",  # two rows hold the role
        "What is our treasurer's phone number?",  # a detail of the person, not rows
        "Which sites is our treasurer on?",  # the name is in two columns of the sites
    ],
)
def test_a_role_that_names_no_one_person_or_no_rows_by_one_column_is_not_followed(
    user, question
) -> None:
    from knowledge.tables.store import choose

    kb = _kb_of(user, "Officers", {"officers.csv": OFFICERS.encode(), "sites.csv": SITES.encode()})
    choice = choose([kb.id], question)
    assert choice is None or choice.before is None


def test_a_lookup_of_a_day_and_a_first_of_the_table_s_rows_are_read_from_the_table(user) -> None:
    """A lookup the question words wholly (the rota's file names "on call"; "9 March" is the
    row's day) is read from the table, by the lookup that computes the cell, not by the first
    of one row; "which release came first?" reads Version, the column naming the releases."""
    from knowledge.tables.store import choose

    rota = b"Week of,Lead,Backup\n2 Mar 2026,Ines,Tomas\n9 Mar 2026,Tomas,Greta\n16 Mar 2026,Greta,Ines\n"
    releases = (
        b"# Releases\n\n| Version | Released | Fixes |\n|---|---|---|\n"
        b"| 4.1.0 | 12 Jan 2026 | 9 |\n| 4.2.0 | 9 Feb 2026 | 14 |\n| 4.3.0 | 16 Mar 2026 | 5 |\n"
    )
    kb = _kb_of(user, "Rota", {"on_call_rota.csv": rota, "releases.md": releases})
    lookup = choose([kb.id], "Who is the lead on call the week of 9 March?")
    assert lookup.best.result.values == ["Tomas"]
    assert lookup.best.program.op == "values" and not lookup.tentative
    first = choose([kb.id], "Which release came first?")
    assert first.best.result.values == ["4.1.0"] and not first.tentative
