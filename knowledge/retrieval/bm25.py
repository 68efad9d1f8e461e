"""BM25Okapi in SQL over exactly the knowledge bases a query may search.

The scores equal `rank_bm25.BM25Okapi(corpus).get_scores(query_tokens)` over the same tokens,
where the corpus is every chunk of the searched KBs: idf = ln(N - df + 0.5) - ln(df + 0.5), and
a negative idf is replaced by epsilon times the corpus's average idf, as rank_bm25 does. N and
avgdl come from the KB rows, df from the per-KB term statistics (`knowledge_termstat`), both
kept in step with the postings by the index writer.

A metadata filter narrows which chunks are scored (a condition in the scoring query), not the
corpus: N, avgdl and idf stay those of the searched KBs, so a passage scores the same with or
without a filter and the per-KB statistics serve every filter.

Where the postings are read from: a large KB's postings are also copied into one row of
arrays per term (knowledge/term_blocks.py). For such a KB every posting of the query's terms
is read from those rows, plus the posting rows of chunks written after the copy, and scored
in numpy with the same formula: a term held by 100,000 chunks costs a few milliseconds instead
of 150. A chunk deleted since the copy is left out when the top k is picked. Filtered searches,
searches for every score, and KBs without a copy are scored in SQL from the posting rows.

Top k in SQL without scoring every posting (MaxScore, Turtle and Flood 1995): each term's
contribution to any chunk is bounded by its weight times the largest tf factor of its postings
(`max_impact`, kept by the index writer). A first pass scores the chunks of the rarest terms in full; the k-th
best of those is a floor θ that the true k-th score cannot be under. Terms whose bounds add up
to less than θ cannot put a chunk in the top k on their own, so only the other terms'
postings are scanned for candidates, and the cheap terms are looked up for those candidates
alone (by chunk). The result is the exact top k, scores included; only the work shrinks.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections import Counter
from dataclasses import dataclass

import numpy as np
import psycopg
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
        return _scores(kb_ids, counts, top_k, k1, b, filters, blocks=outermost)


def _scores(kb_ids, counts, top_k, k1, b, filters, blocks) -> list[tuple[int, float]]:
    stats = corpus_stats(kb_ids)
    if stats.chunk_count == 0:
        return []
    term_stats = term_statistics(kb_ids, list(counts), stats.average_length or 1.0)
    idfs = idfs_of({term: stat.df for term, stat in term_stats.items()}, kb_ids, stats)
    weighted = {term: counts[term] * idf for term, idf in idfs.items() if idf != 0}
    if not weighted:
        return []
    document_filter = as_filter(filters)
    # A filtered search reads postings, narrowed in SQL; so does a search for every score,
    # and one inside a caller's transaction: the blocks, their watermark and the rows after
    # it must be read in the one snapshot only an outermost search sets.
    use_blocks = blocks and top_k and document_filter.is_empty
    blocked = block_watermarks(kb_ids) if use_blocks else {}
    rest = [kb_id for kb_id in kb_ids if kb_id not in blocked]
    found: list[tuple[int, float]] = []
    if rest:
        found = _postings_top_k(rest, weighted, term_stats, stats, top_k, k1, b, document_filter)
    if not blocked:
        return found
    # A chunk is in one KB only: the best of each part, merged, are the best of all.
    found += _blocks_top_k(blocked, weighted, stats, top_k, k1, b)
    return sorted(found, key=lambda hit: (-hit[1], hit[0]))[:top_k]


def _postings_top_k(
    kb_ids, weighted, term_stats, stats, top_k, k1, b, document_filter
) -> list[tuple[int, float]]:
    """Score from the posting rows, in SQL."""
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


def block_watermarks(kb_ids: list[int]) -> dict[int, int]:
    """Return the watermark of each searched KB whose postings are copied into term blocks."""
    with connections[retrieval_alias()].cursor() as cursor:
        cursor.execute(
            "SELECT knowledge_base_id, watermark FROM knowledge_termblockset "
            "WHERE knowledge_base_id = ANY(%s)",
            [kb_ids],
        )
        return {int(kb_id): int(mark) for kb_id, mark in cursor.fetchall()}


def _blocks_top_k(
    watermarks: dict[int, int], weighted: dict[str, float], stats, top_k: int, k1, b
) -> list[tuple[int, float]]:
    """Score every posting of the query's terms in numpy: the term blocks of these KBs, and
    the posting rows of their chunks after each watermark. The same sums as the SQL."""
    terms = list(weighted)
    avgdl = stats.average_length or 1.0
    chunk_parts, score_parts, count_parts = [], [], []
    # The SQL's HAVING sum(weight x tf) > 0 can only drop a chunk when a weight is negative.
    negative = any(weight < 0 for weight in weighted.values())

    def add(term: str, chunk_ids: np.ndarray, tfs: np.ndarray, lengths: np.ndarray) -> None:
        weight = weighted[term]
        tfs = tfs.astype(np.float64)
        chunk_parts.append(chunk_ids.astype(np.int64))
        # The SQL's _CONTRIBUTION, operation for operation.
        score_parts.append(weight * tfs * (k1 + 1) / (tfs + k1 * (1 - b + b * lengths / avgdl)))
        if negative:
            count_parts.append(weight * tfs)

    connection = connections[retrieval_alias()]
    blocks = _term_blocks(connection, list(watermarks), terms)
    with connection.cursor() as cursor:
        for term, chunk_ids, tfs, lengths in blocks:
            add(
                term,
                np.frombuffer(chunk_ids, dtype=">i8"),
                np.frombuffer(tfs, dtype=">i4"),
                np.frombuffer(lengths, dtype=">i4").astype(np.float64),
            )
        for kb_id, watermark in watermarks.items():
            cursor.execute(
                "SELECT term, chunk_id, tf, chunk_length FROM knowledge_posting "
                "WHERE term = ANY(%s) AND knowledge_base_id = %s AND chunk_id > %s "
                "ORDER BY term",
                [terms, kb_id, watermark],
            )
            for term, group in itertools.groupby(cursor.fetchall(), key=lambda row: row[0]):
                mine = np.array([row[1:] for row in group], dtype=np.int64)
                add(term, mine[:, 0], mine[:, 1], mine[:, 2].astype(np.float64))
        if not chunk_parts:
            return []
        chunk_ids = np.concatenate(chunk_parts)
        order = np.argsort(chunk_ids, kind="stable")
        chunk_ids = chunk_ids[order]
        starts = np.flatnonzero(np.r_[True, chunk_ids[1:] != chunk_ids[:-1]])
        scores = np.add.reduceat(np.concatenate(score_parts)[order], starts)
        chunk_ids = chunk_ids[starts]
        keep = scores > 0
        if negative:
            keep &= np.add.reduceat(np.concatenate(count_parts)[order], starts) > 0
        return _best_live(cursor, chunk_ids[keep], scores[keep], top_k)


def _term_blocks(connection, kb_ids: list[int], terms: list[str]) -> list[tuple]:
    """Return the term blocks of these KBs' terms: (term, chunk ids, tfs, lengths), each array
    as the bytes it is stored as."""
    connection.ensure_connection()
    # Binary results: the arrays arrive as they are stored, not as hex text twice their size.
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as raw:
        raw.execute(
            "SELECT term, chunk_ids, tfs, lengths FROM knowledge_termblock "
            "WHERE knowledge_base_id = ANY(%s) AND term = ANY(%s)",
            [kb_ids, terms],
            binary=True,
        )
        return raw.fetchall()


def _best_live(cursor, chunk_ids: np.ndarray, scores: np.ndarray, top_k: int):
    """The top k by score (then chunk id) of the chunks that still exist: a chunk copied into
    a term block may have been deleted since."""
    wanted = top_k + 10
    while True:
        if len(scores) > wanted:
            kth = np.partition(scores, len(scores) - wanted)[len(scores) - wanted]
            chosen = np.flatnonzero(scores >= kth)  # ties at the k-th score come along
        else:
            chosen = np.arange(len(scores))
        chosen = chosen[np.lexsort((chunk_ids[chosen], -scores[chosen]))]
        ids = [int(chunk_id) for chunk_id in chunk_ids[chosen]]
        cursor.execute("SELECT id FROM knowledge_chunk WHERE id = ANY(%s)", [ids])
        live = {row[0] for row in cursor.fetchall()}
        hits = [
            (chunk_id, float(scores[i])) for chunk_id, i in zip(ids, chosen) if chunk_id in live
        ]
        if len(hits) >= top_k or len(chosen) == len(scores):
            return hits[:top_k]
        wanted *= 4


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


def _seed_terms(weighted: dict[str, float], term_stats: dict[str, TermStats]) -> list[str]:
    """Return the rarest query terms, as many as hold SEED_POSTINGS postings (one at least)."""
    by_rarity = sorted(weighted, key=lambda term: (term_stats[term].df, term))
    seed: list[str] = []
    covered = 0
    for term in by_rarity:
        if seed and covered + term_stats[term].df > SEED_POSTINGS:
            break
        seed.append(term)
        covered += term_stats[term].df
    return seed


def _seed_scores(cursor, params: dict, seed: list[str], narrowed: str) -> list[float]:
    """Pass 1 of MaxScore, a floor: the best scores of the seed terms' best chunks, scored in
    full (every query term, looked up by chunk); their k-th best is reached by k real chunks."""
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
        {**params, "seed": seed, "seed_limit": SEED_CANDIDATES * params["limit"]},
    )
    return [float(row[0]) for row in cursor.fetchall()]


def _top_k_pruned(
    params: dict,
    weighted: dict[str, float],
    term_stats: dict[str, TermStats],
    stats: CorpusStats,
    narrowed: str,
) -> list[tuple[int, float]] | None:
    """The exact top k by MaxScore, or None when nothing can be skipped."""
    k = params["limit"]
    seed = _seed_terms(weighted, term_stats)
    alias = retrieval_alias()
    with connections[alias].cursor() as cursor:
        floors = _seed_scores(cursor, params, seed, narrowed)
        if len(floors) < k or floors[-1] <= 0:
            return None
        bounds = {term: term_bound(weighted[term], term_stats[term]) for term in weighted}
        scanned, looked_up = split_terms(bounds, floors[-1])
        if not looked_up:
            return None
        # Pass 2 (pass 1 is _seed_scores): chunks of the scanned terms, kept when their scanned
        # part plus the most the looked-up terms could add reaches the floor (raised to the k-th
        # best scanned part, itself a floor); then the looked-up terms are added for those
        # chunks alone.
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
