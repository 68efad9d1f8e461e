"""The reranker: the spec's cross-encoder when its files are on this machine, else a fallback.

The fallback is still one comparable number per (query, passage): the cosine similarity of the
query's and the passage's embeddings (all-MiniLM-L6-v2), blended with a per-pair lexical match
(BM25 saturation of the query's terms in the passage, divided by the most the query could score,
so it lies in 0..1). It never falls back to the stores' raw scores, which are not comparable.
Which reranker is active is reported by /api/health and on the reranker's stage data.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings

from providers import embedder
from providers.tokenize import bm25_tokens

logger = logging.getLogger(__name__)

KIND_CROSS_ENCODER = "cross-encoder"
KIND_FALLBACK = "embedding-cosine+lexical"
KIND_FUSED = "fused-rank"

_lock = threading.Lock()
_active: Reranker | None = None
_load_error: str = ""


@dataclass
class Passage:
    """What a reranker reads: the text, and the stored embedding when there is one."""

    text: str
    embedding: np.ndarray | None = None


class Reranker:
    """Scores (query, passage) pairs on one scale."""

    name: str = ""
    kind: str = ""

    @property
    def floor(self) -> float:
        """Return the best score below which the evidence counts as irrelevant."""
        raise NotImplementedError

    def score(self, query: str, passages: list[Passage]) -> list[float]:
        raise NotImplementedError

    def describe(self) -> dict:
        return {"name": self.name, "kind": self.kind, "floor": self.floor}


class CrossEncoderReranker(Reranker):
    """A sentence-transformers CrossEncoder; scores are raw logits (negative = irrelevant)."""

    kind = KIND_CROSS_ENCODER

    def __init__(self, path: str, name: str) -> None:
        import torch
        from sentence_transformers import CrossEncoder

        self.name = name
        self.model = CrossEncoder(
            path, device="cpu", local_files_only=True, activation_fn=torch.nn.Identity()
        )

    @property
    def floor(self) -> float:
        return settings.RERANK_FLOOR_CROSS_ENCODER

    def score(self, query: str, passages: list[Passage]) -> list[float]:
        if not passages:
            return []
        import torch

        scores = self.model.predict(
            [(query, passage.text) for passage in passages],
            batch_size=32,
            show_progress_bar=False,
            activation_fn=torch.nn.Identity(),
        )
        return [float(value) for value in np.asarray(scores).reshape(-1)]


class FallbackReranker(Reranker):
    """Cosine of embeddings blended with a normalised per-pair BM25 match."""

    kind = KIND_FALLBACK
    name = "all-MiniLM-L6-v2 cosine + lexical"

    def __init__(self, lexical_weight: float | None = None, idf=None) -> None:
        self.lexical_weight = (
            settings.RERANK_FALLBACK_LEXICAL_WEIGHT if lexical_weight is None else lexical_weight
        )
        self.idf = idf

    @property
    def floor(self) -> float:
        return settings.RERANK_FLOOR_FALLBACK

    def score(
        self, query: str, passages: list[Passage], idf: dict[str, float] | None = None
    ) -> list[float]:
        if not passages:
            return []
        query_vector = embedder.embed_query(query)
        missing = [i for i, passage in enumerate(passages) if passage.embedding is None]
        if missing:
            encoded = embedder.embed_texts([passages[i].text for i in missing])
            for i, vector in zip(missing, encoded):
                passages[i].embedding = vector
        matrix = np.vstack([np.asarray(p.embedding, dtype=np.float32) for p in passages])
        cosine = matrix @ query_vector
        if not self.lexical_weight:
            return [float(value) for value in cosine]
        lexical = lexical_match(query, [p.text for p in passages], idf or (self.idf or {}))
        weight = self.lexical_weight
        return [float((1 - weight) * cos + weight * lex) for cos, lex in zip(cosine, lexical)]


class FusedRankOrder(Reranker):
    """No reranking (a re-run's `reranker: false`): keep the fused order, scored by fused rank.

    It scores nothing itself: the fused (reciprocal-rank) score is already on each candidate,
    so `knowledge.retrieval.rerank` keeps the aggregator's order and reports that score.
    """

    kind = KIND_FUSED
    name = "off: reciprocal-rank-fusion order"

    @property
    def floor(self) -> float:
        # Fused scores are ranks, not relevance: they say nothing about weak evidence.
        return 0.0

    def score(self, query: str, passages: list[Passage]) -> list[float]:
        raise NotImplementedError("the fused order is kept by the caller")


def lexical_match(
    query: str, texts: list[str], idf: dict[str, float], k1: float = 1.2
) -> list[float]:
    """Return, per text, the query's BM25-style term saturation over its maximum (0..1).

    Each query term contributes idf * tf * (k1 + 1) / (tf + k1); dividing by the sum of the
    query terms' idf * (k1 + 1) makes the number independent of the query's length. Terms the
    corpus has never seen get the largest idf of the query's known terms (or 1.0).
    """
    terms = list(dict.fromkeys(bm25_tokens(query)))
    if not terms:
        return [0.0] * len(texts)
    default = max((idf[t] for t in terms if t in idf), default=1.0)
    weights = {t: max(idf.get(t, default), 0.0) for t in terms}
    best = sum(weights.values()) * (k1 + 1)
    if best <= 0:
        return [0.0] * len(texts)
    scores = []
    for text in texts:
        counts = Counter(bm25_tokens(text))
        total = 0.0
        for term, weight in weights.items():
            tf = counts.get(term, 0)
            if tf:
                total += weight * tf * (k1 + 1) / (tf + k1)
        scores.append(total / best)
    return scores


def _resolve_local(name: str) -> str | None:
    path = Path(name).expanduser()
    if path.is_dir():
        return str(path)
    try:
        from huggingface_hub import snapshot_download

        return snapshot_download(name, local_files_only=True)
    except Exception:
        return None


def get_reranker() -> Reranker:
    """Return the process-wide reranker, loading the cross-encoder once if it is available."""
    global _active, _load_error
    if _active is None:
        with _lock:
            if _active is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                name = settings.RERANKER_MODEL
                path = _resolve_local(name) if name else None
                if path is None:
                    _load_error = f"{name!r} is not a local folder or in the local model cache"
                    _active = FallbackReranker()
                else:
                    try:
                        _active = CrossEncoderReranker(path, name)
                        _load_error = ""
                    except Exception as exc:  # a broken model must not stop the pipeline
                        logger.warning("cross-encoder %s failed to load: %s", name, exc)
                        _load_error = f"{type(exc).__name__}: {exc}"
                        _active = FallbackReranker()
    return _active


def reset() -> None:
    """Forget the loaded reranker (after RERANKER_MODEL changes)."""
    global _active, _load_error
    with _lock:
        _active = None
        _load_error = ""


def status() -> dict:
    """Report the active reranker for /api/health."""
    reranker = get_reranker()
    report = {"ready": True, **reranker.describe(), "configured": settings.RERANKER_MODEL}
    if _load_error:
        report["fallback_reason"] = _load_error
    return report
