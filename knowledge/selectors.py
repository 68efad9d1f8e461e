"""Reads scoped to what a user may see.

Who may do what (also in the README):
- read a knowledge base (list, search, see its documents): its owner, members of its team, staff;
- write documents (upload, re-index, cancel, delete a document): the same people;
- manage the knowledge base itself (rename, share with a team, clear, delete): its owner and staff.
Any other id answers 404, so a caller cannot tell another team's KB from a missing one.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet
from django.http import Http404

from knowledge.models import Chunk, Document, KnowledgeBase


def kb_list_for_user(*, user) -> QuerySet[KnowledgeBase]:
    """Return the knowledge bases the user may read."""
    if not user.is_authenticated:
        return KnowledgeBase.objects.none()
    if user.is_staff:
        return KnowledgeBase.objects.all()
    return KnowledgeBase.objects.filter(Q(owner=user) | Q(team__in=user.groups.all())).distinct()


def kb_ids_for_user(*, user) -> list[int]:
    """Return the ids of the knowledge bases the user may read."""
    return list(kb_list_for_user(user=user).values_list("id", flat=True))


def kb_get_for_user(*, kb_id, user) -> KnowledgeBase:
    """Return a knowledge base the user may read, or raise Http404."""
    try:
        kb_id = int(kb_id)
    except (TypeError, ValueError):
        raise Http404("No such knowledge base.") from None
    kb = kb_list_for_user(user=user).filter(id=kb_id).first()
    if kb is None:
        raise Http404("No such knowledge base.")
    return kb


def kb_can_manage(*, kb: KnowledgeBase, user) -> bool:
    """Tell whether the user may rename, share, clear or delete the knowledge base."""
    return user.is_staff or kb.owner_id == user.id


def kb_can_write(*, kb: KnowledgeBase, user) -> bool:
    """Tell whether the user may add, re-index or delete documents of the knowledge base."""
    if kb_can_manage(kb=kb, user=user):
        return True
    return kb.team_id is not None and user.groups.filter(id=kb.team_id).exists()


def kb_default_for_user(*, user) -> KnowledgeBase:
    """Return the user's own default knowledge base, creating it on first use."""
    kb, _ = KnowledgeBase.objects.get_or_create(
        owner=user, name="Default", defaults={"description": "Created for uploads with no KB."}
    )
    return kb


def document_list_for_user(*, user) -> QuerySet[Document]:
    """Return the documents of every knowledge base the user may read."""
    return Document.objects.filter(knowledge_base__in=kb_list_for_user(user=user))


def document_get_for_user(*, document_id, user) -> Document:
    """Return a document the user may read, or raise Http404."""
    try:
        document_id = int(document_id)
    except (TypeError, ValueError):
        raise Http404("No such document.") from None
    document = (
        document_list_for_user(user=user)
        .select_related("knowledge_base")
        .filter(id=document_id)
        .first()
    )
    if document is None:
        raise Http404("No such document.")
    return document


def chunk_list_for_kbs(*, kb_ids: list[int]) -> QuerySet[Chunk]:
    """Return the chunks of the given knowledge bases."""
    return Chunk.objects.filter(knowledge_base_id__in=kb_ids)
