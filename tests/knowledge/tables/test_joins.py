"""A join on the answer: the row of another table that a program's answer names ("the day rate
of the lead of Harbour app": the lead is a name of the team's table, under another header).
Asked over tables no benchmark holds."""

from __future__ import annotations

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.choice import TableChoice
from knowledge.tables.follows import followed
from knowledge.tables.steps import joined_step


def _table(rows, label: str):
    return grid(table_from_rows(rows[0], rows[1:]), label)


PROJECTS = [
    ["Project", "Client", "Lead", "Budget"],
    ["Harbour app", "Port of Vigo", "Elena Ruiz", "120000"],
    ["Ledger sync", "Banco Norte", "Marc Dubois", "80000"],
]


def _joined(question: str, other_rows) -> str | None:
    projects = _table(PROJECTS, "projects.xlsx › Projects")
    other = _table(other_rows, "team.md › Team")
    choice = TableChoice(0, 0, "projects.xlsx", projects, followed(question, projects)[0], 1.0)
    choice.others = [(1, other)]
    step = joined_step(question, choice)
    return step.value if step else None


def test_the_answer_of_a_program_names_the_row_of_another_table_it_is_joined_to() -> None:
    team = [["Name", "Role", "Day rate"], ["Elena Ruiz", "Tech lead", "950"],
            ["Marc Dubois", "Tech lead", "900"]]  # fmt: skip
    assert _joined("What is the day rate of the lead of Harbour app?", team) == "950"
    assert _joined("What is the day rate of the lead of Ledger sync?", team) == "900"
    # A name that is in two rows names neither.
    twice = [*team, ["Elena Ruiz", "Designer", "600"]]
    assert _joined("What is the day rate of the lead of Harbour app?", twice) is None
    # Nor is a number any row's name (the budget is no Day rate's row).
    rates = [["Day rate", "Band"], ["120000", "A"], ["80000", "B"]]
    assert _joined("What is the band of the budget of Harbour app?", rates) is None


def _step(question: str, first_rows, label: str, *others):
    first = _table(first_rows, label)
    choice = TableChoice(0, 0, label, first, followed(question, first)[0], 1.0)
    choice.others = [(n + 1, _table(rows, name)) for n, (rows, name) in enumerate(others)]
    step = joined_step(question, choice)
    return step.value if step else None


LEADS = [["Project", "Lead", "Budget"], ["Harbour app", "Elena Ruiz", "120000"],
         ["Ledger sync", "Marc Dubois", "80000"], ["Tide portal", "Ana Costa", "60000"]]  # fmt: skip
STAFF = [["Name", "Role", "Location"], ["Elena Ruiz", "Tech lead", "Lisbon"],
         ["Marc Dubois", "Tech lead", "Paris"], ["Ana Costa", "Designer", "Porto"]]  # fmt: skip


def test_a_key_of_the_same_name_in_any_table_comes_before_the_answer_as_a_key() -> None:
    sites = [["Project", "Location", "Phase"], ["Harbour app", "Vigo", "Build"],
             ["Ledger sync", "Madrid", "Discovery"], ["Tide portal", "Vigo", "Launch"]]  # fmt: skip
    question = "Which location is Harbour app run from?"
    # The team's table comes first, but the sites share the Project: the project's location.
    staff, site = (STAFF, "team.xlsx › Team"), (sites, "projects.xlsx › Sites")
    assert _step(question, LEADS, "projects.xlsx › Projects", staff, site) == "Vigo"
    # Without the sites, the question says nothing of the lead: no lead's location either.
    assert _step(question, LEADS, "projects.xlsx › Projects", staff) is None


