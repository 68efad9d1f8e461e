"""Reads scoped to what a user may see.

Who may do what (also in the README):
- read a knowledge base (list, search, see its documents): its owner, members of its team, staff;
- write documents (upload, re-index, cancel, delete a document): the same people;
- manage the knowledge base itself (rename, share with a team, clear, delete): its owner and staff.
Any other id answers 404, so a caller cannot tell another team's KB from a missing one; a KB
the user may read but not act on at the asked level answers 403.
"""

from __future__ import annotations

from django.contrib.auth.models import Group
from django.db.models import Count, Q, QuerySet, Sum
from django.http import Http404

from adrag_site.errors import ServiceError
from knowledge.models import Chunk, ChunkEntity, Document, Entity, KnowledgeBase, Posting

READ = "read"
WRITE = "write"
MANAGE = "manage"
REFUSED = {
    WRITE: "You may read but not change the documents of this knowledge base.",
    MANAGE: "Only the owner or staff may change or delete this knowledge base.",
}


NO_SUCH_TEAM = "You can only share with a team you belong to."


def teams_for_user(*, user) -> QuerySet[Group]:
    """Return the teams a user may share knowledge bases with: their own (staff: every team)."""
    return Group.objects.all() if user.is_staff else user.groups.all()


def team_get_for_user(*, value, user) -> Group | None:
    """Return the team named or numbered `value` among those the user may share with (None for
    none asked), or raise a 400.

    A team that does not exist and one the user is not in answer alike, so that the API cannot
    be used to learn other teams' names.
    """
    if value in (None, ""):
        return None
    value = str(value)
    is_id = value.isascii() and value.isdigit()  # isdigit() alone takes "²"
    team = teams_for_user(user=user).filter(Q(id=value) if is_id else Q(name=value)).first()
    if team is None:
        raise ServiceError(400, "invalid_team", NO_SUCH_TEAM)
    return team


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


def kb_ids_readable(*, user, requested: list[int] | None) -> list[int]:
    """Return the knowledge bases a request searches: every one it names, each readable by the
    user (else a 404 naming the first that is not, so another team's answers as a missing one),
    or every one the user may read when it names none."""
    readable = kb_ids_for_user(user=user)
    if requested is None:
        return readable
    unknown = [kb_id for kb_id in requested if kb_id not in set(readable)]
    if unknown:
        raise ServiceError(404, "not_found", f"No such knowledge base: {unknown[0]}.")
    return list(requested)


def kb_get_for_user(*, kb_id, user, level: str = READ) -> KnowledgeBase:
    """Return a knowledge base the user may act on at `level`.

    Raises Http404 when the user may not even read it, ServiceError 403 when they may read it
    but not act on it at `level` (write documents, or manage the KB).
    """
    try:
        kb_id = int(kb_id)
    except (TypeError, ValueError):
        raise Http404("No such knowledge base.") from None
    kb = kb_list_for_user(user=user).filter(id=kb_id).first()
    if kb is None:
        raise Http404("No such knowledge base.")
    kb_check_level(kb=kb, user=user, level=level)
    return kb


def kb_check_level(*, kb: KnowledgeBase, user, level: str) -> None:
    """Raise ServiceError 403 unless the user may act on a KB they can read at `level`."""
    allowed = {
        READ: lambda: True,
        WRITE: lambda: kb_can_write(kb=kb, user=user),
        MANAGE: lambda: kb_can_manage(kb=kb, user=user),
    }[level]()
    if not allowed:
        raise ServiceError(403, "permission_denied", REFUSED[level])


def kb_can_manage(*, kb: KnowledgeBase, user) -> bool:
    """Tell whether the user may rename, share, clear or delete the knowledge base."""
    return user.is_staff or kb.owner_id == user.id


def kb_can_write(*, kb: KnowledgeBase, user) -> bool:
    """Tell whether the user may add, re-index or delete documents of the knowledge base."""
    if kb_can_manage(kb=kb, user=user):
        return True
    return kb.team_id is not None and user.groups.filter(id=kb.team_id).exists()


def document_list_for_user(*, user) -> QuerySet[Document]:
    """Return the documents of every knowledge base the user may read."""
    return Document.objects.filter(knowledge_base__in=kb_list_for_user(user=user))


def document_get_for_user(*, document_id, user, level: str = READ) -> Document:
    """Return a document whose KB the user may act on at `level` (Http404, or 403 as above)."""
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
    kb_check_level(kb=document.knowledge_base, user=user, level=level)
    return document


def chunk_list_for_kbs(*, kb_ids: list[int]) -> QuerySet[Chunk]:
    """Return the chunks of the given knowledge bases."""
    return Chunk.objects.filter(knowledge_base_id__in=kb_ids)


def chunk_refs_for_user(*, chunk_ids: list[int], user) -> dict[int, dict]:
    """Return file name, page and text of the chunks the user may read, by id (the others,
    deleted or in knowledge bases the user no longer reads, are left out)."""
    rows = Chunk.objects.filter(
        id__in=chunk_ids, knowledge_base_id__in=kb_ids_for_user(user=user)
    ).values("id", "page", "text", "document__file_name")
    return {
        row["id"]: {
            "file_name": row["document__file_name"],
            "page": row["page"],
            "text": row["text"],
        }
        for row in rows
    }


def kb_list_with_counts(*, user) -> QuerySet[KnowledgeBase]:
    """Return the readable knowledge bases with their document counts, newest first."""
    return (
        kb_list_for_user(user=user)
        .select_related("owner", "team")
        .annotate(document_total=Count("documents"))
        .order_by("-created_at")
    )


def kb_stats(*, kb: KnowledgeBase) -> dict:
    """Return the counts of a knowledge base's documents (by status) and of its three stores."""
    by_status = dict(kb.documents.values_list("status").annotate(n=Count("id")).order_by())
    return {
        "id": kb.id,
        "documents": sum(by_status.values()),
        "documents_by_status": by_status,
        "chunks": kb.chunk_count,
        "tokens": kb.token_total,
        "average_chunk_tokens": round(kb.token_total / kb.chunk_count, 2) if kb.chunk_count else 0,
        "postings": Posting.objects.filter(knowledge_base=kb).count(),
        "entities": Entity.objects.filter(knowledge_base=kb).count(),
        "edges": ChunkEntity.objects.filter(knowledge_base=kb).count(),
        "bytes": kb.documents.aggregate(total=Sum("size"))["total"] or 0,
    }


def index_counts_for_user(*, user) -> dict:
    """Return the spec's index counts (GET /api/documents) over the KBs the user may read."""
    kb_ids = kb_ids_for_user(user=user)
    chunks = chunk_list_for_kbs(kb_ids=kb_ids).count()
    bm25 = KnowledgeBase.objects.filter(id__in=kb_ids).aggregate(n=Sum("chunk_count"))["n"] or 0
    entities = Entity.objects.filter(knowledge_base_id__in=kb_ids).count()
    edges = ChunkEntity.objects.filter(knowledge_base_id__in=kb_ids).count()
    return {
        "vector_count": chunks,
        "bm25_count": bm25,
        "graph": {"nodes": entities + chunks, "edges": edges, "entities": entities},
        "documents": Document.objects.filter(knowledge_base_id__in=kb_ids).count(),
        "knowledge_bases": len(kb_ids),
    }
