"""Compare two runs stage by stage, from their persisted event logs and recorded fields.

What each stage did is read back from the run's log (the last pass of each stage when the run
retried): the stores' hits, the fused order, the rerank scores, the compression, the grounding
verdict; the answer, citations, usage and timings come from the run's row. The result says,
for every stage, what each run did and what differs: hits in both, only in one and how their
ranks moved, score changes, a word-level answer diff, config changes. Runs recorded before the
logs carried hit ids compare on counts only (their `stores`, `ranked` and `passages` are null).
"""

from __future__ import annotations

import hashlib
import json
import re
from difflib import SequenceMatcher
from typing import Any

from knowledge.retrieval.stores import store_names
from knowledge.selectors import chunk_refs_for_user
from queries.models import QueryRun
from queries.pipeline import stages

# The stages whose last pass is compared, in pipeline order.
PIPELINE_STAGES = stages.STAGES
END_TYPES = {
    stages.STAGE_COMPLETE: "complete",
    stages.RETRIEVAL_RESULT: "complete",
    stages.STAGE_SKIP: "skipped",
    stages.STAGE_ERROR: "error",
}
PREVIEW_CHARS = 160
# Words and the whitespace between them: a diff of these keeps the text's own spacing.
TOKENS = re.compile(r"\s+|[^\s]+")


class RunLog:
    """What one run's log says each stage did (its last pass), how long each took, attempts."""

    def __init__(self, run: QueryRun) -> None:
        self.results: dict[str, dict[str, Any]] = {}
        self.status: dict[str, str] = {}
        self.durations_ms: dict[str, float] = {}
        self.attempts = 1
        started: dict[str, Any] = {}
        rows = (
            run.events.exclude(type__in=stages.EVENTSOURCE_ONLY)
            .order_by("seq")
            .values_list("type", "payload", "created_at")
        )
        for kind, payload, at in rows:
            if kind == stages.RETRY:
                self.attempts += 1
                continue
            data = json.loads(payload).get("data") or {}
            stage = data.get("stage")
            if stage not in PIPELINE_STAGES:
                continue
            if kind == stages.STAGE_START:
                started[stage] = at
                self.status.setdefault(stage, "running")
            elif kind in END_TYPES:
                self.status[stage] = END_TYPES[kind]
                if kind != stages.STAGE_ERROR or stage not in self.results:
                    self.results[stage] = data
                else:
                    self.results[stage] = {**self.results[stage], "error": data.get("error")}
                if started.get(stage) is not None:
                    elapsed = (at - started.pop(stage)).total_seconds() * 1000
                    self.durations_ms[stage] = round(self.durations_ms.get(stage, 0.0) + elapsed, 1)

    def result(self, stage: str) -> dict[str, Any]:
        return self.results.get(stage, {})

    def state(self, stage: str) -> str:
        return self.status.get(stage, "not run")


def ref_key(ref: Any) -> str:
    """Return a hit's key in a comparison: `chunk:<id>` or `web:<url>`."""
    return f"chunk:{ref}" if isinstance(ref, int) else f"web:{ref}"


def ranked_diff(a: list | None, b: list | None) -> dict[str, Any] | None:
    """Compare two ranked lists of hit refs: in both (with ranks), only in one, overlap."""
    if a is None or b is None:
        return None
    rank_a: dict[str, int] = {}
    rank_b: dict[str, int] = {}
    for ranks, refs in ((rank_a, a), (rank_b, b)):
        for position, ref in enumerate(refs, start=1):
            ranks.setdefault(ref_key(ref), position)
    in_both = [
        {"key": key, "rank_a": rank, "rank_b": rank_b[key], "moved": rank - rank_b[key]}
        for key, rank in rank_a.items()
        if key in rank_b
    ]
    union = set(rank_a) | set(rank_b)
    return {
        "in_both": in_both,
        "only_a": [{"key": key, "rank": rank} for key, rank in rank_a.items() if key not in rank_b],
        "only_b": [{"key": key, "rank": rank} for key, rank in rank_b.items() if key not in rank_a],
        "moved": sum(1 for item in in_both if item["moved"]),
        "overlap": round(len(in_both) / len(union), 3) if union else 1.0,
        "same": list(rank_a) == list(rank_b),
    }


