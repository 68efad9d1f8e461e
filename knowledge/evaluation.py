"""Retrieval quality on BEIR data: nDCG@10 and Recall@100 with trec_eval's definitions.

Evaluation is at document level: a document's score is its best chunk's, so a document ranks
where its first chunk appears. Every candidate is ranked (not only the top 5 a user sees), and
the per-store width used is printed with the table.
"""

from __future__ import annotations

import csv
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from knowledge.models import Chunk
from knowledge.retrieval.bm25 import bm25_scores
from knowledge.retrieval.dense import dense_scores
from knowledge.retrieval.fusion import fuse_ranks, fusion_weights
from knowledge.retrieval.graph import graph_scores
from knowledge.retrieval.hits import Hit
from knowledge.retrieval.rerank import rerank
from knowledge.retrieval.stores import fusion_lists
from providers import embedder
from providers.reranker import Reranker, get_reranker

ROWS = ("bm25", "dense", "graph", "aggregate", "reranked")


def load_queries(dataset: Path, split: str) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    """Return the split's queries (those with judgements) and their relevance judgements."""
    qrels: dict[str, dict[str, int]] = {}
    with (dataset / "qrels" / f"{split}.tsv").open(encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader)
        for query_id, doc_id, score in reader:
            qrels.setdefault(query_id, {})[doc_id] = int(score)
    queries = {}
    with (dataset / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if record["_id"] in qrels:
                queries[record["_id"]] = record["text"]
    return queries, {qid: qrels[qid] for qid in queries}


def ndcg_at(ranking: list[str], judged: dict[str, int], k: int = 10) -> float:
    """trec_eval ndcg_cut: linear gains, log2(rank + 1) discount, ideal from all judgements."""
    dcg = sum(
        judged.get(doc, 0) / math.log2(rank + 1)
        for rank, doc in enumerate(ranking[:k], start=1)
        if judged.get(doc, 0) > 0
    )
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(rank + 1) for rank, g in enumerate(ideal, start=1))
    return dcg / idcg if idcg else 0.0


def recall_at(ranking: list[str], judged: dict[str, int], k: int = 100) -> float:
    """trec_eval recall_k: relevant documents in the top k over all relevant documents."""
    relevant = {doc for doc, grade in judged.items() if grade > 0}
    if not relevant:
        return 0.0
    return len(relevant & set(ranking[:k])) / len(relevant)


@dataclass
class Settings:
    """One evaluation setting: per-store widths, rerank depth and what the user keeps."""

    name: str
    top_k: int | None
    graph_k: int | None
    rerank_depth: int | None
    keep: int | None
    exact_dense: bool = False
    weights: dict[str, float] = field(default_factory=fusion_weights)
    rrf_k: int = 60

    def describe(self) -> str:
        def width(value):
            return "all" if value is None else str(value)

        return (
            f"{self.name}: K vector/BM25 {width(self.top_k)}, graph {width(self.graph_k)}, "
            f"rerank {width(self.rerank_depth)} fused candidates, keep {width(self.keep)}; "
            f"RRF k={self.rrf_k} weights "
            + ", ".join(f"{k} {v:g}" for k, v in self.weights.items())
        )


class CorpusIndex:
    """Chunk ids of a KB mapped to their BEIR document ids and text hashes."""

    def __init__(self, kb_id: int) -> None:
        self.kb_id = kb_id
        rows = Chunk.objects.filter(knowledge_base_id=kb_id).values_list(
            "id", "document__external_id", "text_md5"
        )
        self.doc_of: dict[int, str] = {}
        self.md5_of: dict[int, str] = {}
        for chunk_id, external_id, md5 in rows:
            self.doc_of[chunk_id] = external_id
            self.md5_of[chunk_id] = md5

    def documents(self, chunk_ids: list[int]) -> list[str]:
        seen: dict[str, None] = {}
        for chunk_id in chunk_ids:
            seen.setdefault(self.doc_of[chunk_id], None)
        return list(seen)


def run_query(
    *, index: CorpusIndex, query: str, setting: Settings, reranker: Reranker
) -> dict[str, list[str]]:
    """Return each row's document ranking for one query."""
    kb_ids = [index.kb_id]
    vector = embedder.embed_query(query)
    stores = {
        "vector": [
            c
            for c, _ in dense_scores(
                kb_ids=kb_ids, query_vector=vector, top_k=setting.top_k, exact=setting.exact_dense
            )
        ],
        "bm25": [c for c, _ in bm25_scores(kb_ids=kb_ids, query=query, top_k=setting.top_k)],
        "graph": [c for c, _ in graph_scores(kb_ids=kb_ids, query=query, top_k=setting.graph_k)],
    }
    # Dedupe by text hash as the aggregator does; one chunk stands for each hash.
    representative: dict[str, int] = {}
    ranked: dict[str, list[str]] = {}
    for source in fusion_lists():
        ranked[source] = []
        for chunk_id in stores.get(source, []):
            md5 = index.md5_of[chunk_id]
            representative.setdefault(md5, chunk_id)
            ranked[source].append(md5)
    fused = fuse_ranks(ranked, setting.weights, setting.rrf_k)
    fused_chunks = [representative[md5] for md5 in sorted(fused, key=fused.get, reverse=True)]
    candidates = fused_chunks[: setting.rerank_depth] if setting.rerank_depth else fused_chunks
    reranked = rerank_ids(query=query, chunk_ids=candidates, kb_ids=kb_ids, reranker=reranker)
    if setting.keep:
        reranked = reranked[: setting.keep]
    return {
        "bm25": index.documents(stores["bm25"]),
        "dense": index.documents(stores["vector"]),
        "graph": index.documents(stores["graph"]),
        "aggregate": index.documents(fused_chunks),
        "reranked": index.documents(reranked),
    }


def rerank_ids(
    *, query: str, chunk_ids: list[int], kb_ids: list[int], reranker: Reranker
) -> list[int]:
    """Return chunk ids ordered by the reranker's score, as the pipeline's rerank orders them."""
    if not chunk_ids:
        return []
    texts = dict(Chunk.objects.filter(id__in=chunk_ids).values_list("id", "text"))
    hits = [Hit(text=texts[c], source_type="vector", score=0.0, chunk_id=c) for c in chunk_ids]
    ranked = rerank(query=query, hits=hits, kb_ids=kb_ids, top_k=None, reranker=reranker)
    return [hit.chunk_id for hit in ranked]


def evaluate(
    *,
    kb_id: int,
    queries: dict[str, str],
    qrels: dict[str, dict[str, int]],
    setting: Settings,
    reranker: Reranker | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, dict[str, float]]:
    """Return mean nDCG@10 and Recall@100 per row, plus seconds per query."""
    reranker = reranker or get_reranker()
    index = CorpusIndex(kb_id)
    totals = {row: {"ndcg@10": 0.0, "recall@100": 0.0} for row in ROWS}
    started = time.perf_counter()
    for done, (query_id, text) in enumerate(queries.items(), start=1):
        rankings = run_query(index=index, query=text, setting=setting, reranker=reranker)
        for row in ROWS:
            totals[row]["ndcg@10"] += ndcg_at(rankings[row], qrels[query_id])
            totals[row]["recall@100"] += recall_at(rankings[row], qrels[query_id])
        if progress:
            progress(done)
    count = max(len(queries), 1)
    result = {row: {m: v / count for m, v in metrics.items()} for row, metrics in totals.items()}
    result["_meta"] = {
        "seconds_per_query": (time.perf_counter() - started) / count,
        "queries": len(queries),
    }
    return result
