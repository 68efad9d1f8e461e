"""Dense search: per-KB partial HNSW indexes on one chunk table (what we ship) against the
chunk vectors partitioned by knowledge base, each large partition with its own HNSW index.

    ADRAG_DB_NAME=adrag_bench .venv/bin/python bench/partitioning.py [--sizes 5000,50000,200000]

Needs the `latency-<size>` KBs of bench/retrieval_latency.py. The partitioned side is a copy
of every KB's chunk vectors (`bench_chunk_part`, LIST-partitioned by knowledge_base_id, one
partition per KB), searched with the same SQL and settings as knowledge/retrieval/dense.py.
Prints p50 / p95 per size for both layouts (after a warm-up pass over every query), index
build times and sizes, and each layout's recall@10 against an exact search. The copy is dropped at the end.
"""

from __future__ import annotations

import argparse
import statistics
import time

from _setup import EVAL_DATA, setup

TABLE = "bench_chunk_part"


def pct(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="5000,50000,200000")
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    setup()
    from django.conf import settings
    from django.db import connection, transaction

    from knowledge.evaluation import load_queries
    from knowledge.models import KnowledgeBase
    from knowledge.retrieval import dense
    from knowledge.retrieval.filters import DocumentFilter
    from knowledge.vector_index import index_name
    from providers import embedder

    sizes = [int(s) for s in args.sizes.split(",")]
    kbs = {size: KnowledgeBase.objects.get(name=f"latency-{size}") for size in sizes}
    queries = list(load_queries(EVAL_DATA / "nfcorpus", "test")[0].values())[: args.queries]
    vectors = [dense.vector_literal(embedder.embed_query(q)) for q in queries]
    memory = int(settings.VECTOR_INDEX_BUILD_MEMORY_MB)

    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {TABLE}")
        cursor.execute(
            f"CREATE TABLE {TABLE} (id bigint NOT NULL, knowledge_base_id bigint NOT NULL, "
            "embedding vector(384), PRIMARY KEY (knowledge_base_id, id)) "
            "PARTITION BY LIST (knowledge_base_id)"
        )
        cursor.execute("SELECT id, chunk_count FROM knowledge_knowledgebase ORDER BY id")
        every_kb = cursor.fetchall()
        started = time.perf_counter()
        for kb_id, _ in every_kb:
            cursor.execute(
                f"CREATE TABLE {TABLE}_{kb_id} PARTITION OF {TABLE} FOR VALUES IN ({kb_id})"
            )
            cursor.execute(f"ALTER TABLE {TABLE}_{kb_id} ALTER COLUMN embedding SET STORAGE MAIN")
        cursor.execute(
            f"INSERT INTO {TABLE} SELECT id, knowledge_base_id, embedding FROM knowledge_chunk"
        )
        copied = time.perf_counter() - started
        cursor.execute(f"ANALYZE {TABLE}")
        print(f"copied every KB's vectors into {len(every_kb)} partitions in {copied:.0f} s")
        cursor.execute(f"SET maintenance_work_mem = '{memory}MB'")
        for size, kb in kbs.items():
            if kb.chunk_count < settings.VECTOR_INDEX_MIN_CHUNKS:
                continue
            started = time.perf_counter()
            cursor.execute(
                f"CREATE INDEX {TABLE}_{kb.id}_hnsw ON {TABLE}_{kb.id} "
                "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
            )
            cursor.execute(
                f"SELECT pg_relation_size('{TABLE}_{kb.id}_hnsw'), "
                f"pg_relation_size('{index_name(kb.id)}')"
            )
            part_bytes, partial_bytes = cursor.fetchone()
            print(
                f"{size:>8}: partition's HNSW index built in {time.perf_counter() - started:.0f} s, "
                f"{part_bytes / 1e6:.0f} MB (partial index on the chunk table: "
                f"{partial_bytes / 1e6:.0f} MB)"
            )
        cursor.execute("RESET maintenance_work_mem")

    def partitioned(kb, vector, exact):
        sql = (
            f"SELECT id, 1 - (embedding <=> %(v)s::vector) AS score FROM {TABLE} "
            f"WHERE knowledge_base_id = {int(kb.id)} "
            f"ORDER BY {'(embedding <=> %(v)s::vector) + 0' if exact else 'embedding <=> %(v)s::vector'}, id "
            "LIMIT 10"
        )
        with transaction.atomic(), connection.cursor() as cursor:
            for statement in dense.search_settings(10, exact):
                cursor.execute(statement)
            cursor.execute(sql, {"v": vector})
            return [row[0] for row in cursor.fetchall()]

    def shipped(kb, vector, exact):
        return [c for c, _ in dense._search([kb.id], vector, 10, exact, DocumentFilter())]

    print(f"{len(queries)} NFCorpus test queries, dense top 10, query encoding excluded")
    print(f"{'chunks':>8} {'layout':<40}{'p50 ms':>9}{'p95 ms':>9}{'recall':>9}")
    try:
        for kb in kbs.values():
            exact = kb.chunk_count < settings.VECTOR_INDEX_MIN_CHUNKS
            # A pass over every query first, so both layouts' indexes are read into memory
            # (the copy above pushed the shipped side's out); then timed, interleaved, so
            # both see the same machine.
            for vector in vectors:
                shipped(kb, vector, exact)
                partitioned(kb, vector, exact)
            times = {"shipped": [], "partitioned": []}
            recall = {"shipped": [], "partitioned": []}
            for vector in vectors:
                t0 = time.perf_counter()
                a = shipped(kb, vector, exact)
                t1 = time.perf_counter()
                b = partitioned(kb, vector, exact)
                t2 = time.perf_counter()
                times["shipped"].append((t1 - t0) * 1000)
                times["partitioned"].append((t2 - t1) * 1000)
                truth = set(a) if exact else set(shipped(kb, vector, True))
                recall["shipped"].append(len(set(a) & truth) / max(len(truth), 1))
                recall["partitioned"].append(len(set(b) & truth) / max(len(truth), 1))
            how = "exact" if exact else "HNSW"
            for name, label in (
                ("shipped", f"one table, partial {how} per KB"),
                ("partitioned", f"partitioned by KB, {how} per partition"),
            ):
                values = times[name]
                print(
                    f"{kb.chunk_count:>8} {label:<40}{statistics.median(values):>9.1f}"
                    f"{pct(values, 95):>9.1f}{statistics.mean(recall[name]):>9.2f}"
                )
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE IF EXISTS {TABLE}")


if __name__ == "__main__":
    main()
