"""Knowledge bases the query tests share: what they hold is what the tests ask."""

from __future__ import annotations

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create


def physics_kb(owner):
    """Return a knowledge base "Physics" of two documents: one answers "What did Marie Curie
    discover?", the other is about risotto."""
    kb = kb_create(owner=owner, name="Physics")
    documents_ingest_inline(
        kb=kb,
        items=[
            TextItem("curie.txt", b"Marie Curie discovered polonium and radium. She won two Nobel Prizes."),
            TextItem("risotto.txt", b"Risotto is cooked with arborio rice and stock added slowly."),
        ],
    )  # fmt: skip
    return kb