def test_the_answer_is_a_key_only_when_asked_of_and_names_a_row_by_its_first_column() -> None:
    # "Active" names a row of a summary by status, but the question asks nothing of a status.
    statuses = [["Project", "Status"], ["Harbour app", "Active"], ["Ledger sync", "On hold"],
                ["Tide portal", "Active"]]  # fmt: skip
    summary = [["Stage", "Projects", "Total budget"], ["Active", "2", "180000"],
               ["On hold", "1", "80000"]]  # fmt: skip
    question = "What is Harbour app's budget?"
    assert _step(question, statuses, "projects.xlsx", (summary, "portfolio.pptx")) is None
    # Elena Ruiz is no row of this table, only the manager of one.
    managers = [["Name", "Manager", "Day rate"], ["Marc Dubois", "Elena Ruiz", "900"],
                ["Ana Costa", "Marc Dubois", "700"]]  # fmt: skip
    question = "What is the day rate of the lead of Harbour app?"
    assert _step(question, LEADS, "projects.xlsx", (managers, "team.xlsx › Team")) is None
    # "The lead role" is the lead, not the lead's role.
    question = "Who has the lead role for Harbour app?"
    assert _step(question, LEADS, "projects.xlsx", (STAFF, "team.xlsx › Team")) is None
    assert _step("What is the role of the lead of Harbour app?", LEADS, "projects.xlsx",
                 (STAFF, "team.xlsx › Team")) == "Tech lead"  # fmt: skip


SITES = [["Site", "Panels", "Site lead"], ["Old Mill", "75", "Ruth Okafor"],
         ["Fire Station", "38", "Nia Evans"]]  # fmt: skip
LEASES = [["Site", "Roof owner", "Next roof survey"], ["Old Mill", "Mill Trust", "12 May 2026"],
          ["Fire Station", "County Council", "3 June 2026"]]  # fmt: skip
VOLUNTEERS = [["Volunteer", "Phone"], ["Ruth Okafor", "0770 412"], ["Nia Evans", "0770 458"]]


def test_a_column_the_question_names_is_not_left_for_a_word_of_another_s_header() -> None:
    # "roof" is one word of Next roof survey; the question asks for the Panels it names.
    question = "How many panels are there on the roof at Fire Station?"
    assert _step(question, SITES, "sites.xlsx › Arrays", (LEASES, "leases.docx › Leases")) is None
    # A header of the other table said whole is still read there.
    question = "What is the phone of the site lead at Fire Station?"
    found = _step(question, SITES, "sites.xlsx › Arrays", (VOLUNTEERS, "sites.xlsx › People"))
    assert found == "0770 458"


def test_an_answer_s_header_said_in_part_is_still_joined() -> None:
    team = [["Name", "Work email address"], ["Elena Ruiz", "elena@example.org"],
            ["Marc Dubois", "marc@example.org"]]  # fmt: skip
    assert _joined("What is the email of the lead of Harbour app?", team) == "elena@example.org"


def test_which_of_two_named_rows_has_more_is_joined_to_nothing() -> None:
    # "Last season" says no Last night of the tour: the row that sold more is the answer.
    sold = _table(
        [["Venue", "Tickets"], ["Quarry Studio", "990"], ["Mayfair Centre", "855"]],
        "tickets.csv › Tickets sold",
    )
    tour = _table(
        [["Venue", "Last night"], ["Quarry Studio", "10 October 2026"],
         ["Mayfair Centre", "31 October 2026"]],
        "tour.docx › Tour",
    )  # fmt: skip
    question = "Did we sell more tickets at Quarry Studio or at the Mayfair Centre last season?"
    best = followed(question, sold)[0]
    assert best.program.op in ("more", "less") and best.result.values == ["Quarry Studio"]
    choice = TableChoice(0, 0, "tickets.csv", sold, best, 1.0)
    choice.others = [(1, tour)]
    assert joined_step(question, choice) is None


def test_the_one_of_two_with_more_is_joined_when_the_question_asks_of_it() -> None:
    venues = _table(
        [["Venue", "Seats"], ["Town Hall", "120"], ["Corn Exchange", "280"]], "venues.md › Venues"
    )
    managers = _table(
        [["Venue", "Manager"], ["Town Hall", "Ann Lee"], ["Corn Exchange", "Bob Kay"]],
        "managers.csv › Managers",
    )
    question = "Who is the manager of the venue with more seats, Town Hall or Corn Exchange?"
    found = [c for c in followed(question, venues) if c.program.op in ("more", "less")]
    choice = TableChoice(0, 0, "venues.md", venues, found[0], 1.0)
    choice.others = [(1, managers)]
    step = joined_step(question, choice)
    assert step is not None and step.value == "Bob Kay"
