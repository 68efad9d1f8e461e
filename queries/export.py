"""A conversation as a file: its questions, answers and citations, as Markdown or JSON.

GET /api/conversations/<id>/export reads it through `conversation_export`; the Markdown is
meant for people (a report to paste or attach), the JSON for scripts. Citations name the file,
the page and the section each passage came from, as the answer card shows them.
"""

from __future__ import annotations

from typing import Any

from adrag_site import audit
from adrag_site.audit import audit_record
from knowledge.selectors import kb_ids_for_user
from queries.models import Conversation
from queries.selectors import conversation_runs

FORMATS = ("md", "json")
SECTION_SEPARATOR = " › "


def _citation(source: dict) -> dict[str, Any]:
    section = source.get("section") or []
    return {
        "index": int(source.get("index") or 0),
        "file_name": str(source.get("file_name") or source.get("title") or ""),
        "page": source.get("page"),
        "section": [str(part) for part in section] if isinstance(section, list) else [],
        "url": str(source.get("url") or ""),
        # The passage in the document viewer (/documents/<id>/?chunk=<id>), when it is one.
        **{
            key: int(source[key])
            for key in ("document_id", "chunk_id")
            if isinstance(source.get(key), int)
        },
    }


def conversation_export(
    *, conversation: Conversation, readable_kb_ids: set[int] | None = None
) -> dict[str, Any]:
    """Return the conversation's turns in order, each with its answer and citations.

    With `readable_kb_ids` (a team member opening a shared conversation), a turn that searched
    a knowledge base outside them, and every turn after it, keeps only its question
    (`withheld`): sharing a conversation never shares the documents behind it.
    """
    turns = []
    withheld = False
    for run in conversation_runs(conversation=conversation):
        # A follow-up is read with the earlier answers (its standalone question, its answer):
        # after a turn the reader may not see, every later turn is withheld too.
        withheld = withheld or (
            readable_kb_ids is not None and not set(run.kb_ids or []) <= readable_kb_ids
        )
        succeeded = run.status == run.Status.SUCCEEDED
        turn = {
            "run_id": str(run.id),
            "asked_at": run.created_at.isoformat(),
            "question": run.query,
            "standalone_question": run.standalone_query or run.query,
            "status": run.status,
            "answer": run.answer if succeeded else "",
            "error": run.error_message if not succeeded else "",
            "verdict": (run.metadata or {}).get("verdict", ""),
            "citations": [
                _citation(source) for source in (run.sources or []) if isinstance(source, dict)
            ],
        }
        if withheld:
            turn.update(standalone_question=run.query, answer="", error="", verdict="")
            turn["citations"] = []
        if readable_kb_ids is not None:
            turn["withheld"] = withheld
        turns.append(turn)
    return {
        "id": str(conversation.id),
        "title": conversation.title,
        "user": conversation.user.username,
        "shared_with": conversation.shared_with.name if conversation.shared_with else None,
        "created_at": conversation.created_at.isoformat(),
        "updated_at": conversation.updated_at.isoformat(),
        "turns": turns,
    }


def _where(citation: dict) -> str:
    parts = [citation["file_name"] or citation["url"] or "unknown source"]
    if citation["page"]:
        parts.append(f"page {citation['page']}")
    if citation["section"]:
        parts.append(SECTION_SEPARATOR.join(citation["section"]))
    return ", ".join(parts)


def conversation_markdown(export: dict[str, Any]) -> str:
    """Return an export as Markdown: a heading per turn, the answer, its sources."""
    lines = [f"# {export['title'] or 'Conversation'}", ""]
    lines += [
        f"_{export['user']}, {export['created_at'][:10]}; {len(export['turns'])} turn(s)._",
        "",
    ]
    for number, turn in enumerate(export["turns"], start=1):
        lines += [f"## {number}. {turn['question']}", ""]
        if turn["standalone_question"] != turn["question"]:
            lines += [f"_Read as: {turn['standalone_question']}_", ""]
        if turn.get("withheld"):
            lines += ["_Withheld: the answer used a knowledge base you cannot read._", ""]
        elif turn["answer"]:
            lines += [turn["answer"].strip(), ""]
        else:
            lines += [
                f"_No answer ({turn['status']}{': ' + turn['error'] if turn['error'] else ''})._",
                "",
            ]
        if turn["verdict"] == "unverified":
            lines += ["_The answer's claims were not all verified against the sources._", ""]
        if turn["citations"]:
            lines += ["Sources:", ""]
            lines += [f"- [{c['index']}] {_where(c)}" for c in turn["citations"]]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def shared_conversation_export(*, conversation: Conversation, user) -> dict[str, Any]:
    """Return a conversation as a reader may see it: whole for its owner and staff, without the
    answers from knowledge bases a team member cannot read. Someone else's read is audited as
    an export."""
    whole = user.is_staff or conversation.user_id == user.id
    readable = None if whole else set(kb_ids_for_user(user=user))
    if conversation.user_id != user.id:
        audit_record(audit.EXPORT, target=conversation, shared=True)
    return conversation_export(conversation=conversation, readable_kb_ids=readable)
