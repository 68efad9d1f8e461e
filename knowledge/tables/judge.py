"""The table parser's judge: how likely the parser's best program is to be right.

The ranker (knowledge/tables/parser.py) orders a question's candidate programs; its probability
says how the best compares with the others, not how often such a best is right (a question with
two near-identical candidates may be sure of either). The judge turns what is known of the best
program into the probability that its result is the answer: the ranker's probability and the
margin to the next different result, whether a word of the question asks for the program's
operation, whether it reads a column the question names, how much of the question the table
and the program account for, the operation, the size and type of the result, the question's
first word. It is a logistic regression (scikit-learn) fitted on the half `a` of the
WikiTableQuestions training split's held-out fifth (`dev`: tables the ranker was not trained
on, so its probabilities there are the ones it gives to unseen tables) and on the team-tables
sets' tuning questions (`bench/team_judge_rows.py`: a team's workbooks, CSVs and slides, whose
best program holds a smaller share of the votes than a lone Wikipedia table's), and reported
on the half `b` beside it and on each team set by a judge fitted without that set
(`manage.py train_table_parser --judge-only`, knowledge/tables/training.py).

The table store answers only from `TABLE_ANSWER_MIN` and verifies from `TABLE_VERIFY_MIN` of
this probability, instead of a rule per way of being wrong: rules written one question at a
time broke on the next question of the same kind.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

JUDGE_PATH = Path(__file__).with_name("judge_weights.json")


@functools.cache
def load_judge(path: Path = JUDGE_PATH) -> tuple[float, dict[str, float]]:
    """Return the judge's intercept and its weight per signal ((0.0, {}) without a file)."""
    if not path.exists():
        return 0.0, {}
    stored = json.loads(path.read_text(encoding="utf-8"))
    return float(stored["intercept"]), {k: float(v) for k, v in stored["weights"].items()}


def probability(
    signals: dict[str, float], judge: tuple[float, dict[str, float]] | None = None
) -> float:
    """Return the probability that the program these signals describe is right."""
    intercept, weights = load_judge() if judge is None else judge
    if not weights:
        # No judge: the ranker's probability, as before the judge.
        return float(signals.get("p", 0.0))
    logit = intercept + sum(weights.get(name, 0.0) * value for name, value in signals.items())
    return 1.0 / (1.0 + math.exp(-max(min(logit, 30.0), -30.0)))


def fit(
    rows: list[tuple[dict[str, float], bool]], *, c: float = 1.0
) -> tuple[float, dict[str, float]]:
    """Return a judge fitted on (signals, right) pairs."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = DictVectorizer(sparse=False)
    matrix = vectorizer.fit_transform([signals for signals, _ in rows])
    labels = [bool(right) for _, right in rows]
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit(matrix, labels)
    weights = {
        name: round(float(weight), 4)
        for name, weight in zip(vectorizer.get_feature_names_out(), model.coef_[0], strict=True)
        if abs(weight) >= 1e-4
    }
    return round(float(model.intercept_[0]), 4), weights


def report(
    rows: list[tuple[dict[str, float], bool]],
    judge,
    thresholds=(0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9),
) -> dict:
    """Return, for each threshold, how many questions the judge lets the program answer and how
    many of those are right, and the log loss (how well its probabilities are calibrated)."""
    scored = [(probability(signals, judge), right) for signals, right in rows]
    out: dict = {"questions": len(rows), "right_top": sum(right for _, right in rows)}
    for threshold in thresholds:
        kept = [right for p, right in scored if p >= threshold]
        out[f"from {threshold}"] = {"answered": len(kept), "right": sum(kept)}
    eps = 1e-6
    out["log_loss"] = round(
        -sum(math.log(p + eps) if right else math.log(1 - p + eps) for p, right in scored)
        / max(len(scored), 1),
        4,
    )
    return out
