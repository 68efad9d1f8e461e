"""The judge of the parser's programs (knowledge/tables/judge.py): how likely the best program
is to be right, what it weighs, and that the weights shipped are the ones the README reports."""

from __future__ import annotations

import json
import random

import pytest

from knowledge.tables import judge
from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.choice import TableChoice
from knowledge.tables.parser import ranked
from knowledge.tables.rules import relevance, signals

GAMES = table_from_rows(
    ["Date", "Opponent", "Result", "Attendance"],
    [
        ["2009-09-05", "Akron", "Win", "65,000"],
        ["2009-09-12", "Navy", "Loss", "58,500"],
        ["2009-09-19", "Army", "Win", "61,200"],
        ["2009-09-26", "Duke", "Win", "49,800"],
        ["2009-10-03", "Rice", "Loss", "52,100"],
    ],
)


@pytest.fixture(scope="module")
def games():
    return grid(GAMES, "season.csv › 2009 season")


def _judged(question: str, table, op: str, **conditions) -> tuple[dict, float]:
    found = ranked(question, table)
    chosen = next(
        c for c in found
        if c.program.op == op and len(c.program.conditions) == conditions.get("conditions", 0)
    )  # fmt: skip
    choice = TableChoice(0, 0, "season.csv", table, chosen, relevance(question, table))
    found = [chosen] + [c for c in found if c is not chosen]
    said = signals(question, choice, found)
    return said, judge.probability(said)


def test_without_a_judge_the_ranker_s_probability_is_used() -> None:
    assert judge.probability({"p": 0.42, "mass": 0.9}, (0.0, {})) == 0.42


def test_a_fitted_judge_learns_what_tells_right_from_wrong() -> None:
    rng = random.Random(7)
    rows = []
    for _ in range(400):
        asks = rng.random() < 0.5
        # Right 4 times in 5 when the question asks for the operation, 1 in 5 when not.
        rows.append(
            (
                {"asks-operation": float(asks), "p": rng.random()},
                rng.random() < (0.8 if asks else 0.2),
            )
        )
    fitted = judge.fit(rows, c=1.0)
    asked = judge.probability({"asks-operation": 1.0, "p": 0.5}, fitted)
    not_asked = judge.probability({"asks-operation": 0.0, "p": 0.5}, fitted)
    assert asked == pytest.approx(0.8, abs=0.1) and not_asked == pytest.approx(0.2, abs=0.1)
    report = judge.report(rows, fitted, thresholds=(0.5,))
    assert report["from 0.5"]["right"] / report["from 0.5"]["answered"] > 0.7


def test_a_count_that_misses_a_condition_the_cells_hold_is_judged_less_likely(games) -> None:
    question = "How many games did they win in 2009?"
    every_row, p_every = _judged(question, games, "count")
    won, p_won = _judged(question, games, "count", conditions=1)
    # "win" is in the Result cells and the count of every row does not read it.
    assert every_row["missed"] > 0 and won["missed"] == 0
    assert p_won > p_every


def test_the_shipped_judge_names_no_operation_and_reports_its_held_out_half() -> None:
    stored = json.loads(judge.JUDGE_PATH.read_text(encoding="utf-8"))
    assert stored["weights"] and not any("op=" in name for name in stored["weights"])
    held = stored["report"]["b (held out)"]
    # More right than wrong from the answering threshold, on tables the judge was not fitted on.
    assert held["from 0.5"]["right"] * 2 > held["from 0.5"]["answered"]
    # And better than the ranker's own probability on the same questions.
    alone = stored["report"]["ranker alone, b"]["from 0.5"]
    assert (
        held["from 0.5"]["right"] / held["from 0.5"]["answered"]
        > alone["right"] / alone["answered"]
    )


def test_fitting_without_the_team_rows_says_how_to_write_them(tmp_path, monkeypatch) -> None:
    from django.core.management import CommandError, call_command

    from knowledge.management.commands import train_table_parser

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "training.tsv").write_text("id\tutterance\tcontext\ttargetValue\n")
    monkeypatch.setattr(train_table_parser, "TEAM_ROWS_PATH", tmp_path / "missing.jsonl")
    with pytest.raises(CommandError, match="bench/team_judge_rows.py"):
        call_command("train_table_parser", "--judge-only", "--data", str(tmp_path))
