"""An average asked for is no total, and "last season" is no last row. Asked over tables no
benchmark holds."""

from __future__ import annotations

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed

REFURBS = [
    ["Ref", "Bike", "Hours", "Price"],
    ["R1", "Dawes", "4", "£120"],
    ["R2", "Raleigh", "8", "£150"],
    ["R3", "Islabikes", "3", "£90"],
    ["R4", "Trek", "9", "£200"],
]


def test_an_average_asked_for_adds_up_nothing() -> None:
    refurbs = grid(table_from_rows(REFURBS[0], REFURBS[1:]), "refurbs.html › Refurbished bikes")
    question = "On average, how many hours does it take us to do up a refurb?"
    assert all(c.program.op != "sum" for c in followed(question, refurbs))
    best = followed("How many hours did we spend on refurbs in total?", refurbs)[0]
    assert best.program.op == "sum" and best.result.values == [24.0]


def test_last_season_is_a_time_and_the_last_year_a_row() -> None:
    costs = grid(
        table_from_rows(
            ["Show", "Set", "Marketing"],
            [["Hamlet", "2850", "1180"], ["Cats", "4300", "1650"], ["Rita", "900", "720"]],
        ),
        "costs.pdf › Production costs",
    )
    found = followed("What did we spend on marketing last season?", costs)
    assert all(c.program.op != "last" for c in found)
    wins = grid(
        table_from_rows(["Year", "Place"], [["2019", "1st"], ["2021", "3rd"], ["2023", "1st"]]),
        "results.csv",
    )
    assert followed("What was the last year they came first?", wins)[0].result.values == ["2023"]
