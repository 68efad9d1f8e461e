"""An average asked for is no total; "last quarter" over quarters is the last row. Asked over
tables no benchmark holds."""

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


def test_last_quarter_over_rows_of_quarters_is_the_last_row() -> None:
    # A review found "last quarter" read as no last row lose these; "last" stays an order.
    revenue = grid(
        table_from_rows(
            ["Quarter", "Revenue", "Costs"],
            [["Q1 2024", "120", "80"], ["Q2 2024", "140", "95"], ["Q3 2024", "100", "70"],
             ["Q4 2024", "110", "88"]],
        ),
        "revenue.xlsx › Quarterly revenue",
    )  # fmt: skip
    assert followed("What was the revenue last quarter?", revenue)[0].result.values == ["110"]
    wins = grid(
        table_from_rows(["Year", "Place"], [["2019", "1st"], ["2021", "3rd"], ["2023", "1st"]]),
        "results.csv",
    )
    assert followed("What was the last year they came first?", wins)[0].result.values == ["2023"]
