"""What "the longest" and "the shortest" order by: a length or a time, never an amount of
money; and a time up to now ("has been with us") from when it began, never from when it ends.
Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.asked_time import cannot_be_the_longest, elapsed_direction
from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.programs import fold

LEASES = [
    ["Lease", "Tenant", "Monthly rent (£)", "Start", "End"],
    ["A-1", "Ruth Ames", "700", "2022-03-01", "2026-02-28"],
    ["A-2", "Omar Diaz", "1,400", "2023-06-01", "2027-05-31"],
    ["A-3", "Lena Park", "900", "2019-09-01", "2025-08-31"],
    ["A-4", "Ivo Brandt", "1,100", "2024-01-15", "2029-01-14"],
    ["A-5", "Nia Holt", "800", "2021-04-01", "rolling"],
]
# Listed by time in office, every term ended: the longest is the first row.
LEADERS = [
    ["Prime minister", "Term start", "Term end"],
    ["Bo Chan", "1995-03-01", "2006-06-30"],
    ["Cy Ray", "1980-01-10", "1988-02-01"],
    ["Ann Lee", "1990-05-01", "1995-03-01"],
    ["Di Orr", "1988-02-01", "1990-05-01"],
]
FILMS = [
    ["Year", "Film", "Box office ($m)"],
    ["1974", "The Longest Yard", "43.0"],
    ["1977", "Semi-Tough", "37.1"],
    ["1981", "The Cannonball Run", "72.2"],
]
GOLFERS = [
    ["Player", "Longest drive (yd)", "Earnings ($)"],
    ["Ari", "290", "1,200,000"],
    ["Bea", "312", "2,400,000"],
    ["Cat", "330", "900,000"],
]
SQUAD = [
    ["Player", "Position", "Contract until"],
    ["Abe", "Keeper", "2026-06-30"],
    ["Dov", "Forward", "2029-06-30"],
    ["Eli", "Defender", "2027-06-30"],
]
ROUTES = [
    ["Route", "Fare (€)", "Length (km)"],
    ["Coast", "42", "310"],
    ["Valley", "55", "180"],
    ["Ridge", "30", "95"],
]


def _table(rows, label):
    return grid(table_from_rows(rows[0], rows[1:]), label)


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # Since it began: the earliest Start, not the latest End nor the largest rent.
        ("Which tenant has been with us the longest?", ["Lena Park"]),
        ("Which tenant has been with us the shortest time?", ["Ivo Brandt"]),
    ],
)
def test_the_longest_tenancy_is_read_from_when_it_began_or_ends(question, values) -> None:
    best = followed(question, _table(LEASES, "leases.csv"))[0]
    assert best.program.op in ("argmin", "argmax") and best.result.values == values


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Which route is the longest?", ["Coast"]),
        ("Which is our shortest route?", ["Ridge"]),
    ],
)
def test_the_longest_is_never_the_dearest(question, values) -> None:
    best = followed(question, _table(ROUTES, "routes.docx › Routes"))[0]
    assert best.result.values == values


@pytest.mark.parametrize(
    ("rows", "question", "values"),
    [
        # Every term ended, the table listed by time in office: its order answers.
        (LEADERS, "Who served the longest?", ["Bo Chan"]),
        (LEADERS, "Who has been prime minister the longest?", ["Bo Chan"]),
        # No column begins anything: the end is all there is to order by.
        (SQUAD, "Which player has been signed the longest?", ["Dov"]),
    ],
)
def test_the_longest_is_left_as_it_was_where_nothing_runs_to_now(rows, question, values):
    assert followed(question, _table(rows, "sheet.csv"))[0].result.values == values


@pytest.mark.parametrize(
    ("rows", "question"),
    [
        # The word is the table's own, a film's title or a header: its money may be ordered.
        (FILMS, "Which film earned more, The Longest Yard or Semi-Tough?"),
        (GOLFERS, "Which player with a longest drive over 300 yards earned the most?"),
    ],
)
def test_money_may_be_ordered_where_the_table_says_longest_itself(rows, question) -> None:
    table = _table(rows, "sheet.csv")
    words = fold(question).split()
    assert not cannot_be_the_longest(words, table, table.columns[-1], "argmax")


def test_money_is_no_longest_where_the_table_does_not_say_the_word() -> None:
    routes = _table(ROUTES, "routes.docx › Routes")
    words = fold("Which route is the longest?").split()
    assert cannot_be_the_longest(words, routes, routes.columns[1], "argmax")
    assert not cannot_be_the_longest(words, routes, routes.columns[2], "argmax")


STAFF = [
    ["Name", "Team", "Joined", "Contract end"],
    ["Tove Lind", "Design", "2016-09-01", "2027-08-31"],
    ["Raj Mehta", "Support", "2021-02-15", "2026-02-14"],
    ["Ola Berg", "Design", "2012-05-20", "2025-12-31"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # Longer up to now: the earlier Joined; a contract that runs longer: the later end.
        ("Who has been with us longer, Tove Lind or Raj Mehta?", ["Tove Lind"]),
        ("Who has been working here longer, Raj Mehta or Ola Berg?", ["Ola Berg"]),
        ("Whose contract runs longer, Tove Lind or Raj Mehta?", ["Tove Lind"]),
    ],
)
def test_longer_of_two_named_rows_reads_when_it_began_or_ends(question, values) -> None:
    staff = _table(STAFF, "staff.xlsx › Staff")
    assert followed(question, staff)[0].result.values == values


def test_shorter_up_to_now_is_the_later_start() -> None:
    volunteers = _table(
        [["Volunteer", "Role", "Joined"], ["Ade Cole", "Driver", "2019-04-01"],
         ["Bea Kim", "Cook", "2023-10-12"], ["Cy Ward", "Driver", "2015-01-30"]],
        "volunteers.md",
    )  # fmt: skip
    question = "Who has been volunteering for a shorter time, Ade Cole or Cy Ward?"
    assert followed(question, volunteers)[0].result.values == ["Ade Cole"]
    question = "Who has been volunteering longer, Ade Cole or Bea Kim?"
    assert followed(question, volunteers)[0].result.values == ["Ade Cole"]
    # "No longer" asks for no length of time.
    joined = volunteers.columns[2]
    assert elapsed_direction("who is no longer a driver since joined".split(), joined) == 0
    assert elapsed_direction("who has been a driver longer".split(), joined) == -1
