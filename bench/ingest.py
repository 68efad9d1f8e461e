"""Chunks per second of ingesting NFCorpus end to end, against the embedder's raw encode rate.

    .venv/bin/python bench/ingest.py [--limit N]

End to end = read the BEIR corpus, extract, chunk, tokenise, find entities, embed, and write
chunks, postings and edges to PostgreSQL (the `manage.py ingest` path). Raw = the embedder's
`encode` alone over the same texts (each chunk under its section path, as ingestion embeds
it), in the same process, with the same batch size.
"""

from __future__ import annotations

import argparse
import time

from _setup import EVAL_DATA, bench_user, setup


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default=str(EVAL_DATA / "nfcorpus"))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument(
        "--raw-sample",
        type=int,
        default=None,
        help="time the raw encode on this many chunks only (a rate; the same texts, in order)",
    )
    parser.add_argument("--name", default="bench-ingest", help="the KB to (re)create")
    args = parser.parse_args()
    setup()
    import itertools
    from pathlib import Path

    import torch
    from django.conf import settings

    from knowledge import bulk
    from knowledge.bulk import documents_ingest_inline
    from knowledge.index import analyze_index_tables
    from knowledge.ingest.chunking import index_text
    from knowledge.management.commands.ingest import beir_items
    from knowledge.models import Chunk, KnowledgeBase
    from knowledge.services import kb_delete
    from knowledge.term_blocks import build_blocks
    from knowledge.vector_index import build_index
    from providers import embedder

    user = bench_user()
    for old in KnowledgeBase.objects.filter(owner=user, name=args.name):
        kb_delete(kb=old)
    kb = KnowledgeBase.objects.create(owner=user, name=args.name)
    items = list(itertools.islice(beir_items(Path(args.dataset) / "corpus.jsonl"), args.limit))
    embedder.get_model()  # load outside the timed region: both figures exclude model loading
    embedder.embed_texts(["warm up"])

    # The KB's HNSW index and term blocks, and the planner statistics of the index tables, are
    # made after the timed region (timed on their own): one-offs at the end of a bulk load,
    # not part of the per-chunk rate.
    threshold = settings.VECTOR_INDEX_MIN_CHUNKS
    blocks_threshold = settings.TERM_BLOCKS_MIN_CHUNKS
    settings.VECTOR_INDEX_MIN_CHUNKS = settings.TERM_BLOCKS_MIN_CHUNKS = 10**12
    analyze_after, bulk.ANALYZE_AFTER_CHUNKS = bulk.ANALYZE_AFTER_CHUNKS, 10**12
    started = time.perf_counter()
    summary = documents_ingest_inline(kb=kb, items=items, user=user)
    end_to_end = time.perf_counter() - started
    settings.VECTOR_INDEX_MIN_CHUNKS = threshold
    settings.TERM_BLOCKS_MIN_CHUNKS = blocks_threshold
    bulk.ANALYZE_AFTER_CHUNKS = analyze_after
    started = time.perf_counter()
    analyzed = summary["chunks"] >= analyze_after
    if analyzed:
        analyze_index_tables()
    analyze_seconds = time.perf_counter() - started
    started = time.perf_counter()
    kb.refresh_from_db()
    built = kb.chunk_count >= threshold and build_index(kb.id)
    index_seconds = time.perf_counter() - started
    started = time.perf_counter()
    blocked = kb.chunk_count >= blocks_threshold and build_blocks(kb.id)
    blocks_seconds = time.perf_counter() - started
    # The texts ingestion embedded: each chunk under its section path (and caption).
    texts = [
        index_text(text, section, (structure or {}).get("caption", ""))
        for text, section, structure in Chunk.objects.filter(knowledge_base=kb)
        .order_by("id")
        .values_list("text", "section", "structure")
    ]

    sample = texts[: args.raw_sample] if args.raw_sample else texts
    started = time.perf_counter()
    for start in range(0, len(sample), 64):
        embedder.embed_texts(sample[start : start + 64], batch_size=64)
    raw = time.perf_counter() - started

    e2e_rate = len(texts) / end_to_end
    raw_rate = len(sample) / raw
    print(
        f"dataset: {args.dataset}  documents: {len(items)}  chunks: {len(texts)}  "
        f"(ready {summary['ready']}, failed {summary['failed']})  torch threads: {torch.get_num_threads()}"
    )
    print(f"{'measure':<34}{'seconds':>10}{'chunks/s':>12}")
    print(f"{'ingest end to end':<34}{end_to_end:>10.1f}{e2e_rate:>12.1f}")
    print(f"{f'embedder encode only ({len(sample)} chunks)':<34}{raw:>10.1f}{raw_rate:>12.1f}")
    print(f"end-to-end / raw encode: {e2e_rate / raw_rate:.2f}")
    if built:
        print(f"then the KB's own HNSW index over {kb.chunk_count} chunks: {index_seconds:.1f} s")
    if blocked:
        print(f"then the KB's term blocks: {blocks_seconds:.1f} s")
    if analyzed:
        print(f"then the index tables' planner statistics (ANALYZE): {analyze_seconds:.1f} s")


if __name__ == "__main__":
    main()
