"""trec_eval definitions of nDCG@10 and Recall@100 used by evaluate_retrieval."""

from __future__ import annotations

import math

import pytest

from knowledge.evaluation import ndcg_at, recall_at


def test_ndcg_uses_linear_gains_and_the_ideal_from_all_judgements():
    judged = {"a": 2, "b": 1, "c": 1}
    dcg = 1 / math.log2(3) + 2 / math.log2(4)  # b at rank 2, a at rank 3
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at(["x", "b", "a"], judged) == pytest.approx(dcg / idcg)
    assert ndcg_at(["a", "b", "c"], judged) == pytest.approx(1.0)
    assert ndcg_at([], judged) == 0.0


def test_recall_counts_relevant_documents_in_the_top_k():
    judged = {"a": 1, "b": 1, "z": 0}
    assert recall_at(["a", "x"], judged) == 0.5
    assert recall_at(["x"] * 100 + ["a"], judged) == 0.0
