"""The answer's sources and citations, shared by the nodes that write and check an answer.

The reason node builds the sources from the context documents and writes the answer; the
reflect node reads the same sources to check it and, for a held-back table program, writes a
computed answer. Both import this module; neither imports the other.
"""

from __future__ import annotations

import re

from knowledge.chunk_kinds import KIND_ROW, KIND_TABLE
from queries.answering.types import SourceBlock

UNABLE = "Unable to generate an answer."
PREVIEW_CHARS = 250
CITATION = re.compile(r"\[(\d+)\]")


def block_label(doc: dict) -> str:
    """Return the label a block is cited by: its file name, else its title, else Unknown."""
    return doc.get("file_name") or doc.get("title") or "Unknown"


def build_sources(docs: list[dict]) -> list[dict]:
    """Return the spec's eight-key source of each context document, 1-based.

    Additive keys that no reference client reads: `section` (the headings above the
    passage), `kind` (prose, list, row, table), for table rows `table` ({caption, headers,
    rows, first_row}) so a card can show a row as a table, and for a passage of a knowledge
    base `document_id` and `chunk_id`, so a citation can open the document at the passage.
    """
    sources = []
    for index, doc in enumerate(docs, start=1):
        text = doc.get("text", "")
        score = doc.get("rerank_score")
        if score is None:
            score = doc.get("score", 0.0)
        source = {
            "index": index,
            "file_name": block_label(doc),
            "source_type": doc.get("source_type", "vector"),
            "url": doc.get("url") or "",
            "page": doc.get("page") if doc.get("page") is not None else "",
            "rerank_score": round(float(score or 0.0), 4),
            "content_preview": text[:PREVIEW_CHARS],
            "content": text,
        }
        source.update(structure_keys(doc))
        if doc.get("chunk_id") is not None and doc.get("document_id") is not None:
            source["document_id"] = int(doc["document_id"])
            source["chunk_id"] = int(doc["chunk_id"])
        sources.append(source)
    return sources


def structure_keys(doc: dict) -> dict:
    """Return a document's additive source keys: its section, kind, and a row's table."""
    keys: dict = {}
    if doc.get("section"):
        keys["section"] = list(doc["section"])
    if doc.get("kind"):
        keys["kind"] = doc["kind"]
    structure = doc.get("structure") or {}
    if doc.get("kind") == KIND_ROW and structure.get("cells"):
        rows, first = [structure["cells"]], structure.get("row")
    elif doc.get("kind") == KIND_TABLE and structure.get("rows"):
        rows, first = structure["rows"], structure.get("first_row")
    else:
        return keys
    keys["table"] = {
        "caption": structure.get("caption") or "",
        "headers": list(structure.get("headers") or []),
        "rows": [list(row) for row in rows],
        "first_row": first,
    }
    return keys


def source_blocks(sources: list[dict], docs: list[dict]) -> list[SourceBlock]:
    """Return the evidence blocks a strategy reads, numbered as the sources are."""
    return [
        SourceBlock(
            index=source["index"],
            file_name=source["file_name"],
            text=source["content"],
            source_type=source["source_type"],
            rerank_score=source["rerank_score"],
            section=tuple(doc.get("section") or ()),
            kind=doc.get("kind") or "",
            structure=doc.get("structure"),
        )
        for source, doc in zip(sources, docs)
    ]


def cited_indices(answer: str, declared) -> set[int]:
    """Return the cited source numbers: those declared by the model, else those in the text."""
    indices: set[int] = set()
    for value in declared or []:
        try:
            indices.add(int(value))
        except (TypeError, ValueError):
            continue
    if not indices:
        indices = {int(n) for n in CITATION.findall(answer or "")}
    return indices


def computed_answer(docs: list[dict], sources: list[dict], lead: str = "") -> tuple[str, set[int]]:
    """Return a table program's answer (the result first, citing the computed passage, then
    the program in words, citing the rows it read) and the source numbers it cites. `lead`
    goes before the result ("Probably")."""
    structure = docs[0]["structure"]
    rows = [
        source["index"]
        for source, doc in zip(sources, docs)
        if doc.get("chunk_id") in set(structure.get("row_chunks") or [])
    ]
    cited_rows = "".join(f"[{index}]" for index in rows)
    result = f"{lead} {structure['result']}" if lead else structure["result"]
    if rows and not structure.get("computed"):
        # Cells read from rows: the value cites the rows that hold it, the program [1].
        answer = f"{result} {cited_rows}. {structure['words']} [1]."
    else:
        answer = f"{result} [1]. {structure['words']}{' ' + cited_rows if rows else ''}."
    return answer, {1, *rows}
