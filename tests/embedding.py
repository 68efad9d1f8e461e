"""A small deterministic embedder for the processes tests start (EMBEDDER_PLUGIN).

A live web process or worker would otherwise import sentence-transformers and load
all-MiniLM-L6-v2 (about 10 s of a core each, dozens of processes a run) for tests about
streams, processes and pages, not about what the embedder finds. Each word (lowercased, as
the text spells it) adds a fixed pseudo-random direction, so texts that share words are near
and a text's vector is the same in every process. The test process uses the same encoder for
those tests (tests/conftest.py `_live_embedder`, HASH_EMBEDDER_FIXTURES), so what it ingests
and what the live processes search agree. Tests about what the model finds keep it.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

DIMENSIONS = 384
WORD = re.compile(r"\w+")
# Every vector leans a little along one axis, so no text (not even an empty one) has a zero
# vector, whose cosine is undefined.
BIAS = 0.05


def _direction(word: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
    return np.random.default_rng(seed).standard_normal(DIMENSIONS).astype(np.float32)


class HashEncoder:
    """SentenceTransformer's `encode` for the embedder's callers, from words alone."""

    def __init__(self) -> None:
        self.words: dict[str, np.ndarray] = {}

    def _word(self, word: str) -> np.ndarray:
        vector = self.words.get(word)
        if vector is None:
            vector = self.words[word] = _direction(word)
        return vector

    def encode(self, texts, **options) -> np.ndarray:
        vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in WORD.findall(text.lower()):
                vectors[row] += self._word(word)
            norm = float(np.linalg.norm(vectors[row])) or 1.0
            vectors[row] /= norm
            vectors[row, 0] += BIAS
            vectors[row] /= float(np.linalg.norm(vectors[row]))
        return vectors


def use_hash_embedder(patch, encoder, word_cache: dict) -> None:
    """Embed with `encoder` (a HashEncoder) in this process and in the processes started
    while `patch` (a pytest MonkeyPatch) holds."""
    from providers import embedder
    from tests import support

    patch.setattr(embedder, "get_model", lambda: encoder)
    # Word vectors are cached by word: this embedder's apart from the model's.
    patch.setattr(embedder, "_word_cache", word_cache)
    patch.setitem(support.spawned_embedder, "plugin", support.HASH_EMBEDDER)
