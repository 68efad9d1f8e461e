"""manage.py evaluate_retrieval --dataset <BEIR folder> [--split test|train|dev]."""

from __future__ import annotations

import time
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from knowledge.bulk import documents_ingest_inline
from knowledge.evaluation import ROWS, Settings, evaluate, load_queries
from knowledge.management.commands.ingest import beir_items, count_lines
from knowledge.models import KnowledgeBase
from knowledge.retrieval.graph import graph_top_k
from providers.reranker import get_reranker


def _settings(deep_rerank: int) -> dict[str, Settings]:
    """Return the settings that may be evaluated: the portal's defaults, and a deep one (exact
    dense search, no store cut-off, the reranker over `deep_rerank` fused candidates)."""
    top_k = settings.RETRIEVAL_TOP_K
    return {
        "defaults": Settings(
            "defaults",
            top_k=top_k,
            graph_k=graph_top_k(top_k),
            rerank_depth=None,
            keep=settings.RERANK_TOP_K,
        ),
        "deep": Settings(
            "deep",
            top_k=None,
            graph_k=None,
            rerank_depth=deep_rerank,
            keep=None,
            exact_dense=True,
        ),
    }


class Command(BaseCommand):
    help = (
        "Ingest a BEIR dataset (or reuse it) and print nDCG@10 and Recall@100 per retrieval stage."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dataset", required=True, help="BEIR folder with corpus.jsonl, queries.jsonl, qrels/"
        )
        parser.add_argument("--split", default="test")
        parser.add_argument("--kb", help="Knowledge base name (default: beir-<folder name>).")
        parser.add_argument(
            "--deep-rerank",
            type=int,
            default=300,
            help="Fused candidates the reranker scores in the deep setting.",
        )
        parser.add_argument(
            "--modes",
            dest="which",
            default="defaults,deep",
            help="Comma-separated: defaults, deep.",
        )
        parser.add_argument("--limit-queries", type=int)

    def handle(
        self,
        *args,
        dataset: str,
        split: str,
        kb: str | None,
        deep_rerank: int,
        which: str,
        limit_queries: int | None,
        **options,
    ):
        folder = Path(dataset).expanduser()
        if (
            not (folder / "corpus.jsonl").exists()
            or not (folder / "qrels" / f"{split}.tsv").exists()
        ):
            raise CommandError(f"{folder} is not a BEIR folder with a {split} split")
        knowledge_base = self._ingest(folder, kb or f"beir-{folder.name}")
        queries, qrels = load_queries(folder, split)
        if limit_queries:
            queries = dict(list(queries.items())[:limit_queries])
        reranker = get_reranker()
        self.stdout.write(
            f"\n{folder.name} / {split}: {len(queries)} queries, {knowledge_base.chunk_count} chunks "
            f"in {knowledge_base.documents.count()} documents; reranker: {reranker.name} ({reranker.kind})"
        )
        choices = _settings(deep_rerank)
        for name in which.split(","):
            setting = choices[name.strip()]
            with tqdm(total=len(queries), desc=name, unit="q", file=self.stderr._out) as bar:
                result = evaluate(
                    kb_id=knowledge_base.id,
                    queries=queries,
                    qrels=qrels,
                    setting=setting,
                    reranker=reranker,
                    progress=lambda _: bar.update(1),
                )
            self.stdout.write("\n" + setting.describe())
            self.stdout.write(f"{'row':<12}{'nDCG@10':>10}{'Recall@100':>12}")
            for row in ROWS:
                self.stdout.write(
                    f"{row:<12}{result[row]['ndcg@10']:>10.3f}{result[row]['recall@100']:>12.3f}"
                )
            self.stdout.write(f"({result['_meta']['seconds_per_query'] * 1000:.0f} ms per query)")

    def _ingest(self, folder: Path, name: str) -> KnowledgeBase:
        user, _ = get_user_model().objects.get_or_create(
            username="evaluation", defaults={"is_active": False}
        )
        kb = KnowledgeBase.objects.filter(name=name).order_by("id").first()
        if kb is None:
            kb = KnowledgeBase.objects.create(owner=user, name=name)
        corpus = folder / "corpus.jsonl"
        total = count_lines(corpus)
        if kb.documents.filter(status="ready").count() >= total:
            return kb
        started = time.monotonic()
        with tqdm(
            total=total, desc=f"ingest {folder.name}", unit="doc", file=self.stderr._out
        ) as bar:
            summary = documents_ingest_inline(
                kb=kb, items=beir_items(corpus), user=user, on_document=lambda *_: bar.update(1)
            )
        self.stdout.write(
            f"ingested {summary['ready']} documents ({summary['chunks']} chunks) "
            f"in {time.monotonic() - started:.0f}s"
        )
        kb.refresh_from_db()
        return kb
