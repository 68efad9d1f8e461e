"""Finding the table a question is about among the shortlisted ones (knowledge/tables/finding.py):
what its signals read, that the softmax it fits learns from them, and the weights it ships."""

from __future__ import annotations

import random

import numpy as np
import pytest

from knowledge.tables import finding
from knowledge.tables.build import grid, table_from_rows

CLUBS = grid(
    table_from_rows(
        ["Season", "Club", "League", "Position"],
        [
            ["2011", "Daegu FC", "K League Classic", "12th"],
            ["2012", "Daegu FC", "K League Classic", "10th"],
            ["2013", "Gangwon FC", "K League Classic", "13th"],
        ],
    ),
    "clubs.csv",
)
MEDALS = grid(
    table_from_rows(
        ["Rank", "Nation", "Gold", "Silver", "Bronze"],
        [
            ["1", "Korea", "9", "3", "2"],
            ["2", "Japan", "4", "6", "1"],
            ["3", "China", "2", "2", "5"],
        ],
    ),
    "medals.csv",
)
QUESTION = "What position did Daegu FC finish in the K League Classic in 2012?"
IDFS = {
    "daegu": 4.0,
    "fc": 2.0,
    "k": 1.0,
    "leagu": 1.5,
    "classic": 3.0,
    "posit": 1.0,
    "finish": 1.0,
}


def test_the_table_holding_the_cells_a_question_names_reads_higher_on_them() -> None:
    # The medal table's rows outvote the clubs' by BM25; the clubs' are nearer by the embedder.
    votes = finding.Votes({1: 8.0, 2: 10.0}, {1: 1.5, 2: 1.2})
    matrix = finding.signals(QUESTION, [2, 1], votes, {1: CLUBS, 2: MEDALS}, {2: 0.6, 1: 0.4}, IDFS)
    signal = dict(zip(finding.SIGNALS, matrix.T, strict=True))
    medals, clubs = 0, 1
    assert signal["row_vote"][medals] == 1.0 and signal["row_vote"][clubs] == 0.8
    assert signal["row_rank"].tolist() == [1.0, 0.5]
    assert signal["dense_vote"][clubs] == 1.0 and signal["dense_vote"][medals] == pytest.approx(0.8)
    assert signal["dense_rank"].tolist() == [0.5, 1.0]
    # "daegu fc" and "k league classic" are whole cells of the clubs' table, none of the medals'.
    assert signal["cells"][clubs] > 0 and signal["cells"][medals] == 0
    assert signal["cells_share"][clubs] == 1.0
    assert signal["idf"][clubs] > signal["idf"][medals]
    assert signal["vote"].tolist() == [0.6, 0.4]


def _example(rng: random.Random, gold_signal: int) -> tuple[np.ndarray, int]:
    """Five tables of random signals; the question's table is the one highest on one signal."""
    matrix = np.asarray([[rng.random() for _ in finding.SIGNALS] for _ in range(5)])
    return matrix, int(matrix[:, gold_signal].argmax())


def test_the_fitted_model_learns_which_signal_names_the_table() -> None:
    rng = random.Random(3)
    cells = finding.SIGNALS.index("cells")
    model = finding.fit([_example(rng, cells) for _ in range(200)], steps=200)
    assert int(np.argmax(model["weights"])) == cells
    held_out = [_example(rng, cells) for _ in range(100)]
    right = sum(int(finding.shares(m, model).argmax()) == gold for m, gold in held_out)
    assert right >= 90
    shares = finding.shares(held_out[0][0], model)
    assert shares.sum() == pytest.approx(1.0)
    # The tables tried: the likeliest few, likeliest first, their shares summing to 1.
    matrix, gold = held_out[0]
    tried = finding.likeliest([10, 11, 12, 13, 14], matrix, model, 3)
    assert len(tried) == 3 and next(iter(tried)) == 10 + int(shares.argmax())
    assert list(tried.values()) == sorted(tried.values(), reverse=True)
    assert sum(tried.values()) == pytest.approx(1.0)


def test_weights_round_trip_and_other_signals_are_not_read(tmp_path) -> None:
    rng = random.Random(5)
    model = finding.fit([_example(rng, 0) for _ in range(50)], steps=50)
    path = tmp_path / "finding.json"
    finding.save(model, path)
    loaded = finding.load_finding(path)
    assert np.allclose(loaded["weights"], model["weights"], atol=1e-5)
    path.write_text(path.read_text().replace('"row_rank"', '"another"'))
    finding.load_finding.cache_clear()
    assert finding.load_finding(path) is None


def test_the_shipped_weights_read_what_the_bench_fitted() -> None:
    """The weights in the repository are `bench/table_finding.py --fit`'s: a cell the question
    names and the row votes (BM25's and the embedder's) raise a table, a large vocabulary
    lowers it."""
    model = finding.load_finding()
    assert model is not None
    weight = dict(zip(finding.SIGNALS, model["weights"], strict=True))
    assert weight["cells"] > 0 and weight["row_vote"] > 0 and weight["vote"] > 0
    assert weight["dense_vote"] > 0
    assert weight["log_vocabulary"] < 0
