"""Stores that hold their passages in memory: a run's stand-in for the knowledge bases
(RunContext.stores, knowledge/retrieval/registry.py), so the pipeline's nodes run without a
database.

Nothing here fakes what the pipeline tests test. The passages are the files as ingestion
reads them (the production extraction and chunking, `prepare_chunks`), embedded by the real
embedder; the vector store ranks every passage by cosine, the BM25 store by BM25Okapi over the
same tokens (rank_bm25, the SQL store's oracle), the graph store by the entities a passage
shares with the question; the term counts are counted over the passages, and the rerank is the
production ranking (knowledge/retrieval/rerank.py `rank`) over these embeddings and idf. The
table store finds nothing: table programs are tested on the database
(test_tables_e2e.py, test_table_queries.py)."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
from rank_bm25 import BM25Okapi

from knowledge.ingest.entities import extract_entities
from knowledge.ingest.extract import extract
from knowledge.ingestion import prepare_chunks
from knowledge.retrieval.hits import SOURCE_BM25, SOURCE_GRAPH, SOURCE_VECTOR, Hit
from knowledge.retrieval.hybrid import RetrievalResult
from knowledge.retrieval.rerank import rank
from knowledge.retrieval.stores import Store, StoreQuery, stores
from providers import embedder
from providers.tokenize import bm25_tokens

KB_ID = 1


class MemoryStores:
    """The production stores' names, labels and widths over passages held in memory."""

    def __init__(self, files: dict[str, bytes | str], *, kb_id: int = KB_ID) -> None:
        self.kb_id = kb_id
        self.passages: list[Hit] = []
        self.tokens: list[list[str]] = []
        self.entities: list[set[str]] = []
        for document_id, (name, data) in enumerate(files.items(), start=1):
            raw = data.encode() if isinstance(data, str) else data
            for chunk in prepare_chunks(extract(raw, name).segments):
                self.passages.append(
                    Hit(
                        text=chunk.text,
                        source_type="",
                        score=0.0,
                        chunk_id=len(self.passages) + 1,
                        document_id=document_id,
                        knowledge_base_id=kb_id,
                        file_name=name,
                        page=chunk.page,
                        section=list(chunk.section),
                        kind=chunk.kind,
                        structure=chunk.structure,
                    )
                )
                self.tokens.append(list(chunk.term_counts.elements()))
                self.entities.append(set(chunk.entities))
        texts = [hit.index_text for hit in self.passages]
        self.vectors = dict(
            zip([hit.chunk_id for hit in self.passages], embedder.embed_texts(texts))
        )
        self.bm25 = BM25Okapi(self.tokens)
        searches = {SOURCE_VECTOR: self._vector, SOURCE_BM25: self._bm25, SOURCE_GRAPH: self._graph}
        self._stores = [
            replace(store, search=searches.get(store.name, lambda q: []), computed=True)
            for store in stores()
        ]

    def stores(self) -> list[Store]:
        return list(self._stores)

    def search(self, *, kb_ids, query, top_k, filters) -> RetrievalResult:
        started = time.perf_counter()
        searched = self.kb_id in kb_ids and query.strip()
        hits = {}
        for store in self._stores:
            q = StoreQuery(kb_ids, query, None, store.width(top_k), filters)
            hits[store.name] = store.search(q) if searched else []
        return RetrievalResult(
            hits=hits, timings_ms={"total_ms": round((time.perf_counter() - started) * 1000, 2)}
        )

    def term_counts(self, kb_ids, terms) -> dict:
        held = [set(tokens) for tokens in self.tokens] if self.kb_id in kb_ids else []
        return {
            "chunks": len(held),
            "df": {term: sum(term in tokens for tokens in held) for term in terms},
        }

    def rerank(self, *, query, hits, kb_ids, top_k, reranker) -> list[Hit]:
        terms = dict.fromkeys(bm25_tokens(query))
        idf = {term: self.bm25.idf[term] for term in terms if term in self.bm25.idf}
        return rank(
            query=query, hits=hits, top_k=top_k, reranker=reranker, embeddings=self.vectors, idf=idf
        )

    def table_query(self, *, kb_ids, query, filters, write, parser_hits):
        return parser_hits, None

    def _ranked(self, scores, source: str, top_k: int, keep=lambda score: True) -> list[Hit]:
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        found = [i for i in order if keep(scores[i])][:top_k]
        return [
            replace(
                self.passages[i],
                source_type=source,
                score=float(scores[i]),
                rank=rank_,
                found_by=[source],
            )
            for rank_, i in enumerate(found, start=1)
        ]

    def _vector(self, q: StoreQuery) -> list[Hit]:
        query = embedder.embed_query(q.query)
        scores = [float(np.dot(self.vectors[hit.chunk_id], query)) for hit in self.passages]
        return self._ranked(scores, SOURCE_VECTOR, q.top_k)

    def _bm25(self, q: StoreQuery) -> list[Hit]:
        scores = list(self.bm25.get_scores(bm25_tokens(q.query)))
        terms = set(bm25_tokens(q.query))
        held = [bool(terms & set(tokens)) for tokens in self.tokens]
        scores = [score if hold else float("-inf") for score, hold in zip(scores, held)]
        return self._ranked(scores, SOURCE_BM25, q.top_k, keep=lambda score: score > float("-inf"))

    def _graph(self, q: StoreQuery) -> list[Hit]:
        asked = set(extract_entities(q.query))
        scores = [float(len(asked & names)) for names in self.entities]
        return self._ranked(scores, SOURCE_GRAPH, q.top_k, keep=lambda score: score > 0)


def searched(kb) -> dict:
    """Return the run_pipeline arguments that search `kb`: a knowledge base in the database
    (its id), or MemoryStores (its id, and the stores themselves in place of the database)."""
    if isinstance(kb, MemoryStores):
        return {"kb_ids": [kb.kb_id], "stores": kb}
    return {"kb_ids": [kb.id]}
