"""BM25Okapi in SQL over exactly the knowledge bases a query may search.

The scores equal `rank_bm25.BM25Okapi(corpus).get_scores(query_tokens)` over the same tokens,
where the corpus is every chunk of the searched KBs: idf = ln(N - df + 0.5) - ln(df + 0.5), and
a negative idf is replaced by epsilon times the corpus's average idf, as rank_bm25 does. N and
avgdl come from the KB rows, df from the per-KB term statistics (`knowledge_termstat`), both
kept in step with the postings by the index writer.

A metadata filter narrows which chunks are scored (a condition in the scoring query), not the
corpus: N, avgdl and idf stay those of the searched KBs, so a passage scores the same with or
without a filter and the per-KB statistics serve every filter.

Top k without scoring every posting (MaxScore, Turtle and Flood 1995): each term's
contribution to any chunk is bounded by its weight times the largest tf factor of its postings
(`max_impact`, kept by the index writer). A first pass scores the chunks of the rarest terms in full; the k-th
best of those is a floor θ that the true k-th score cannot be under. Terms whose bounds add up
to less than θ cannot put a chunk in the top k on their own, so only the other terms'
postings are scanned for candidates, and the cheap terms are looked up for those candidates
alone (by chunk). The result is the exact top k, scores included; only the work shrinks.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from dataclasses import dataclass

from django.db import connections, transaction

from knowledge.retrieval.db import retrieval_alias
from knowledge.retrieval.filters import DocumentFilter, as_filter
from providers.tokenize import bm25_tokens

K1 = 1.5
B = 0.75
EPSILON = 0.25
# Below this many postings over the query's terms, scoring them all is as quick as pruning.
PRUNE_MIN_POSTINGS = 20_000
# The first pass scores the rarest terms' chunks until this many postings are covered, and
# keeps this many times k of them to score in full.
SEED_POSTINGS = 2_000
SEED_CANDIDATES = 4

_average_idf_cache: dict[tuple, float] = {}
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class CorpusStats:
    """The size and average chunk length of the searched corpus, and a version for caching."""

    chunk_count: int
    average_length: float
    version: tuple


@dataclass(frozen=True)
class TermStats:
    """A query term's statistics over the searched KBs: its document frequency, and the most
    its BM25 tf factor reaches in any of their chunks (a safe bound, default k1 and b)."""

    df: int
    max_factor: float


def corpus_stats(kb_ids: list[int]) -> CorpusStats:
    """Read N and avgdl of the searched KBs from their per-KB statistics."""
    with connections[retrieval_alias()].cursor() as cursor:
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
    with connections[retrieval_alias()].cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(ln(%s - df + 0.5) - ln(df + 0.5)), 0), count(*) FROM "
            "(SELECT sum(df) AS df FROM knowledge_termstat WHERE knowledge_base_id = ANY(%s) "
            "GROUP BY term) AS terms WHERE df > 0",
            [stats.chunk_count, kb_ids],
        )
        total, terms = cursor.fetchone()
    value = float(total) / terms if terms else 0.0
    with _cache_lock:
        if len(_average_idf_cache) > 256:
            _average_idf_cache.clear()
        _average_idf_cache[stats.version] = value
    return value


def term_statistics(
    kb_ids: list[int], terms: list[str], avgdl: float = 1.0
) -> dict[str, TermStats]:
    """Return each query term's df and tf-factor bound over the searched KBs, whose average
    chunk length is `avgdl` (absent terms left out)."""
    if not terms or not kb_ids:
        return {}
    with connections[retrieval_alias()].cursor() as cursor:
        cursor.execute(
            "SELECT term, sum(df), max(max_impact * greatest(1, %s / impact_avgdl)) "
            "FROM knowledge_termstat WHERE term = ANY(%s) AND knowledge_base_id = ANY(%s) "
            "GROUP BY term HAVING sum(df) > 0",
            [avgdl, terms, kb_ids],
        )
        return {term: TermStats(int(df), float(factor)) for term, df, factor in cursor.fetchall()}


def document_frequencies(kb_ids: list[int], terms: list[str]) -> dict[str, int]:
    """Return how many chunks of the searched KBs hold each term (terms in none are left out)."""
    return {term: stat.df for term, stat in term_statistics(kb_ids, terms).items()}


def idfs_of(frequencies: dict[str, int], kb_ids: list[int], stats: CorpusStats) -> dict[str, float]:
    """Return the BM25Okapi idf of each term from its document frequency."""
    n = stats.chunk_count
    idfs = {term: math.log(n - df + 0.5) - math.log(df + 0.5) for term, df in frequencies.items()}
    if any(value < 0 for value in idfs.values()):
        floor = EPSILON * average_idf(kb_ids, stats)
        idfs = {term: (floor if value < 0 else value) for term, value in idfs.items()}
    return idfs


def term_idfs(kb_ids: list[int], terms: list[str], stats: CorpusStats) -> dict[str, float]:
    """Return the BM25Okapi idf of each query term present in the searched corpus."""
    if not terms:
        return {}
    return idfs_of(document_frequencies(kb_ids, terms), kb_ids, stats)


# One term's contribution to one chunk; `p` is the posting, `q` the query term's weight.
_CONTRIBUTION = (
    "q.weight * p.tf * (%(k1)s + 1) / (p.tf + %(k1)s * "
    "(1 - %(b)s + %(b)s * p.chunk_length / %(avgdl)s))"
)
_WEIGHTS = (
    "WITH q AS (SELECT * FROM unnest(%(terms)s::text[], %(weights)s::float8[]) AS q(term, weight))"
)


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
    alias = retrieval_alias()
    outermost = not connections[alias].in_atomic_block
    # One snapshot for the statistics and both passes: a write committed between them could
    # otherwise move a chunk past the bound or the floor past the true k-th score.
    with transaction.atomic(using=alias):
        if outermost:
            with connections[alias].cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return _scores(kb_ids, counts, top_k, k1, b, filters)


def _scores(kb_ids, counts, top_k, k1, b, filters) -> list[tuple[int, float]]:
    stats = corpus_stats(kb_ids)
    if stats.chunk_count == 0:
        return []
    term_stats = term_statistics(kb_ids, list(counts), stats.average_length or 1.0)
    idfs = idfs_of({term: stat.df for term, stat in term_stats.items()}, kb_ids, stats)
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
    postings = sum(term_stats[term].df for term in terms)
    pruned = None
    # The bounds hold for positive weights (a negative average idf can make the floor
    # negative: then every posting is scored).
    # The stored bounds are for the default k1 and b.
    positive = all(weight > 0 for weight in weighted.values()) and (k1, b) == (K1, B)
    if top_k and len(terms) > 1 and positive and postings >= PRUNE_MIN_POSTINGS:
        pruned = _top_k_pruned(params, weighted, term_stats, stats, narrowed)
    if pruned is not None:
        return pruned
    with connections[retrieval_alias()].cursor() as cursor:
        cursor.execute(
            f"{_WEIGHTS} SELECT p.chunk_id, sum({_CONTRIBUTION}) AS score "
            "FROM knowledge_posting p JOIN q ON q.term = p.term "
            "WHERE p.term = ANY(%(terms)s) AND p.knowledge_base_id = ANY(%(kbs)s) "
            f"{narrowed}"
            "GROUP BY p.chunk_id HAVING sum(q.weight * p.tf) > 0 "
            "ORDER BY score DESC, p.chunk_id " + ("LIMIT %(limit)s" if top_k else ""),
            params,
        )
        rows = cursor.fetchall()
    return [(chunk_id, float(score)) for chunk_id, score in rows if score > 0]


def term_bound(weight: float, stat: TermStats) -> float:
    """Return the most this term adds to any chunk's score (a little over, never under)."""
    return weight * stat.max_factor * (1 + 1e-9) + 1e-12


