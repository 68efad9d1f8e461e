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
    """Create (or reuse) a KB of `size` chunks copied from `source_kb`, perturbed per replica."""
    from django.db import connection, transaction

    from knowledge.models import Chunk, Document, KnowledgeBase

    name = f"latency-{size}"
    kb = KnowledgeBase.objects.filter(name=name).first()
    if kb is not None and kb.chunk_count == size:
        return kb
    if kb is not None:
        from knowledge.services import kb_delete

        kb_delete(kb=kb)
    kb = KnowledgeBase.objects.create(owner=user, name=name)
    source = list(
        Chunk.objects.filter(knowledge_base=source_kb)
        .order_by("id")
        .values_list("id", "text", "embedding", "bm25_length")
    )
    rng = np.random.default_rng(0)
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
            batch = source[: size - made]
            vectors = np.vstack([np.asarray(row[2], dtype=np.float32) for row in batch])
            if replica:
                vectors = vectors + rng.normal(0, 0.02, vectors.shape).astype(np.float32)
                vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            with cursor.copy(
                "COPY knowledge_chunk (document_id, knowledge_base_id, ordinal, text, text_md5, page, "
                "char_start, char_end, embedding, bm25_length) FROM STDIN"
            ) as copy:
                for ordinal, (row, vector) in enumerate(zip(batch, vectors)):
                    text = row[1] if not replica else f"{row[1]} r{replica}"
                    copy.write_row(
                        (
                            document.id,
                            kb.id,
                            ordinal,
                            text,
                            f"{replica}-{row[0]}",
                            None,
                            0,
                            len(text),
                            "[" + ",".join(f"{v:.5f}" for v in vector) + "]",
                            row[3],
                        )
                    )
            cursor.execute(
                "INSERT INTO chunk_map SELECT s.id, d.id FROM knowledge_chunk d "
                "JOIN knowledge_chunk s ON s.knowledge_base_id = %s AND d.text_md5 = %s || '-' || s.id "
                "WHERE d.document_id = %s",
                [source_kb.id, str(replica), document.id],
            )
            made += len(batch)
            replica += 1
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
    with connection.cursor() as cursor:
        cursor.execute(
            "ANALYZE knowledge_chunk; ANALYZE knowledge_posting; ANALYZE knowledge_chunkentity"
        )
    kb.refresh_from_db()
    return kb


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="5000,50000,200000")
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    setup()
    from knowledge.evaluation import load_queries
    from knowledge.ingest.entities import query_entities
    from knowledge.models import KnowledgeBase
    from knowledge.retrieval.hybrid import search_stores
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
    print(
        f"{len(queries)} NFCorpus test queries; query encoding median {statistics.median(encode):.1f} ms "
        f"(both sides need it; not in the figures below)"
    )
    print(f"{'chunks':>8} {'side':<34}{'p50 ms':>9}{'p95 ms':>9}{'RSS MB':>9}")
    for size in [int(s) for s in args.sizes.split(",")]:
        kb = build_replica_kb(source, size, user)
        search_stores(kb_ids=[kb.id], query=queries[0])  # warm the pool threads and caches
        gc.collect()
        before = rss_mb()
        ours = []
        stores = {"vector_ms": [], "bm25_ms": [], "graph_ms": []}
        for query in queries:
            result = search_stores(kb_ids=[kb.id], query=query)
            ours.append(result.timings_ms["total_ms"] - result.timings_ms["encode_ms"])
            for key in stores:
                stores[key].append(result.timings_ms[key])
        ours_rss = rss_mb()
        print(
            f"{kb.chunk_count:>8} {'ours: hybrid (HNSW + SQL BM25 + graph)':<34}{statistics.median(ours):>9.1f}"
            f"{pct(ours, 95):>9.1f}{ours_rss:>9.0f}"
        )
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
            f"{base_rss - base_start:.0f} MB; ours kept {ours_rss - before:+.0f} MB"
        )
        del baseline
        gc.collect()


if __name__ == "__main__":
    main()