def text_diff(a: str, b: str) -> dict[str, Any]:
    """Return a word-level diff of two texts: segments marked equal, delete or insert."""
    words_a, words_b = TOKENS.findall(a or ""), TOKENS.findall(b or "")
    matcher = SequenceMatcher(None, words_a, words_b, autojunk=False)
    segments: list[dict[str, str]] = []

    def add(op: str, words: list[str]) -> None:
        if not words:
            return
        if segments and segments[-1]["op"] == op:
            segments[-1]["text"] += "".join(words)
        else:
            segments.append({"op": op, "text": "".join(words)})

    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            add("equal", words_a[i1:i2])
        else:
            add("delete", words_a[i1:i2])
            add("insert", words_b[j1:j2])
    counted = {"delete": 0, "insert": 0}
    for segment in segments:
        if segment["op"] in counted:
            counted[segment["op"]] += len(segment["text"].split())
    return {
        "same": a == b,
        "similarity": round(matcher.ratio(), 3),
        "words_removed": counted["delete"],
        "words_added": counted["insert"],
        "segments": segments,
    }


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Flatten nested dicts to dotted keys (lists stay whole)."""
    if isinstance(value, dict) and value:
        flat: dict[str, Any] = {}
        for key, inner in value.items():
            flat.update(flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    return {prefix: value}


def config_diff(a: QueryRun, b: QueryRun) -> dict[str, Any]:
    """Return the configuration keys whose values differ, with both values."""
    flat_a = flatten({**(a.config or {}), "knowledge_bases": sorted(a.kb_ids or [])})
    flat_b = flatten({**(b.config or {}), "knowledge_bases": sorted(b.kb_ids or [])})
    if a.filters or b.filters:
        flat_a["filters"], flat_b["filters"] = a.filters or {}, b.filters or {}
    keys = list(dict.fromkeys([*flat_a, *flat_b]))
    changed = [
        {"key": key, "a": flat_a.get(key), "b": flat_b.get(key)}
        for key in keys
        if flat_a.get(key) != flat_b.get(key)
    ]
    return {"changed": changed, "same": len(keys) - len(changed)}


def _pair(log_a: RunLog, log_b: RunLog, stage: str, fields: tuple[str, ...]) -> dict[str, Any]:
    sides = {}
    for side, log in (("a", log_a), ("b", log_b)):
        data = log.result(stage)
        summary = {"status": log.state(stage)}
        summary.update({field: data.get(field) for field in fields})
        if data.get("error"):
            summary["error"] = data["error"]
        sides[side] = summary
    return {"a": sides["a"], "b": sides["b"], "changed": sides["a"] != sides["b"]}


def _retrieval(log_a: RunLog, log_b: RunLog) -> dict[str, Any]:
    names = store_names()
    section = _pair(log_a, log_b, stages.RETRIEVAL, tuple(f"{name}_count" for name in names))
    hits_a = log_a.result(stages.RETRIEVAL).get("hits")
    hits_b = log_b.result(stages.RETRIEVAL).get("hits")
    if hits_a is None or hits_b is None:
        section["stores"] = None
        return section
    # The stores registered now, then any a run was logged with that is gone since.
    logged = [name for name in [*hits_a, *hits_b] if name not in names]
    section["stores"] = {
        store: ranked_diff(hits_a.get(store, []), hits_b.get(store, []))
        for store in dict.fromkeys([*names, *logged])
    }
    if any(not diff["same"] for diff in section["stores"].values()):
        section["changed"] = True
    return section


def _aggregator(log_a: RunLog, log_b: RunLog) -> dict[str, Any]:
    section = _pair(log_a, log_b, stages.AGGREGATOR, ("before", "after", "sources"))
    section["ranked"] = ranked_diff(
        log_a.result(stages.AGGREGATOR).get("ranked"),
        log_b.result(stages.AGGREGATOR).get("ranked"),
    )
    if section["ranked"] and not section["ranked"]["same"]:
        section["changed"] = True
    return section


def _reranker_side(log: RunLog) -> dict[str, Any]:
    data = log.result(stages.RERANKER)
    reranker = data.get("reranker") or {}
    scores = data.get("scores") or []
    summary = {
        "status": log.state(stages.RERANKER),
        "kind": reranker.get("kind"),
        "name": reranker.get("name"),
        "top_k": data.get("top_k"),
        "best_score": max(scores) if scores else None,
        "scores": scores,
    }
    if data.get("error"):
        summary["error"] = data["error"]
    return summary


def _reranker(log_a: RunLog, log_b: RunLog) -> dict[str, Any]:
    side_a, side_b = _reranker_side(log_a), _reranker_side(log_b)
    section: dict[str, Any] = {"a": side_a, "b": side_b, "changed": side_a != side_b}
    data_a, data_b = log_a.result(stages.RERANKER), log_b.result(stages.RERANKER)
    if ("ids" in data_a or not data_a.get("scores")) and (
        "ids" in data_b or not data_b.get("scores")
    ):
        passages: dict[str, dict[str, Any]] = {}
        for side, data in (("a", data_a), ("b", data_b)):
            for rank, (ref, score) in enumerate(
                zip(data.get("ids") or [], data.get("scores") or []), start=1
            ):
                entry = passages.setdefault(
                    ref_key(ref), {"key": ref_key(ref), "a": None, "b": None}
                )
                entry[side] = {"rank": rank, "score": score}
        for entry in passages.values():
            if entry["a"] and entry["b"]:
                entry["score_delta"] = round(entry["b"]["score"] - entry["a"]["score"], 4)
                entry["moved"] = entry["a"]["rank"] - entry["b"]["rank"]
        order = sorted(
            passages.values(),
            key=lambda e: (e["b"] is None, (e["b"] or e["a"])["rank"]),
        )
        section["passages"] = order
    else:
        section["passages"] = None
    return section


def _compressor_side(log: RunLog) -> dict[str, Any]:
    data = log.result(stages.COMPRESSOR)
    original, compressed = data.get("original_chars"), data.get("compressed_chars")
    summary = {
        "status": log.state(stages.COMPRESSOR),
        "original_chars": original,
        "compressed_chars": compressed,
        "ratio": data.get("ratio")
        if data.get("ratio") is not None
        else (round(compressed / original, 2) if original and compressed is not None else None),
        # Above the limit the provider compressed (the spec's payload then carries a ratio).
        "compressed": "ratio" in data,
        "message": data.get("message"),
    }
    if data.get("error"):
        summary["error"] = data["error"]
    return summary


def _compressor(log_a: RunLog, log_b: RunLog) -> dict[str, Any]:
    side_a, side_b = _compressor_side(log_a), _compressor_side(log_b)
    # The message repeats the numbers; a different wording alone is no change.
    differs = {k: v for k, v in side_a.items() if k != "message"} != {
        k: v for k, v in side_b.items() if k != "message"
    }
    return {"a": side_a, "b": side_b, "changed": differs}


def _source_key(source: dict) -> str:
    content = source.get("content") or source.get("content_preview") or ""
    name = source.get("file_name") or source.get("url") or ""
    return hashlib.md5(f"{name}\n{content}".encode()).hexdigest()[:16]


def _citations(a: QueryRun, b: QueryRun) -> dict[str, Any]:
    cited: dict[str, dict[str, Any]] = {}
    for side, run in (("a", a), ("b", b)):
        for source in run.sources or []:
            key = _source_key(source)
            entry = cited.setdefault(
                key,
                {
                    "key": key,
                    "file_name": source.get("file_name") or "",
                    "url": source.get("url") or "",
                    "page": source.get("page"),
                    "source_type": source.get("source_type") or "",
                    "preview": (source.get("content_preview") or "")[:PREVIEW_CHARS],
                    "section": source.get("section") or [],
                    "table": source.get("table"),
                    "a": None,
                    "b": None,
                },
            )
            entry[side] = {"index": source.get("index"), "rerank_score": source.get("rerank_score")}
    entries = list(cited.values())
    return {
        "a_count": len(a.sources or []),
        "b_count": len(b.sources or []),
        "in_both": sum(1 for e in entries if e["a"] and e["b"]),
        "only_a": sum(1 for e in entries if e["a"] and not e["b"]),
        "only_b": sum(1 for e in entries if e["b"] and not e["a"]),
        "sources": entries,
        "changed": any(not (e["a"] and e["b"]) or e["a"] != e["b"] for e in entries),
    }


def _verdict_side(run: QueryRun, log: RunLog) -> dict[str, Any]:
    metadata = run.metadata or {}
    return {
        "status": log.state(stages.REFLECTION),
        "grounded": metadata.get("grounded"),
        # verified, unverified or not_found; runs from before it have none.
        "verdict": metadata.get("verdict"),
        "confidence": metadata.get("confidence"),
        "issues": metadata.get("issues") or [],
        "retry_count": metadata.get("retry_count"),
        "attempts": log.attempts,
        "query_type": metadata.get("query_type"),
    }


def _delta(a: Any, b: Any) -> float | None:
    if isinstance(a, int | float) and isinstance(b, int | float):
        return round(b - a, 2)
    return None


def _timings(a: QueryRun, b: QueryRun, log_a: RunLog, log_b: RunLog) -> dict[str, Any]:
    per_stage = [
        {
            "stage": stage,
            "a": log_a.durations_ms.get(stage),
            "b": log_b.durations_ms.get(stage),
            "delta": _delta(log_a.durations_ms.get(stage), log_b.durations_ms.get(stage)),
        }
        for stage in PIPELINE_STAGES
        if stage in log_a.durations_ms or stage in log_b.durations_ms
    ]
    recorded_a = {"duration_ms": a.duration_ms, **(a.timings or {})}
    recorded_b = {"duration_ms": b.duration_ms, **(b.timings or {})}
    run_rows = [
        {"key": key, "a": recorded_a.get(key), "b": recorded_b.get(key)}
        for key in dict.fromkeys([*recorded_a, *recorded_b])
    ]
    for row in run_rows:
        row["delta"] = _delta(row["a"], row["b"])
    return {"stages": per_stage, "run": run_rows}


def _tokens(a: QueryRun, b: QueryRun) -> dict[str, Any]:
    usage_a, usage_b = a.usage or {}, b.usage or {}

    def side(usage: dict) -> dict[str, int] | None:
        if not usage:
            return None
        return {
            "input": int(usage.get("input_tokens", 0)),
            "output": int(usage.get("output_tokens", 0)),
            "total": int(usage.get("total_tokens", 0)),
        }

    rows = []
    for stage in dict.fromkeys([*usage_a, *usage_b]):
        side_a, side_b = side(usage_a.get(stage, {})), side(usage_b.get(stage, {}))
        rows.append(
            {
                "stage": stage,
                "a": side_a,
                "b": side_b,
                "delta": (side_b or {}).get("total", 0) - (side_a or {}).get("total", 0),
            }
        )
    return {
        "stages": rows,
        "total_a": a.total_tokens,
        "total_b": b.total_tokens,
        "delta": b.total_tokens - a.total_tokens,
    }


def _hit_labels(keys: set[str], user) -> dict[str, dict[str, Any]]:
    """Name each compared hit: file, page and a preview, for chunks of KBs the user reads."""
    labels: dict[str, dict[str, Any]] = {}
    chunk_ids = [int(key.split(":", 1)[1]) for key in keys if key.startswith("chunk:")]
    for chunk_id, ref in chunk_refs_for_user(chunk_ids=chunk_ids, user=user).items():
        labels[f"chunk:{chunk_id}"] = {
            "file_name": ref["file_name"],
            "page": ref["page"],
            "preview": ref["text"][:PREVIEW_CHARS],
        }
    for key in keys:
        if key in labels:
            continue
        if key.startswith("web:"):
            labels[key] = {"file_name": key[4:], "page": None, "preview": "", "web": True}
        else:
            # Deleted since, or in a knowledge base the user no longer reads.
            labels[key] = {"file_name": "", "page": None, "preview": "", "missing": True}
    return labels


def _keys_in(section: Any) -> set[str]:
    """Collect every hit key mentioned in a comparison section."""
    found: set[str] = set()
    if isinstance(section, dict):
        key = section.get("key")
        if isinstance(key, str) and key.startswith(("chunk:", "web:")):
            found.add(key)
        for value in section.values():
            found |= _keys_in(value)
    elif isinstance(section, list):
        for value in section:
            found |= _keys_in(value)
    return found


def _brief(run: QueryRun, log: RunLog) -> dict[str, Any]:
    return {
        "id": str(run.id),
        "query": run.query,
        "status": run.status,
        "provider": run.provider,
        "model": run.model,
        "created_at": run.created_at,
        "duration_ms": run.duration_ms,
        "total_tokens": run.total_tokens,
        "rerun_of": str(run.rerun_of_id) if run.rerun_of_id else None,
        "overrides": run.overrides or {},
        "attempts": log.attempts,
    }


def run_compare(*, a: QueryRun, b: QueryRun, user) -> dict[str, Any]:
    """Return what differs between two runs the user may read, stage by stage."""
    log_a, log_b = RunLog(a), RunLog(b)
    answer = text_diff(a.answer, b.answer)
    answer.update({"a": a.answer, "b": b.answer, "changed": not answer["same"]})
    reflection = {"a": _verdict_side(a, log_a), "b": _verdict_side(b, log_b)}
    reflection["changed"] = reflection["a"] != reflection["b"]
    stage_sections = {
        "planner": _pair(log_a, log_b, stages.PLANNER, ("retrieve", "use_external", "query_type")),
        "retrieval": _retrieval(log_a, log_b),
        "external_tools": _pair(log_a, log_b, stages.EXTERNAL_TOOLS, ("web_count",)),
        "aggregator": _aggregator(log_a, log_b),
        "reranker": _reranker(log_a, log_b),
        "compressor": _compressor(log_a, log_b),
        "reasoning": _pair(log_a, log_b, stages.REASONING, ("confidence", "is_sufficient")),
        "answer": answer,
        "citations": _citations(a, b),
        "reflection": reflection,
    }
    config = config_diff(a, b)
    return {
        "a": _brief(a, log_a),
        "b": _brief(b, log_b),
        "same_run": a.id == b.id,
        "summary": {
            "config_changes": [change["key"] for change in config["changed"]],
            "changed_stages": [name for name, s in stage_sections.items() if s["changed"]],
        },
        "config": config,
        "stages": stage_sections,
        "timings": _timings(a, b, log_a, log_b),
        "tokens": _tokens(a, b),
        "hits": _hit_labels(_keys_in(stage_sections), user),
    }
