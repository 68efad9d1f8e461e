"""A row named in part: "St Luke's" is the row "St Luke's Hospital" when a word of it keeps that
row alone. The program reads the name when the kept row's cell holds it whole; "Kings Cross" is
no "Kings Road Depot". Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.choice import TableChoice
from knowledge.tables.follows import followed
from knowledge.tables.rules import explained, uses_its_names

SITES = [
    ["Hospital", "Beds", "Opened", "Jan", "Mar"],
    ["St Luke's Hospital", "240", "1962", "1200", "1500"],
    ["St Mary's Clinic", "80", "1998", "400", "380"],
    ["Kings Road Depot", "0", "2004", "30", "35"],
]


@pytest.fixture(scope="module")
def sites():
    return grid(table_from_rows(SITES[0], SITES[1:]), "sites.xlsx › Patients")


def _chosen(question, table) -> TableChoice:
    best = explained(question, followed(question, table))
    return TableChoice(0, 0, "sites.xlsx", table, best, 1.0)


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("How many beds does St Luke's have?", ["240"]),
        ("When did St Mary's open?", ["1998"]),
        # A change along the row a name says in part.
        ("How many more patients did St Luke's see in March than in January?", [300.0]),
        ("How many fewer patients did St Mary's see in March than in January?", [20.0]),
    ],
)
def test_a_name_said_in_part_reads_its_row(sites, question, values) -> None:
    choice = _chosen(question, sites)
    assert choice.best.result.values == values
    assert uses_its_names(question, choice)


def test_a_name_the_kept_row_does_not_hold_is_not_read(sites) -> None:
    # "kings" keeps the depot, whose cell does not say "Kings Cross".
    question = "How many beds does Kings Cross have?"
    assert not uses_its_names(question, _chosen(question, sites))


@pytest.mark.parametrize(
    ("rows", "question"),
    [
        # Two rows hold the name.
        ([["St Mary's Clinic", "80", "400", "380"], ["St Mary's Hospital", "300", "900", "950"]],
         "How many more patients did St Mary's see in March than in January?"),
        # One word: a company's name is no product's.
        ([["Acme Pro", "5", "100", "250"], ["Basic", "2", "80", "90"]],
         "How much more did Acme sell in March than in January?"),
        # An initial no cell holds.
        ([["Priya Patel", "5", "30", "35"], ["Karen Smith", "2", "20", "25"]],
         "How many more hours did A. Patel work in March than in January?"),
    ],
)  # fmt: skip
def test_a_name_in_part_that_keeps_no_one_row_names_none(rows, question) -> None:
    table = grid(table_from_rows(["Name", "Staff", "Jan", "Mar"], rows), "people.xlsx")
    best = explained(question, followed(question, table))
    assert (
        best is None
        or best.program.op != "change"
        or not uses_its_names(question, TableChoice(0, 0, "people.xlsx", table, best, 1.0))
    )


def test_a_name_said_in_part_is_a_condition_the_program_reads_whole() -> None:
    courses = grid(
        table_from_rows(
            ["School", "Level", "First session", "Last session"],
            [["Northgate Primary School", "Level 2", "20 April 2026", "24 April 2026"],
             ["Abbey Fields Primary", "Level 2", "8 June 2026", "12 June 2026"],
             ["Riverside Primary", "Level 1", "6 July 2026", "8 July 2026"]],
        ),
        "courses.docx › Bikeability courses, summer term 2026",
    )  # fmt: skip
    question = "When does the Bikeability course at Abbey Fields start?"
    best = followed(question, courses)[0]
    # Of the programs that agree, the one reading "abbey fields", not "fields"; the course
    # starts at its First session; "Bikeability" is the table's own word, no row's name.
    assert [c.value for c in best.program.conditions] == ["abbey fields"]
    assert best.program.target == 2 and best.result.values == ["8 June 2026"]
    assert uses_its_names(question, TableChoice(0, 0, "courses.docx", courses, best, 1.0))


def test_a_label_word_a_cell_holds_is_a_name_to_read_and_fragments_are_no_name() -> None:
    # A review found these admitted: "North" of the label "North region sales" is a row's Region
    # too, so a program that does not read it answers another question.
    sales = grid(
        table_from_rows(
            ["Rep", "Region", "Sales"],
            [["Ann", "North", "400"], ["Bob", "South", "900"], ["Cy", "North", "500"]],
        ),
        "sales.xlsx › North region sales",
    )
    question = "Who had the most sales in the North?"
    best = followed(question, sales)[0]
    choice = TableChoice(0, 0, "sales.xlsx", sales, best, 1.0)
    assert best.result.values == ["Cy"] or not uses_its_names(question, choice)
    # Two one-word fragments ("market", "street") are no name said in part.
    venues = grid(
        table_from_rows(
            ["Venue", "Address", "Capacity"],
            [["Town Hall", "12 Market Street", "400"], ["Market Hall", "3 High Street", "300"]],
        ),
        "venues.md › Venues",
    )
    question = "What is the capacity of the venue on Market Street?"
    best = followed(question, venues)[0]
    choice = TableChoice(0, 0, "venues.md", venues, best, 1.0)
    assert best.result.values == ["400"] or not uses_its_names(question, choice)


def test_a_label_word_every_row_holds_needs_no_reading() -> None:
    # A review found these refused: every shop is in Leeds, so "Leeds" tells no row apart.
    shops = grid(
        table_from_rows(
            ["Shop", "Town", "Staff"],
            [["Headrow", "Leeds", "9"], ["Briggate", "Leeds", "12"], ["Kirkgate", "Leeds", "5"]],
        ),
        "shops.xlsx › Leeds shops",
    )
    question = "Which Leeds shop has the most staff?"
    best = followed(question, shops)[0]
    assert best.result.values == ["Briggate"]
    assert uses_its_names(question, TableChoice(0, 0, "shops.xlsx", shops, best, 1.0))


LAPTOPS = [
    ["Laptop", "Owner", "Cost"],
    ["L-01", "Ana Costa", "1200"],
    ["L-02", "Ben Ode", "900"],
    ["L-03", "Ana Costa", "1100"],
]


@pytest.mark.parametrize(
    ("question", "values"),
    [
        # A possessive after a name is no part of it, when the name keeps several rows too.
        ("What did Ana Costa's laptops cost in total?", [2300.0]),
        ("Which laptops are Ana Costa's?", ["L-01", "L-03"]),
    ],
)
def test_a_name_said_with_a_possessive_is_read(question, values) -> None:
    table = grid(table_from_rows(LAPTOPS[0], LAPTOPS[1:]), "laptops.csv")
    choice = _chosen(question, table)
    assert choice.best.result.values == values
    assert uses_its_names(question, choice)
    # A name the program does not read still counts: Ben Ode's laptop is not hers.
    other = _chosen(question.replace("Ana Costa", "Ben Ode"), table)
    assert not uses_its_names(question, other)
