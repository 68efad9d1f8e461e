"""What a run reads of the knowledge bases it searches, as one object a run is handed.

`StoreRegistry` is all the pipeline's nodes ask of the knowledge bases: the stores (their names
and labels, for the retrieval event), a search of every store, the searched corpus's term
counts (the answer check's), a rerank over what the corpus stores (the fallback reranker reads
each chunk's stored embedding and the terms' idf), and the table store's search with a query a
model wrote. The run context (queries/pipeline/context.py) carries one; its default,
`DatabaseStores`, is the registered stores (stores.py) over PostgreSQL. A test hands a run
stores of its own that hold their passages in memory, and runs a node with no database.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from knowledge.retrieval.bm25 import corpus_stats, document_frequencies
from knowledge.retrieval.hits import Hit
from knowledge.retrieval.hybrid import RetrievalResult, search_stores
from knowledge.retrieval.rerank import rerank
from knowledge.retrieval.stores import Store, stores
from knowledge.tables.model_search import model_table_search
from providers.reranker import Reranker

# Writes a table query: (the tables' schema as text, the question) -> the model's reply.
# (schema text, question, the problem of a query written before: "" at first) -> the reply.
TableQueryWriter = Callable[[str, str, str], str]


class StoreRegistry(Protocol):
    """The stores a run searches, and what it reads of the corpus they hold."""

    def stores(self) -> list[Store]:
        """Return the stores, in their fusion order."""
        ...

    def search(self, *, kb_ids: list[int], query: str, top_k: int, filters: Any) -> RetrievalResult:
        """Return every store's hits for the query over the KBs, `filters` applied."""
        ...

    def term_counts(self, kb_ids: list[int], terms: list[str]) -> dict:
        """Return {"chunks": how many chunks the KBs hold, "df": {term: chunks holding it}}."""
        ...

    def rerank(
        self, *, query: str, hits: list[Hit], kb_ids: list[int], top_k: int, reranker: Reranker
    ) -> list[Hit]:
        """Return the best `top_k` hits by the reranker, each with its rerank_score."""
        ...

    def table_query(
        self,
        *,
        kb_ids: list[int],
        query: str,
        filters: Any,
        write: TableQueryWriter,
        parser_hits: list[Hit],
    ) -> tuple[list[Hit], dict | None]:
        """Return the table store's hits with a query `write` wrote (the parser's when it
        declined or did not answer), and what happened to a query that did not answer."""
        ...


class DatabaseStores:
    """The registered stores over PostgreSQL: every run's, unless it is handed others."""

    def stores(self) -> list[Store]:
        return stores()

    def search(self, *, kb_ids: list[int], query: str, top_k: int, filters: Any) -> RetrievalResult:
        return search_stores(kb_ids=kb_ids, query=query, top_k=top_k, filters=filters)

    def term_counts(self, kb_ids: list[int], terms: list[str]) -> dict:
        frequencies = document_frequencies(kb_ids, terms)
        return {
            "chunks": corpus_stats(kb_ids).chunk_count,
            "df": {term: frequencies.get(term, 0) for term in terms},
        }

    def rerank(
        self, *, query: str, hits: list[Hit], kb_ids: list[int], top_k: int, reranker: Reranker
    ) -> list[Hit]:
        return rerank(query=query, hits=hits, kb_ids=kb_ids, top_k=top_k, reranker=reranker)

    def table_query(
        self,
        *,
        kb_ids: list[int],
        query: str,
        filters: Any,
        write: TableQueryWriter,
        parser_hits: list[Hit],
    ) -> tuple[list[Hit], dict | None]:
        return model_table_search(kb_ids, query, filters, write, parser_hits)