def split_terms(bounds: dict[str, float], floor: float) -> tuple[list[str], list[str]]:
    """Split terms into those that must be scanned and those only looked up.

    The looked-up ones are the largest set of lowest-bound terms whose bounds add up to less
    than `floor`: a chunk that holds none of the scanned terms scores under the floor.
    """
    ordered = sorted(bounds, key=lambda term: (bounds[term], term))
    total = 0.0
    looked_up: list[str] = []
    for term in ordered:
        if total + bounds[term] >= floor:
            break
        total += bounds[term]
        looked_up.append(term)
    return [term for term in ordered if term not in set(looked_up)], looked_up


def _top_k_pruned(
    params: dict,
    weighted: dict[str, float],
    term_stats: dict[str, TermStats],
    stats: CorpusStats,
    narrowed: str,
) -> list[tuple[int, float]] | None:
    """The exact top k by MaxScore, or None when nothing can be skipped."""
    k = params["limit"]
    by_rarity = sorted(weighted, key=lambda term: (term_stats[term].df, term))
    seed: list[str] = []
    covered = 0
    for term in by_rarity:
        if seed and covered + term_stats[term].df > SEED_POSTINGS:
            break
        seed.append(term)
        covered += term_stats[term].df
    alias = retrieval_alias()
    with connections[alias].cursor() as cursor:
        # Pass 1: a floor. The rarest terms' best chunks, scored in full (every query term,
        # looked up by chunk); their k-th best score is reached by k real chunks.
        cursor.execute(
            f"{_WEIGHTS}, seed AS (SELECT p.chunk_id FROM knowledge_posting p "
            "JOIN q ON q.term = p.term "
            "WHERE p.term = ANY(%(seed)s) AND p.knowledge_base_id = ANY(%(kbs)s) "
            f"{narrowed}"
            f"GROUP BY p.chunk_id ORDER BY sum({_CONTRIBUTION}) DESC, p.chunk_id "
            "LIMIT %(seed_limit)s) "
            f"SELECT sum({_CONTRIBUTION}) AS score FROM knowledge_posting p "
            "JOIN q ON q.term = p.term "
            "WHERE p.chunk_id IN (SELECT chunk_id FROM seed) AND p.term = ANY(%(terms)s) "
            "GROUP BY p.chunk_id ORDER BY score DESC LIMIT %(limit)s",
            {**params, "seed": seed, "seed_limit": SEED_CANDIDATES * k},
        )
        floors = [float(row[0]) for row in cursor.fetchall()]
        if len(floors) < k or floors[-1] <= 0:
            return None
        bounds = {term: term_bound(weighted[term], term_stats[term]) for term in weighted}
        scanned, looked_up = split_terms(bounds, floors[-1])
        if not looked_up:
            return None
        # Pass 2: chunks of the scanned terms, kept when their scanned part plus the most the
        # looked-up terms could add reaches the floor (raised to the k-th best scanned part,
        # itself a floor); then the looked-up terms are added for those chunks alone.
        cursor.execute(
            f"{_WEIGHTS}, scanned AS MATERIALIZED (SELECT p.chunk_id, sum({_CONTRIBUTION}) AS s "
            "FROM knowledge_posting p JOIN q ON q.term = p.term "
            "WHERE p.term = ANY(%(scanned)s) AND p.knowledge_base_id = ANY(%(kbs)s) "
            f"{narrowed}"
            "GROUP BY p.chunk_id), "
            "candidate AS MATERIALIZED (SELECT chunk_id, s FROM scanned "
            "WHERE s + %(slack)s >= greatest(%(floor)s, "
            "(SELECT s FROM scanned ORDER BY s DESC OFFSET %(limit)s - 1 LIMIT 1))) "
            "SELECT c.chunk_id, c.s + coalesce((SELECT sum("
            f"{_CONTRIBUTION}) FROM knowledge_posting p JOIN q ON q.term = p.term "
            "WHERE p.chunk_id = c.chunk_id AND p.term = ANY(%(looked_up)s)), 0) AS score "
            "FROM candidate c ORDER BY score DESC, c.chunk_id LIMIT %(limit)s",
            {
                **params,
                "scanned": scanned,
                "looked_up": looked_up,
                "slack": sum(bounds[term] for term in looked_up),
                "floor": floors[-1],
            },
        )
        rows = cursor.fetchall()
    if len(rows) < k:  # cannot be, in one snapshot; were it so, score every posting instead
        return None
    return [(chunk_id, float(score)) for chunk_id, score in rows if score > 0]
