"""Latency of our hybrid retrieval at ~5k, 50k and 200k chunks, against the spec's in-memory
stack on the same chunks, in the same run.

    .venv/bin/python bench/retrieval_latency.py [--sizes 5000,50000,200000] [--queries 100]

Corpora are NFCorpus's ingested chunks (`manage.py evaluate_retrieval` or bench/ingest.py makes
KB "beir-nfcorpus"), replicated with perturbed embeddings (Gaussian noise, renormalised) and a
replica tag in the text, copied in SQL with their postings and entity edges.

Ours: `search_stores` (dense HNSW + SQL BM25 + SQL graph, concurrently), per query, excluding
the query encoding, which both sides need (reported separately). Baseline, the spec's approach:
`rank_bm25.BM25Okapi.get_scores` + top-k over lower-cased `\\b\\w+\\b` tokens, exact numpy cosine
over all embeddings, and the NetworkX bipartite graph search (query entities, first hop x2.0,
second hop +0.5 per path). Memory: this process's RSS after building each side.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import statistics
import time

import numpy as np
import psutil
from _setup import EVAL_DATA, bench_user, setup


def rss_mb() -> float:
    return psutil.Process(os.getpid()).memory_info().rss / 1e6


def pct(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def build_replica_kb(source_kb, size: int, user):
    """Create (or reuse) a KB of `size` chunks copied from `source_kb`, perturbed per replica.

    All in SQL: each replica's embeddings get uniform noise of the spread of N(0, 0.02) per
    dimension and are renormalised (pgvector's l2_normalize); its postings, term statistics,
    entities and edges are copied with it. Then the KB's own HNSW index is built (timed).
    """
    from django.conf import settings
    from django.db import connection, transaction

    from knowledge.index import term_stats_rebuild
    from knowledge.models import Document, KnowledgeBase
    from knowledge.term_blocks import build_blocks, refresh_blocks
    from knowledge.vector_index import build_index

    name = f"latency-{size}"
    kb = KnowledgeBase.objects.filter(name=name).first()
    if kb is not None and kb.chunk_count == size:
        if kb.chunk_count >= settings.VECTOR_INDEX_MIN_CHUNKS:
            build_index(kb.id)  # normally a no-op: built with the KB
        if kb.chunk_count >= settings.TERM_BLOCKS_MIN_CHUNKS:
            refresh_blocks(kb.id)  # likewise
        return kb, None
    if kb is not None:
        from knowledge.services import kb_delete

        kb_delete(kb=kb)
    kb = KnowledgeBase.objects.create(owner=user, name=name)
    source_count = source_kb.chunk_count
    spread = 0.02 * 3**0.5  # uniform on [-a, a] has standard deviation a / sqrt(3)
    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE chunk_map (src bigint, dst bigint) ON COMMIT DROP")
        made = 0
        replica = 0
        while made < size:
            document = Document.objects.create(
                knowledge_base=kb,
                file_name=f"replica-{replica}.txt",
                stored_path="",
                sha256=f"{size}-{replica}",
                size=0,
                file_type="txt",
                status="ready",
            )
            count = min(source_count, size - made)
            noisy = (
                "l2_normalize(s.embedding + (SELECT array_agg((random() * 2 - 1) * %(a)s)"
                "::vector FROM generate_series(1, vector_dims(s.embedding))))"
                if replica
                else "s.embedding"
            )
            cursor.execute(
                "INSERT INTO knowledge_chunk (document_id, knowledge_base_id, ordinal, text, "
                "text_md5, page, char_start, char_end, embedding, bm25_length, section, kind, "
                "structure) "
                "SELECT %(doc)s, %(kb)s, row_number() OVER (ORDER BY s.id) - 1, "
                "CASE WHEN %(r)s = 0 THEN s.text ELSE s.text || ' r' || %(r)s END, "
                f"%(r)s || '-' || s.id, NULL, 0, length(s.text), {noisy}, s.bm25_length, "
                "s.section, s.kind, s.structure "
                "FROM (SELECT * FROM knowledge_chunk WHERE knowledge_base_id = %(src)s "
                "ORDER BY id LIMIT %(n)s) s",
                {
                    "doc": document.id,
                    "kb": kb.id,
                    "r": replica,
                    "src": source_kb.id,
                    "n": count,
                    "a": spread,
                },
            )
            cursor.execute(
                "INSERT INTO chunk_map SELECT split_part(d.text_md5, '-', 2)::bigint, d.id "
                "FROM knowledge_chunk d WHERE d.document_id = %s",
                [document.id],
            )
            made += count
            replica += 1
        cursor.execute("CREATE INDEX ON chunk_map (src)")
        cursor.execute("ANALYZE chunk_map")
        cursor.execute(
            "INSERT INTO knowledge_posting (chunk_id, knowledge_base_id, term, tf, chunk_length) "
            "SELECT m.dst, %s, p.term, p.tf, p.chunk_length FROM knowledge_posting p JOIN chunk_map m ON m.src = p.chunk_id",
            [kb.id],
        )
        cursor.execute(
            "INSERT INTO knowledge_entity (knowledge_base_id, name) SELECT %s, name FROM knowledge_entity "
            "WHERE knowledge_base_id = %s",
            [kb.id, source_kb.id],
        )
        cursor.execute(
            "INSERT INTO knowledge_chunkentity (chunk_id, entity_id, knowledge_base_id, weight) "
            "SELECT m.dst, e2.id, %s, ce.weight FROM knowledge_chunkentity ce JOIN chunk_map m ON m.src = ce.chunk_id "
            "JOIN knowledge_entity e1 ON e1.id = ce.entity_id "
            "JOIN knowledge_entity e2 ON e2.knowledge_base_id = %s AND e2.name = e1.name",
            [kb.id, kb.id],
        )
        cursor.execute(
            "UPDATE knowledge_knowledgebase SET chunk_count = (SELECT count(*) FROM knowledge_chunk WHERE "
            "knowledge_base_id = %s), token_total = (SELECT coalesce(sum(bm25_length), 0) FROM knowledge_chunk "
            "WHERE knowledge_base_id = %s) WHERE id = %s",
            [kb.id, kb.id, kb.id],
        )
    with transaction.atomic():
        term_stats_rebuild(kb.id)  # at the KB's final average chunk length
    copied = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute(
            "ANALYZE knowledge_chunk; ANALYZE knowledge_posting; ANALYZE knowledge_chunkentity; "
            "ANALYZE knowledge_termstat"
        )
    kb.refresh_from_db()
    started = time.perf_counter()
    if kb.chunk_count >= settings.VECTOR_INDEX_MIN_CHUNKS:
        build_index(kb.id)
    indexed = time.perf_counter() - started
    started = time.perf_counter()
    if kb.chunk_count >= settings.TERM_BLOCKS_MIN_CHUNKS:
        build_blocks(kb.id)
    blocked = time.perf_counter() - started
    return kb, (copied, indexed, blocked)


class Baseline:
    """The spec's in-memory stores, built from a KB's chunks."""

    WORD = re.compile(r"\b\w+\b")

    def __init__(self, kb) -> None:
        import networkx as nx
        from rank_bm25 import BM25Okapi

        from knowledge.models import Chunk, ChunkEntity

        rows = list(
            Chunk.objects.filter(knowledge_base=kb)
            .order_by("id")
            .values_list("id", "text", "embedding")
        )
        self.ids = [row[0] for row in rows]
        self.bm25 = BM25Okapi([self.WORD.findall(row[1].lower()) for row in rows])
        self.matrix = np.vstack([np.asarray(row[2], dtype=np.float32) for row in rows])
        del rows
        self.graph = nx.Graph()
        for chunk_id, name, weight in ChunkEntity.objects.filter(knowledge_base=kb).values_list(
            "chunk_id", "entity__name", "weight"
        ):
            self.graph.add_edge(("c", chunk_id), ("e", name), weight=weight)

    def bm25_top(self, query: str, k: int):
        scores = self.bm25.get_scores(self.WORD.findall(query.lower()))
        top = np.argpartition(-scores, min(k, len(scores) - 1))[:k]
        return [(self.ids[i], scores[i]) for i in top[np.argsort(-scores[top])] if scores[i] > 0]

    def dense_top(self, vector: np.ndarray, k: int):
        scores = self.matrix @ vector
        top = np.argpartition(-scores, k)[:k]
        return [(self.ids[i], float(scores[i])) for i in top[np.argsort(-scores[top])]]

    def graph_top(self, names: list[str], k: int):
        scores: dict = {}
        for name in names:
            node = ("e", name)
            if node not in self.graph:
                continue
            for chunk in self.graph.neighbors(node):
                scores[chunk] = scores.get(chunk, 0.0) + self.graph[node][chunk]["weight"] * 2.0
                for entity in self.graph.neighbors(chunk):
                    if entity == node:
                        continue
                    for second in self.graph.neighbors(entity):
                        if second != chunk:
                            scores[second] = scores.get(second, 0.0) + 0.5
        return sorted(scores.items(), key=lambda item: -item[1])[:k]


class RowsOnly:
    """Ours with BM25 read from the posting rows (MaxScore in SQL), not the term blocks."""

    def __enter__(self):
        from knowledge.retrieval import bm25

        self.saved = bm25.block_watermarks
        bm25.block_watermarks = lambda kb_ids: {}
        return self

    def __exit__(self, *exc) -> None:
        from knowledge.retrieval import bm25

        bm25.block_watermarks = self.saved


class OldLayout:
    """The layout before per-KB indexes and pruning, for a before/after in one run: one HNSW
    index over every KB's chunks (a KB filtered during the scan), df counted from postings per
    query, and BM25 scoring every posting of the query's terms."""

    NAME = "bench_chunk_embedding_all"

    def __init__(self) -> None:
        from django.db import connection

        started = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute("SET maintenance_work_mem = '2GB'")
            cursor.execute(
                f"CREATE INDEX IF NOT EXISTS {self.NAME} ON knowledge_chunk "
                "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
            )
            cursor.execute("RESET maintenance_work_mem")
        self.build_seconds = time.perf_counter() - started

    def __enter__(self):
        from knowledge.retrieval import bm25, dense

        self.saved = (
            bm25.PRUNE_MIN_POSTINGS,
            bm25.term_statistics,
            bm25.block_watermarks,
            dense.indexed_kbs,
        )
        bm25.PRUNE_MIN_POSTINGS = float("inf")
        bm25.term_statistics = _old_term_statistics
        bm25.block_watermarks = lambda kb_ids: {}
        # Every KB "indexed" and searched alone by its id, but no index of its own: the
        # planner takes the shared one and filters by KB during the scan, as before.
        dense.indexed_kbs = lambda kb_ids, using="default": set(kb_ids)
        return self

    def __exit__(self, *exc) -> None:
        from knowledge.retrieval import bm25, dense

        (
            bm25.PRUNE_MIN_POSTINGS,
            bm25.term_statistics,
            bm25.block_watermarks,
            dense.indexed_kbs,
        ) = self.saved

    def drop(self) -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(f"DROP INDEX IF EXISTS {self.NAME}")


def _old_term_statistics(kb_ids, terms, avgdl=1.0):
    from django.db import connection

    from knowledge.retrieval.bm25 import TermStats

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT term, count(*) FROM knowledge_posting "
            "WHERE term = ANY(%s) AND knowledge_base_id = ANY(%s) GROUP BY term",
            [terms, kb_ids],
        )
        return {term: TermStats(int(df), 0.0) for term, df in cursor.fetchall()}


