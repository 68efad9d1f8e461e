"""BM25 tokens: lowercase words, stop words removed, English Snowball stems."""

from __future__ import annotations

import threading

from providers.tokenize import STOP_WORDS, bm25_tokens, raw_tokens


def test_raw_tokens_are_lowercase_words_with_nothing_removed() -> None:
    assert raw_tokens("The Researchers, at CERN: BM25-ranked café!") == [
        "the", "researchers", "at", "cern", "bm25", "ranked", "café",
    ]  # fmt: skip


def test_bm25_tokens_drop_stop_words_and_stem() -> None:
    tokens = bm25_tokens("The researchers were running experiments at CERN and it was retrieval")

    assert tokens == ["research", "were", "run", "experi", "cern", "retriev"]


def test_inflections_share_a_stem() -> None:
    assert bm25_tokens("indexing indexed indexes") == ["index", "index", "index"]


def test_stop_word_list_is_lucenes_english_set() -> None:
    assert len(STOP_WORDS) == 33
    assert {"the", "and", "with", "such", "into"} <= STOP_WORDS
    assert bm25_tokens("to be or not to be") == []


def test_stemming_is_consistent_across_threads() -> None:
    results: list[list[str]] = []

    def work() -> None:
        for _ in range(200):
            results.append(bm25_tokens("Marie Curie studied radioactive elements"))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(results) == 800
    assert all(tokens == ["mari", "curi", "studi", "radioact", "element"] for tokens in results)
