"""Which of the tables tried answers: a fitted choice among their best programs.

When a knowledge base holds many tables, the store tries the few the finding model puts first
(knowledge/tables/finding.py) and takes each one's best program (store.tried_tables); one of
them answers. The rules' standing puts first a program that reads every name the question says,
then one that orders on the column its "most" names (rules.standing); among the rest, the one
likeliest right. How likely is fitted here, a softmax over the tried tables of the judge's
log-odds that the table's program is right (knowledge/tables/judge.py) and the log of the
table's share of the finding's votes, instead of the hand-set product of the judge's
probability, the table's share and its relevance. It is fitted on WikiTableQuestions' training
split (900 questions of the dev fifth's tables, all 340 of them in one knowledge base;
`bench/table_choice.py --fit` writes `choosing_weights.json`) and measured on 300 held-out
questions of the same split. More signals (the table's relevance, the program's share, the
table's place among those tried) fitted no better on the questions fitted on. Without the file,
or when every table is tried (a knowledge base of a few tables: each has the whole vote), the
hand-set fit decides.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np

from knowledge.tables.choice import TableChoice

CHOOSING_PATH = Path(__file__).with_name("choosing_weights.json")
# The signals, in the order of the stored weights.
SIGNALS = ("logit", "log_vote")
# No probability is read as less than this (its logarithm stays finite).
LEAST = 1e-4


@functools.cache
def load_choosing(path: Path = CHOOSING_PATH) -> dict | None:
    """Return the fitted weights with the signals' means and spreads (None without a file)."""
    if not path.exists():
        return None
    stored = json.loads(path.read_text(encoding="utf-8"))
    if list(stored["signals"]) != list(SIGNALS):
        return None  # fitted over other signals: the hand-set fit decides
    return {key: np.asarray(stored[key], dtype=float) for key in ("weights", "mean", "spread")}


def signals(choice: TableChoice) -> dict[str, float]:
    """Return what the choice weighs of one tried table's best program: the judge's log-odds
    that it is right and the log of the table's share of the votes."""
    confidence = min(max(choice.confidence, LEAST), 1 - LEAST)
    return {
        "logit": math.log(confidence / (1 - confidence)),
        "log_vote": math.log(max(choice.vote, LEAST)),
    }


def matrix(choices: list[TableChoice]) -> np.ndarray:
    """Return one row of SIGNALS per tried table, in the order they were tried."""
    rows = [signals(choice) for choice in choices]
    return np.asarray([[row[name] for name in SIGNALS] for row in rows], dtype=float)


def scores(choices: list[TableChoice], model: dict) -> list[float]:
    """Return each tried table's score under the fitted model (higher is likelier right)."""
    found = ((matrix(choices) - model["mean"]) / model["spread"]) @ model["weights"]
    return [float(score) for score in found]


def fit(
    examples: list[tuple[np.ndarray, list[bool]]],
    *,
    steps: int = 800,
    rate: float = 0.3,
    l2: float = 1e-2,
) -> dict:
    """Return a model fitted on (signals, which tables' programs are right) pairs: gradient
    descent on the log of the probability the softmax gives the right ones (deterministic: it
    starts from zero)."""
    stacked = np.vstack([signals for signals, _ in examples])
    mean, spread = stacked.mean(axis=0), stacked.std(axis=0) + 1e-9
    scaled = [((signals - mean) / spread, np.asarray(labels, bool)) for signals, labels in examples]
    weights = np.zeros(len(SIGNALS))
    for _ in range(steps):
        gradient = l2 * weights
        for signals, labels in scaled:
            found = signals @ weights
            probabilities = np.exp(found - found.max())
            probabilities /= probabilities.sum()
            wanted = np.where(labels, probabilities, 0.0)
            wanted /= wanted.sum()
            gradient += (signals.T @ (probabilities - wanted)) / len(scaled)
        weights -= rate * gradient
    return {"weights": weights, "mean": mean, "spread": spread}


def save(model: dict, path: Path = CHOOSING_PATH) -> None:
    """Write a fitted model where `load_choosing` reads it."""
    stored = {"signals": list(SIGNALS)}
    stored |= {
        key: [round(float(v), 6) for v in model[key]] for key in ("weights", "mean", "spread")
    }
    path.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
    load_choosing.cache_clear()


def best_tried(
    tried: list[tuple[TableChoice, tuple]], votes: dict[int, float]
) -> TableChoice | None:
    """Return the tried table's program that stands highest (`tried`: each with its standing,
    rules.standing, whose last part is the hand-set fit). Among tables found among many (some
    vote below 1.0), the fitted choice's score stands in for the hand-set fit."""
    model = load_choosing()
    if model is not None and len(tried) > 1 and min(votes.values(), default=1.0) < 1.0:
        fitted = scores([choice for choice, _ in tried], model)
        tried = [(c, (*stands[:-1], f)) for (c, stands), f in zip(tried, fitted, strict=True)]
    return max(tried, key=lambda pair: pair[1], default=(None, ()))[0]
