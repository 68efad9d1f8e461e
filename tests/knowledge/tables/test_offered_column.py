"""Which of two side-by-side columns a question offers holds more (or less) of the row it
names: "is a cat spay cheaper at Millbrook or at Ironwood Road?" of a price list with a column
per site (knowledge/tables/change.py `offered_column`); "cheaper" asks for the smaller amount.
Asked over tables no benchmark holds."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.follows import followed
from knowledge.tables.question import asked_direction

PRICES = [
    ["Treatment", "Town surgery", "Farm clinic", "Minutes"],
    ["Cat spay", "£135", "£128", "60"],
    ["Dog castration", "£210", "£225", "75"],
    ["Nail clip", "£12", "£10", "10"],
]


@pytest.fixture(scope="module")
def prices():
    return grid(table_from_rows(PRICES[0], PRICES[1:]), "prices.html › Our prices")


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Is a cat spay cheaper at the farm clinic or at the town surgery?", ["Farm clinic"]),
        ("Is dog castration dearer at the town surgery or the farm clinic?", ["Farm clinic"]),
        ("Where is a nail clip cheaper, town surgery or farm clinic?", ["Farm clinic"]),
    ],
)
def test_the_offered_column_with_the_less_or_the_more(prices, question, values) -> None:
    found = followed(question, prices)
    assert found[0].result.values == values, found[0].program


def test_one_column_named_is_its_cell(prices) -> None:
    found = followed("What does a cat spay cost at the farm clinic?", prices)
    assert found[0].result.values == ["£128"], found[0].program


def test_cheaper_asks_for_less_and_dearer_for_more() -> None:
    assert asked_direction("which is cheaper".split()) == -1
    assert asked_direction("the dearest one".split()) == 1


LEAGUE = [
    ["Team", "2023", "2024", "2025"],
    ["Under 12s", "3", "5", "2"],
    ["Under 14s", "1", "4", "6"],
]
STOCK = [["Item", "Town surgery", "Farm clinic"], ["Whiskas 12-pack", "14", "6"]]


def test_no_column_offered_of_positions_nor_cheaper_of_stock() -> None:
    from knowledge.tables.periods import offered_column

    league = grid(table_from_rows(LEAGUE[0], LEAGUE[1:]), "league.xlsx › Final league position")
    assert offered_column("Did the under 12s finish highest in 2024 or 2025?", league) is None
    stock = grid(table_from_rows(STOCK[0], STOCK[1:]), "stock.xlsx › Stock on hand by site")
    question = "Is a Whiskas 12-pack cheaper at the town surgery or the farm clinic?"
    assert offered_column(question, stock) is None