def time_ours(kb, queries):
    from knowledge.retrieval.hybrid import search_stores

    search_stores(kb_ids=[kb.id], query=queries[0])  # warm the pool threads and caches
    ours = []
    stores = {"vector_ms": [], "bm25_ms": [], "graph_ms": []}
    for query in queries:
        result = search_stores(kb_ids=[kb.id], query=query)
        ours.append(result.timings_ms["total_ms"] - result.timings_ms["encode_ms"])
        for key in stores:
            stores[key].append(result.timings_ms[key])
    return ours, stores


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="5000,50000,200000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--baseline-max",
        type=int,
        default=200_000,
        help="the in-memory baseline runs up to this size (2.6 GB at 200k, ~13 GB at 1M)",
    )
    parser.add_argument(
        "--rows",
        action="store_true",
        help="also time ours with BM25 read from the posting rows instead of the term blocks",
    )
    parser.add_argument(
        "--before",
        action="store_true",
        help="also time the layout before per-KB indexes and pruning (builds a shared index)",
    )
    args = parser.parse_args()
    setup()
    from django.db import connection

    from knowledge.evaluation import load_queries
    from knowledge.ingest.entities import query_entities
    from knowledge.models import KnowledgeBase
    from providers import embedder

    source = KnowledgeBase.objects.get(name="beir-nfcorpus")
    queries = list(load_queries(EVAL_DATA / "nfcorpus", "test")[0].values())[: args.queries]
    user = bench_user()
    embedder.get_model()
    encode = []
    vectors = []
    for query in queries:
        started = time.perf_counter()
        vectors.append(embedder.embed_query(query))
        encode.append((time.perf_counter() - started) * 1000)
    sizes = [int(s) for s in args.sizes.split(",")]
    # Every size's KB first: each is measured in a table that holds all of them.
    kbs = {}
    for size in sizes:
        kbs[size], built = build_replica_kb(source, size, user)
        if built:
            print(
                f"built {size:,} chunks: copied in {built[0]:.0f} s, own HNSW index in "
                f"{built[1]:.0f} s, term blocks in {built[2]:.0f} s"
            )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_database_size(current_database()), "
            "(SELECT count(*) FROM knowledge_chunk), (SELECT count(*) FROM knowledge_posting)"
        )
        db_bytes, all_chunks, all_postings = cursor.fetchone()
        cursor.execute(
            "SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c "
            "WHERE c.relname LIKE 'chunk_embedding_kb_%%' OR c.relname IN "
            "('knowledge_chunk', 'knowledge_posting', 'posting_term_kb_chunk', 'knowledge_termstat')"
        )
        relations = dict(cursor.fetchall())
        cursor.execute("SELECT pg_total_relation_size('knowledge_termblock')")
        blocks_bytes = cursor.fetchone()[0]
    print(
        f"database {db_bytes / 1e9:.1f} GB: {all_chunks:,} chunks, {all_postings:,} postings; "
        f"chunk table {relations.get('knowledge_chunk', 0) / 1e9:.2f} GB, postings "
        f"{relations.get('knowledge_posting', 0) / 1e9:.2f} GB + index "
        f"{relations.get('posting_term_kb_chunk', 0) / 1e9:.2f} GB, HNSW indexes "
        f"{sum(v for k, v in relations.items() if k.startswith('chunk_embedding_kb_')) / 1e9:.2f} GB, "
        f"term blocks {blocks_bytes / 1e9:.2f} GB"
    )
    before = {}
    if args.before:
        old = OldLayout()
        print(
            f"shared HNSW index over all {all_chunks:,} chunks built in {old.build_seconds:.0f} s"
        )
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE knowledge_chunk")
        with old:
            for size in sizes:
                before[size], _ = time_ours(kbs[size], queries)
        old.drop()
    rows_only = {}
    if args.rows:
        with RowsOnly():
            for size in sizes:
                rows_only[size], _ = time_ours(kbs[size], queries)
    print(
        f"{len(queries)} NFCorpus test queries; query encoding median {statistics.median(encode):.1f} ms "
        f"(both sides need it; not in the figures below)"
    )
    print(f"{'chunks':>8} {'side':<34}{'p50 ms':>9}{'p95 ms':>9}{'RSS MB':>9}")
    for size in sizes:
        kb = kbs[size]
        if size in before:
            print(
                f"{kb.chunk_count:>8} {'before: shared HNSW, full BM25':<34}"
                f"{statistics.median(before[size]):>9.1f}{pct(before[size], 95):>9.1f}"
            )
        if size in rows_only:
            print(
                f"{kb.chunk_count:>8} {'ours, BM25 from posting rows':<34}"
                f"{statistics.median(rows_only[size]):>9.1f}{pct(rows_only[size], 95):>9.1f}"
            )
        gc.collect()
        rss_before = rss_mb()
        ours, stores = time_ours(kb, queries)
        ours_rss = rss_mb()
        print(
            f"{kb.chunk_count:>8} {'ours: HNSW + BM25 blocks + graph':<34}{statistics.median(ours):>9.1f}"
            f"{pct(ours, 95):>9.1f}{ours_rss:>9.0f}"
        )
        for key, values in stores.items():
            print(
                f"{'':>8} {'  ours: ' + key[:-3]:<34}{statistics.median(values):>9.1f}{pct(values, 95):>9.1f}"
            )
        if size > args.baseline_max:
            print(
                f"{'':>8} baseline skipped above {args.baseline_max:,} chunks (its indexes would "
                f"hold ~{2646 * size / 200_000 / 1000:.0f} GB); ours kept {ours_rss - rss_before:+.0f} MB"
            )
            continue
        gc.collect()
        base_start = rss_mb()
        baseline = Baseline(kb)
        base_rss = rss_mb()
        parts = {"bm25": [], "dense": [], "graph": [], "total": []}
        for query, vector in zip(queries, vectors):
            t0 = time.perf_counter()
            baseline.bm25_top(query, 10)
            t1 = time.perf_counter()
            baseline.dense_top(vector, 10)
            t2 = time.perf_counter()
            baseline.graph_top(query_entities(query), 5)
            t3 = time.perf_counter()
            parts["bm25"].append((t1 - t0) * 1000)
            parts["dense"].append((t2 - t1) * 1000)
            parts["graph"].append((t3 - t2) * 1000)
            parts["total"].append((t3 - t0) * 1000)
        for name, label in (
            ("bm25", "baseline: rank_bm25"),
            ("dense", "baseline: numpy cosine"),
            ("graph", "baseline: NetworkX graph"),
            ("total", "baseline: all three, sequential"),
        ):
            print(
                f"{'':>8} {label:<34}{statistics.median(parts[name]):>9.1f}{pct(parts[name], 95):>9.1f}"
                f"{(base_rss if name == 'total' else float('nan')):>9.0f}"
            )
        ratio = statistics.median(parts["total"]) / statistics.median(ours)
        print(
            f"{'':>8} baseline / ours at p50: {ratio:.1f}x; memory held by the baseline's indexes: "
            f"{base_rss - base_start:.0f} MB; ours kept {ours_rss - rss_before:+.0f} MB"
        )
        del baseline
        gc.collect()


if __name__ == "__main__":
    main()
