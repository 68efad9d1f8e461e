"""Tune fusion weights and the fallback reranker's lexical weight on tuning splits only.

    .venv/bin/python bench/tune_retrieval.py --dataset nfcorpus --split dev
    .venv/bin/python bench/tune_retrieval.py --dataset scifact --split train

Never run it on SciFact's test split: that split is the scoreboard. Store results are computed
once per query; each variant then re-fuses and re-scores in memory.
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np
from _setup import EVAL_DATA, setup


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--split", required=True)
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    if args.dataset == "scifact" and args.split == "test":
        raise SystemExit("SciFact test is the scoreboard; tune on train.")
    setup()
    from knowledge.evaluation import CorpusIndex, load_queries, ndcg_at, recall_at
    from knowledge.models import Chunk, KnowledgeBase
    from knowledge.retrieval.bm25 import bm25_scores, corpus_stats, term_idfs
    from knowledge.retrieval.dense import dense_scores
    from knowledge.retrieval.fusion import fuse_ranks
    from knowledge.retrieval.graph import graph_scores
    from providers import embedder
    from providers.reranker import lexical_match
    from providers.tokenize import bm25_tokens

    kb = KnowledgeBase.objects.get(name=f"beir-{args.dataset}")
    index = CorpusIndex(kb.id)
    queries, qrels = load_queries(EVAL_DATA / args.dataset, args.split)
    if args.limit:
        queries = dict(list(queries.items())[: args.limit])
    stats = corpus_stats([kb.id])
    cached = []
    for query_id, text in queries.items():
        vector = embedder.embed_query(text)
        stores = {
            "vector": [c for c, _ in dense_scores(kb_ids=[kb.id], query_vector=vector, top_k=200)],
            "bm25": [c for c, _ in bm25_scores(kb_ids=[kb.id], query=text, top_k=200)],
            "graph": [c for c, _ in graph_scores(kb_ids=[kb.id], query=text, top_k=100)],
        }
        pool = list(dict.fromkeys(itertools.chain(*stores.values())))
        rows = dict(
            (r[0], r[1:])
            for r in Chunk.objects.filter(id__in=pool).values_list("id", "text", "embedding")
        )
        idf = term_idfs([kb.id], list(dict.fromkeys(bm25_tokens(text))), stats)
        cosine = {c: float(np.asarray(rows[c][1]) @ vector) for c in pool}
        lexical = dict(zip(pool, lexical_match(text, [rows[c][0] for c in pool], idf)))
        cached.append((query_id, stores, cosine, lexical))
    print(f"{args.dataset}/{args.split}: {len(cached)} queries")

    def evaluate(weights, lex_weight, k, depth, keep):
        ndcg = recall = 0.0
        for query_id, stores, cosine, lexical in cached:
            lists = {
                s: [index.md5_of[c] for c in stores[s][: (k if s != "graph" else max(k // 2, 3))]]
                for s in stores
            }
            rep = {}
            for s in stores:
                for c in stores[s][: (k if s != "graph" else max(k // 2, 3))]:
                    rep.setdefault(index.md5_of[c], c)
            fused = fuse_ranks(lists, weights, 60)
            order = [rep[m] for m in sorted(fused, key=fused.get, reverse=True)][:depth]
            scored = sorted(
                order,
                key=lambda c: (1 - lex_weight) * cosine[c] + lex_weight * lexical[c],
                reverse=True,
            )
            docs = index.documents(scored[:keep] if keep else scored)
            ndcg += ndcg_at(docs, qrels[query_id])
            recall += recall_at(docs, qrels[query_id])
        return ndcg / len(cached), recall / len(cached)

    print(f"{'setting':<10}{'graph w':>8}{'lex w':>7}{'nDCG@10':>9}{'R@100':>8}")
    for setting, (k, depth, keep) in {"defaults": (10, 25, 5), "deep": (200, 300, None)}.items():
        for graph_weight in (0.0, 0.3, 1.0):
            for lex in (0.0, 0.3, 0.5, 0.6, 0.7, 0.8):
                weights = {"vector": 1.0, "bm25": 1.0, "graph": graph_weight, "web": 1.0}
                n, r = evaluate(weights, lex, k, depth, keep)
                print(f"{setting:<10}{graph_weight:>8}{lex:>7}{n:>9.3f}{r:>8.3f}")


if __name__ == "__main__":
    main()
