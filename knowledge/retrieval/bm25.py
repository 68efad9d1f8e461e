"""BM25Okapi in SQL over exactly the knowledge bases a query may search.

The scores equal `rank_bm25.BM25Okapi(corpus).get_scores(query_tokens)` over the same tokens,
where the corpus is every chunk of the searched KBs: idf = ln(N - df + 0.5) - ln(df + 0.5), and
a negative idf is replaced by epsilon times the corpus's average idf, as rank_bm25 does.

A metadata filter narrows which chunks are scored (a condition in the scoring query), not the
corpus: N, avgdl and idf stay those of the searched KBs, so a passage scores the same with or
without a filter and the per-KB statistics serve every filter.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from dataclasses import dataclass

from django.db import connection

from knowledge.retrieval.filters import DocumentFilter, as_filter
from providers.tokenize import bm25_tokens

K1 = 1.5
B = 0.75
EPSILON = 0.25

_average_idf_cache: dict[tuple, float] = {}
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class CorpusStats:
    """The size and average chunk length of the searched corpus, and a version for caching."""

    chunk_count: int
    average_length: float
    version: tuple


def corpus_stats(kb_ids: list[int]) -> CorpusStats:
    """Read N and avgdl of the searched KBs from their per-KB statistics."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(chunk_count), 0), coalesce(sum(token_total), 0), "
            "max(updated_at) FROM knowledge_knowledgebase WHERE id = ANY(%s)",
            [kb_ids],
        )
        chunks, tokens, updated = cursor.fetchone()
    chunks = int(chunks)
    return CorpusStats(
        chunk_count=chunks,
        average_length=(float(tokens) / chunks) if chunks else 0.0,
        version=(tuple(sorted(kb_ids)), chunks, int(tokens), updated),
    )


def average_idf(kb_ids: list[int], stats: CorpusStats) -> float:
    """Return rank_bm25's average idf over every term of the searched corpus (cached)."""
    with _cache_lock:
        cached = _average_idf_cache.get(stats.version)
    if cached is not None:
        return cached
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(ln(%s - df + 0.5) - ln(df + 0.5)), 0), count(*) FROM "
            "(SELECT count(*) AS df FROM knowledge_posting WHERE knowledge_base_id = ANY(%s) "
            "GROUP BY term) AS terms",
            [stats.chunk_count, kb_ids],
        )
        total, terms = cursor.fetchone()
    value = float(total) / terms if terms else 0.0
    with _cache_lock:
        if len(_average_idf_cache) > 256:
            _average_idf_cache.clear()
        _average_idf_cache[stats.version] = value
    return value


def document_frequencies(kb_ids: list[int], terms: list[str]) -> dict[str, int]:
    """Return how many chunks of the searched KBs hold each term (terms in none are left out)."""
    if not terms or not kb_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT term, count(*) FROM knowledge_posting "
            "WHERE term = ANY(%s) AND knowledge_base_id = ANY(%s) GROUP BY term",
            [terms, kb_ids],
        )
        return {term: int(count) for term, count in cursor.fetchall()}


def term_idfs(kb_ids: list[int], terms: list[str], stats: CorpusStats) -> dict[str, float]:
    """Return the BM25Okapi idf of each query term present in the searched corpus."""
    if not terms:
        return {}
    frequencies = document_frequencies(kb_ids, terms)
    n = stats.chunk_count
    idfs = {term: math.log(n - df + 0.5) - math.log(df + 0.5) for term, df in frequencies.items()}
    if any(value < 0 for value in idfs.values()):
        floor = EPSILON * average_idf(kb_ids, stats)
        idfs = {term: (floor if value < 0 else value) for term, value in idfs.items()}
    return idfs


def bm25_scores(
    *,
    kb_ids: list[int],
    query: str | None = None,
    tokens: list[str] | None = None,
    top_k: int | None = 10,
    k1: float = K1,
    b: float = B,
    filters: DocumentFilter | dict | None = None,
) -> list[tuple[int, float]]:
    """Return (chunk_id, score) of the best BM25 matches, zero scores dropped, best first."""
    if not kb_ids:
        return []
    query_tokens = tokens if tokens is not None else bm25_tokens(query or "")
    counts = Counter(query_tokens)
    if not counts:
        return []
    stats = corpus_stats(kb_ids)
    if stats.chunk_count == 0:
        return []
    idfs = term_idfs(kb_ids, list(counts), stats)
    weighted = {term: counts[term] * idf for term, idf in idfs.items() if idf != 0}
    if not weighted:
        return []
    terms = list(weighted)
    params = {
        "terms": terms,
        "weights": [weighted[term] for term in terms],
        "k1": k1,
        "b": b,
        "avgdl": stats.average_length or 1.0,
        "kbs": kb_ids,
        "limit": top_k,
    }
    narrowed = ""
    document_filter = as_filter(filters)
    if not document_filter.is_empty:
        chunks, filter_params = document_filter.chunk_sql()
        narrowed = f"AND p.chunk_id IN ({chunks}) "
        params.update(filter_params)
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH q AS (SELECT * FROM unnest(%(terms)s::text[], %(weights)s::float8[]) "
            "AS q(term, weight)) "
            "SELECT p.chunk_id, sum(q.weight * p.tf * (%(k1)s + 1) / (p.tf + %(k1)s * "
            "(1 - %(b)s + %(b)s * p.chunk_length / %(avgdl)s))) AS score "
            "FROM knowledge_posting p JOIN q ON q.term = p.term "
            "WHERE p.term = ANY(%(terms)s) AND p.knowledge_base_id = ANY(%(kbs)s) "
            f"{narrowed}"
            "GROUP BY p.chunk_id HAVING sum(q.weight * p.tf) > 0 "
            "ORDER BY score DESC, p.chunk_id " + ("LIMIT %(limit)s" if top_k else ""),
            params,
        )
        rows = cursor.fetchall()
    return [(chunk_id, float(score)) for chunk_id, score in rows if score > 0]
