"""Chunks per second of ingesting NFCorpus end to end, against the embedder's raw encode rate.

    .venv/bin/python bench/ingest.py [--limit N]

End to end = read the BEIR corpus, extract, chunk, tokenise, find entities, embed, and write
chunks, postings and edges to PostgreSQL (the `manage.py ingest` path). Raw = the embedder's
`encode` alone over the same chunk texts, in the same process, with the same batch size.
"""

from __future__ import annotations

import argparse
import time

from _setup import EVAL_DATA, bench_user, setup


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default=str(EVAL_DATA / "nfcorpus"))
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    setup()
    import itertools
    from pathlib import Path

    import torch

    from knowledge.bulk import documents_ingest_inline
    from knowledge.management.commands.ingest import beir_items
    from knowledge.models import Chunk, KnowledgeBase
    from knowledge.services import kb_delete
    from providers import embedder

    user = bench_user()
    for old in KnowledgeBase.objects.filter(owner=user, name="bench-ingest"):
        kb_delete(kb=old)
    kb = KnowledgeBase.objects.create(owner=user, name="bench-ingest")
    items = list(itertools.islice(beir_items(Path(args.dataset) / "corpus.jsonl"), args.limit))
    embedder.get_model()  # load outside the timed region: both figures exclude model loading
    embedder.embed_texts(["warm up"])

    started = time.perf_counter()
    summary = documents_ingest_inline(kb=kb, items=items, user=user)
    end_to_end = time.perf_counter() - started
    texts = list(
        Chunk.objects.filter(knowledge_base=kb).order_by("id").values_list("text", flat=True)
    )

    started = time.perf_counter()
    for start in range(0, len(texts), 64):
        embedder.embed_texts(texts[start : start + 64], batch_size=64)
    raw = time.perf_counter() - started

    e2e_rate = len(texts) / end_to_end
    raw_rate = len(texts) / raw
    print(
        f"dataset: {args.dataset}  documents: {len(items)}  chunks: {len(texts)}  "
        f"(ready {summary['ready']}, failed {summary['failed']})  torch threads: {torch.get_num_threads()}"
    )
    print(f"{'measure':<34}{'seconds':>10}{'chunks/s':>12}")
    print(f"{'ingest end to end':<34}{end_to_end:>10.1f}{e2e_rate:>12.1f}")
    print(f"{'embedder encode only':<34}{raw:>10.1f}{raw_rate:>12.1f}")
    print(f"end-to-end / raw encode: {e2e_rate / raw_rate:.2f}")


if __name__ == "__main__":
    main()
