"""Which tried table answers among many (knowledge/tables/choosing.py): the softmax it fits learns
from its signals, its weights round-trip, and the store's pick weighs the fitted score only for
tables found among many."""

from __future__ import annotations

import random

import numpy as np

from knowledge.tables import choosing
from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.choice import TableChoice
from knowledge.tables.parser import Candidate
from knowledge.tables.programs import Program, Result

GRID = grid(table_from_rows(["Nation", "Gold"], [["Korea", "9"], ["Japan", "4"]]), "medals.csv")


def _choice(table_id: int, *, confidence: float, vote: float, relevance: float) -> TableChoice:
    best = Candidate(Program("lookup", target=0), Result(["Korea"], [0]), {}, 0.9)
    choice = TableChoice(table_id, table_id, "medals.csv", GRID, best, relevance, vote=vote)
    choice.confidence = confidence
    return choice


def _example(rng: random.Random) -> tuple[np.ndarray, list[bool]]:
    """Four tried tables: the right one's program is likelier by the judge, its vote is noise."""
    right = rng.randrange(4)
    rows = [
        [rng.gauss(2.0 if i == right else -1.0, 0.5), rng.gauss(-2.0, 1.0)] for i in range(4)
    ]
    return np.asarray(rows), [i == right for i in range(4)]


def test_the_fitted_choice_learns_which_signal_marks_the_right_table() -> None:
    rng = random.Random(4)
    model = choosing.fit([_example(rng) for _ in range(150)], steps=200)
    weight = dict(zip(choosing.SIGNALS, model["weights"], strict=True))
    assert weight["logit"] > 1.0 > abs(weight["log_vote"])


def test_a_question_two_tables_answer_rightly_pulls_towards_both() -> None:
    # Two right tables of four: neither is pushed down for the other.
    rows = np.asarray([[1.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]])
    model = choosing.fit([(rows, [True, True, False, False])] * 10, steps=100)
    assert model["weights"][0] > 0


def test_weights_round_trip_and_other_signals_are_not_read(tmp_path) -> None:
    rng = random.Random(5)
    model = choosing.fit([_example(rng) for _ in range(40)], steps=50)
    path = tmp_path / "choosing.json"
    choosing.save(model, path)
    loaded = choosing.load_choosing(path)
    assert np.allclose(loaded["weights"], model["weights"], atol=1e-5)
    path.write_text(path.read_text().replace('"log_vote"', '"another"'))
    choosing.load_choosing.cache_clear()
    assert choosing.load_choosing(path) is None
    choosing.load_choosing.cache_clear()


def test_the_shipped_weights_raise_a_likelier_program_and_a_larger_vote() -> None:
    """The weights in the repository are `bench/table_choice.py --fit`'s."""
    model = choosing.load_choosing()
    assert model is not None
    weight = dict(zip(choosing.SIGNALS, model["weights"], strict=True))
    assert weight["logit"] > 0 and weight["log_vote"] > 0


def test_among_many_tables_the_fitted_score_stands_in_for_the_hand_set_fit() -> None:
    # The hand-set fit (0.9 × 0.3 × 0.5 against 0.5 × 0.7 × 1.0) puts the second first; the
    # fitted choice weighs the judge's sureness of the first's program above the vote and
    # relevance it lacks.
    sure = _choice(1, confidence=0.9, vote=0.3, relevance=0.5)
    near = _choice(2, confidence=0.5, vote=0.7, relevance=1.0)
    tried = [(sure, (True, False, 0.9 * 0.3 * 0.5)), (near, (True, False, 0.5 * 0.7 * 1.0))]
    assert choosing.best_tried(tried, {1: 0.3, 2: 0.7}) is sure
    # The rules' standing still comes first: a program that reads every name the question says.
    unnamed = [(sure, (False, False, 0.135)), (near, (True, False, 0.35))]
    assert choosing.best_tried(unnamed, {1: 0.3, 2: 0.7}) is near
    # Every table tried (a knowledge base of a few: each has the whole vote): the hand-set fit.
    assert choosing.best_tried(tried, {1: 1.0, 2: 1.0}) is near
    assert choosing.best_tried([], {}) is None
