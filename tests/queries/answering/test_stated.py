"""The values an answer in words asserts: the cells of the cited rows its first sentence states
(queries/answering/stated.py)."""

from __future__ import annotations

import pytest

from queries.answering.stated import stated_values
from queries.answering.types import SourceBlock

HEADERS = ["Office", "Lead", "Opened", "Staff", "Rank", "Grade"]


def row(index: int, cells: list[str], number: int) -> SourceBlock:
    return SourceBlock(
        index=index,
        file_name="offices.xlsx",
        text=" · ".join(f"{h}: {c}" for h, c in zip(HEADERS, cells, strict=True)),
        kind="row",
        structure={"headers": HEADERS, "cells": cells, "row": number},
    )


ROWS = [
    row(1, ["Porto", "Ana Costa", "2019", "1,250", "1", "A"], 1),
    row(2, ["Braga", "Ana", "2021", "40", "2", "B"], 2),
    SourceBlock(index=3, file_name="notes.md", text="Ana Costa moved to Porto in 2018."),
]


@pytest.mark.parametrize(
    ("question", "answer", "values"),
    [
        # The cell the question does not name, of one column.
        ("Who leads the Porto office?", "The Porto office is led by Ana Costa [1].", ["Ana Costa"]),
        # Several rows, one column: a list.
        ("Which offices opened after 2018?", "Braga and Porto [1][2].", ["Porto", "Braga"]),
        # A number cell is a number, as the table reads it; other kinds of dash are one.
        ("How many staff does Porto have?", "Porto has 1,250 staff [1].", [1250]),
        ("Who leads the Porto office?", "Ana Costa – the Porto lead [1].", ["Ana Costa"]),
        # Several columns stated: no one value.
        ("Tell me about Porto.", "Porto opened in 2019 and Ana Costa leads it [1].", []),
        # Nothing cited, a prose passage cited, or a cell only inside a longer word.
        ("Who leads the Porto office?", "Ana Costa leads it.", []),
        ("Who leads the Porto office?", "Ana Costa moved to Porto in 2018 [3].", []),
        ("When did Braga open?", "Braga opened in 20211 [2].", []),
        # A number inside a longer one, a one-letter cell read as a word, and a cell inside a
        # longer cell already read are not stated.
        ("How big is Porto?", "Porto has 1.5 thousand staff [1].", []),
        ("How big is Braga?", "Its ratio is 9.40 [2].", []),
        ("How many staff does Porto have?", "Porto has 1,250 staff, 40 more [1].", [1250]),
        ("Where does Ana Costa work?", "It is a big office: Porto [1].", ["Porto"]),
        ("Who leads the offices?", "Ana Costa leads one [1][2].", ["Ana Costa"]),
        # Only the first sentence of the first line: a table below a lead asserts nothing, and
        # the lead states no value of its rows ("2 rows" is no Rank of 2).
        ("Which offices opened after 2018?", "2 rows match [1][2]:\n| Porto |\n| Braga |", []),
        ("Which offices opened after 2018?", "2 rows match [1]:\n| Porto | 2019 [1] |", []),
        ("Who leads Braga?", "It is not stated [2]. Ana Costa leads Porto [1].", []),
        ("Who leads Braga?", "Braga is run by Ana [2].", ["Ana"]),
    ],
)
def test_an_answer_in_words_asserts_the_cells_it_states(question, answer, values) -> None:
    assert stated_values(question, answer, ROWS) == values


@pytest.mark.parametrize(
    ("kind", "answered_by", "text", "states"),
    [
        ("model", None, "Ana Costa leads it [1].", True),
        ("quote_first", "model", "Ana Costa leads it [1].", True),
        # The extractive quotes assert the values they mean; a decline states none.
        ("quote_first", "extractive", "Ana Costa leads it [1].", False),
        ("extractive", None, "Ana Costa leads it [1].", False),
        ("model", None, "The documents do not mention who leads it [1].", False),
    ],
)
def test_only_a_models_answer_in_words_is_read_for_the_cells_it_states(
    kind, answered_by, text, states
) -> None:
    from types import SimpleNamespace

    from queries.answering.types import Answer
    from queries.pipeline.nodes.reason import _a_models_words

    run = SimpleNamespace(strategy=SimpleNamespace(kind=kind))
    assert _a_models_words(run, Answer(text=text, answered_by=answered_by), text) is states
