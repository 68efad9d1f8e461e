"""Which of the shortlisted tables a question is about, when a knowledge base holds many.

BM25 over the tables' rows shortlists the tables whose rows match the question best
(`store.table_votes`). Among them, the table a question is about holds more of what it says:
its rarer words anywhere in the table (weighed by their BM25 idf in the searched knowledge
bases), and the cells it names word for word ("Daegu FC", "k league classic"), weighed by their
length and rarity; a table with a large vocabulary holds many words by chance. A softmax
regression over these signals and the row votes orders the shortlist, and its probabilities are
the tables' shares (how likely the question is about each).

It is fitted on WikiTableQuestions' training split, on questions of the dev fifth's tables with
all 340 of those tables in one knowledge base, and measured on a held-out sample of the same
split (`bench/table_finding.py --fit` writes `finding_weights.json`). Without the file the
shortlist keeps its order by votes.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from knowledge.tables.programs import Grid, fold
from knowledge.tables.question import STOPWORDS
from providers.tokenize import bm25_tokens

FINDING_PATH = Path(__file__).with_name("finding_weights.json")
# The signals, in the order of the stored weights.
SIGNALS = (
    "row_vote",
    "log_row_vote",
    "dense_vote",
    "dense_rank",
    "idf_share",
    "cells_share",
    "idf",
    "cells",
    "log_vocabulary",
    "vote",
    "row_rank",
)
# The longest phrase of the question looked for as a whole cell, in words.
LONGEST_CELL = 6
# A table the embedder shortlists that BM25 gave no row vote reads as this share of the best.
LEAST_SHARE = 0.01


@dataclass
class Votes:
    """The tables' row votes for a question: BM25's (the sum of its two best rows' scores) and
    the embedder's (the sum of its two nearest rows' cosines)."""

    lexical: dict[int, float] = field(default_factory=dict)
    dense: dict[int, float] = field(default_factory=dict)


@functools.cache
def load_finding(path: Path = FINDING_PATH) -> dict | None:
    """Return the fitted weights with the signals' means and spreads (None without a file)."""
    if not path.exists():
        return None
    stored = json.loads(path.read_text(encoding="utf-8"))
    if list(stored["signals"]) != list(SIGNALS):
        return None  # fitted over other signals: the shortlist keeps its order
    return {key: np.asarray(stored[key], dtype=float) for key in ("weights", "mean", "spread")}


def table_words(grid: Grid) -> set[str]:
    """Return a table's BM25 terms: its label's, its headers' and its cells'."""
    texts = [grid.label, *(column.name for column in grid.columns)]
    texts += [value for column in grid.columns for value in column.folded if value]
    return set(bm25_tokens(" ".join(texts)))


def cell_names(grid: Grid) -> set[str]:
    """Return a table's headers and cells, folded, as whole phrases."""
    names = {fold(column.name) for column in grid.columns}
    names |= {value for column in grid.columns for value in column.folded if value}
    names.discard("")
    return names


def named_cells(question: str, names: set[str], idfs: dict[str, float]) -> float:
    """Return how much of the question names the table's cells word for word: each phrase of
    up to LONGEST_CELL words that is a whole cell or header, by its words' idf."""
    words = fold(question).split()
    found = 0.0
    for length in range(1, LONGEST_CELL + 1):
        for start in range(len(words) - length + 1):
            phrase = " ".join(words[start : start + length])
            if phrase in names and (length > 1 or phrase not in STOPWORDS):
                found += sum(idfs.get(term, 0.0) for term in bm25_tokens(phrase))
    return found


def signals(
    question: str,
    shortlist: list[int],
    row_votes: Votes,
    grids: dict[int, Grid],
    votes: dict[int, float],
    idfs: dict[str, float],
) -> np.ndarray:
    """Return one row of SIGNALS per shortlisted table (ordered by its BM25 row vote, best
    first): `votes` are the shares by votes and relevance the store gives without this model,
    `idfs` the question's terms' BM25 idf in the searched knowledge bases."""
    terms = set(bm25_tokens(question))
    found = []
    for table_id in shortlist:
        grid = grids[table_id]
        words = table_words(grid)
        held = sum(idfs.get(term, 0.0) for term in terms & words)
        found.append((held, named_cells(question, cell_names(grid), idfs), len(words)))
    top = max(row_votes.lexical.get(shortlist[0], 0.0), 1e-9)
    nearest = max(max(row_votes.dense.values(), default=0.0), 1e-9)
    dense_order = sorted(row_votes.dense, key=row_votes.dense.__getitem__, reverse=True)
    dense_ranks = {table_id: rank for rank, table_id in enumerate(dense_order, start=1)}
    most_held = max(held for held, _, _ in found) or 1.0
    most_named = max(named for _, named, _ in found) or 1.0
    rows = []
    for rank, (table_id, (held, named, size)) in enumerate(zip(shortlist, found, strict=True)):
        share = row_votes.lexical.get(table_id, 0.0) / top
        dense_rank = dense_ranks.get(table_id, 0)
        rows.append(
            [
                share,
                math.log(max(share, LEAST_SHARE)),
                row_votes.dense.get(table_id, 0.0) / nearest,
                1.0 / dense_rank if dense_rank else 0.0,
                held / most_held,
                named / most_named,
                held,
                named,
                math.log(10 + size),
                votes.get(table_id, 0.0),
                1.0 / (rank + 1),
            ]
        )
    return np.asarray(rows, dtype=float)


def shares(matrix: np.ndarray, model: dict) -> np.ndarray:
    """Return each table's probability under the fitted model (the rows of `matrix` sum to 1)."""
    scores = ((matrix - model["mean"]) / model["spread"]) @ model["weights"]
    exps = np.exp(scores - scores.max())
    return exps / exps.sum()


def likeliest(
    shortlist: list[int], matrix: np.ndarray, model: dict, limit: int
) -> dict[int, float]:
    """Return the `limit` likeliest of the shortlisted tables, likeliest first, each with its
    share of their probabilities."""
    probabilities = shares(matrix, model)
    order = sorted(range(len(shortlist)), key=lambda i: -probabilities[i])[:limit]
    total = float(sum(probabilities[i] for i in order)) or 1.0
    return {shortlist[i]: float(probabilities[i]) / total for i in order}


def fit(
    examples: list[tuple[np.ndarray, int]], *, steps: int = 600, rate: float = 0.3, l2: float = 1e-2
) -> dict:
    """Return a model fitted on (signals, index of the question's table) pairs by gradient
    descent on the softmax's log loss (deterministic: it starts from zero)."""
    stacked = np.vstack([matrix for matrix, _ in examples])
    mean, spread = stacked.mean(axis=0), stacked.std(axis=0) + 1e-9
    scaled = [((matrix - mean) / spread, gold) for matrix, gold in examples]
    weights = np.zeros(len(SIGNALS))
    for _ in range(steps):
        gradient = l2 * weights
        for matrix, gold in scaled:
            scores = matrix @ weights
            probabilities = np.exp(scores - scores.max())
            probabilities /= probabilities.sum()
            gradient += (matrix.T @ probabilities - matrix[gold]) / len(scaled)
        weights -= rate * gradient
    return {"weights": weights, "mean": mean, "spread": spread}


def save(model: dict, path: Path = FINDING_PATH) -> None:
    """Write a fitted model where `load_finding` reads it."""
    stored = {"signals": list(SIGNALS)}
    stored |= {
        key: [round(float(v), 6) for v in model[key]] for key in ("weights", "mean", "spread")
    }
    path.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
    load_finding.cache_clear()
