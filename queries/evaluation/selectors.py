"""Reads of evaluation sets and evaluations, scoped to who may see them.

A set is read as a knowledge base is: by its owner, the members of its team, and staff; only
its owner and staff delete it. An evaluation is seen by whoever started it and staff, and by
those who may read its set and every knowledge base it searched (its answers quote them). Any
other id answers 404, so another team's set or evaluation looks exactly like a missing one.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404

from adrag_site.errors import ServiceError
from knowledge.models import KnowledgeBase
from knowledge.selectors import kb_list_for_user
from queries.evaluation.metrics import HEADLINE
from queries.evaluation.sets import UNANSWERABLE
from queries.models import Evaluation, EvaluationItem, EvaluationQuestion, EvaluationSet


def _int_id(value, what: str) -> int:
    try:
        number = int(str(value))
    except (TypeError, ValueError):
        raise Http404(f"No such {what}.") from None
    if not 0 < number < 2**63:
        raise Http404(f"No such {what}.")
    return number


def evaluation_set_list_for_user(*, user) -> QuerySet[EvaluationSet]:
    """Return the sets the user may read, newest first."""
    if not user or not user.is_authenticated:
        return EvaluationSet.objects.none()
    sets = EvaluationSet.objects.select_related("owner", "team")
    if user.is_staff:
        return sets.all()
    return sets.filter(Q(owner=user) | Q(team__in=user.groups.all())).distinct()


def evaluation_set_get_for_user(*, set_id, user, manage: bool = False) -> EvaluationSet:
    """Return a set the user may read (Http404 otherwise); with `manage`, one they may delete
    (ServiceError 403 for a set they only read)."""
    evaluation_set = (
        evaluation_set_list_for_user(user=user).filter(id=_int_id(set_id, "evaluation set")).first()
    )
    if evaluation_set is None:
        raise Http404("No such evaluation set.")
    if manage and not (user.is_staff or evaluation_set.owner_id == user.id):
        raise ServiceError(403, "permission_denied", "Only the owner or staff may delete this set.")
    return evaluation_set


def evaluation_set_questions(*, evaluation_set: EvaluationSet) -> QuerySet[EvaluationQuestion]:
    """Return a set's questions in set order."""
    return evaluation_set.questions.order_by("position")


def question_output(question: EvaluationQuestion) -> dict[str, Any]:
    """Return one question of a set as the set's page and API show it."""
    return {
        "position": question.position,
        "id": question.external_id,
        "kind": question.kind,
        "question": question.question,
        "expected": _expected(question.gold),
        "not_in_documents": question.kind == UNANSWERABLE,
        "gold": question.gold,
    }


def evaluation_set_running(*, evaluation_set: EvaluationSet) -> list[int]:
    """Return the ids of the set's evaluations still queued or running."""
    running = evaluation_set.evaluations.filter(status__in=Evaluation.ACTIVE_STATUSES)
    return list(running.order_by("id").values_list("id", flat=True))


def evaluation_list_for_user(*, user) -> QuerySet[Evaluation]:
    """Return the evaluations the user may see, newest first."""
    if not user or not user.is_authenticated:
        return Evaluation.objects.none()
    evaluations = Evaluation.objects.select_related("evaluation_set", "user")
    if user.is_staff:
        return evaluations.all()
    unreadable = KnowledgeBase.objects.exclude(id__in=kb_list_for_user(user=user).values("id"))
    shared = Q(evaluation_set__in=evaluation_set_list_for_user(user=user).values("id")) & ~Q(
        knowledge_bases__in=unreadable
    )
    return evaluations.filter(Q(user=user) | shared).distinct()


def evaluation_get_for_user(*, evaluation_id, user, manage: bool = False) -> Evaluation:
    """Return an evaluation the user may see, or raise Http404; with `manage`, one they may
    cancel (whoever started it, or staff: ServiceError 403 for the others who see it)."""
    evaluation = (
        evaluation_list_for_user(user=user).filter(id=_int_id(evaluation_id, "evaluation")).first()
    )
    if evaluation is None:
        raise Http404("No such evaluation.")
    if manage and not (user.is_staff or evaluation.user_id == user.id):
        raise ServiceError(403, "permission_denied", "Only who started it or staff may cancel it.")
    return evaluation


def evaluation_rows(*, evaluation: Evaluation) -> list[dict[str, Any]]:
    """Return one row per question in set order: the question, its gold, its status, its run
    and what it scored."""
    items = evaluation.items.select_related("question").order_by("position")
    rows = []
    for item in items:
        score = item.score or {}
        rows.append(
            {
                "position": item.position,
                "id": item.question.external_id,
                "kind": item.question.kind,
                "question": item.question.question,
                "expected": _expected(item.question.gold),
                "status": item.status,
                "run_id": str(item.run_id) if item.run_id else None,
                "run_status": score.get("status", ""),
                "verdict": score.get("verdict", ""),
                "correct": score.get("correct"),
                "fact_first": score.get("right"),
                "citation_hit": score.get("cites_right"),
                "honest_not_found": score.get("recognised"),
                "reciprocal_rank": score.get("reciprocal_rank"),
                "seconds": score.get("seconds"),
                "first_sentence": score.get("first_sentence", ""),
            }
        )
    return rows


def _expected(gold: dict) -> str:
    """Return the gold in words, as the table shows it."""
    if gold.get("answers_all"):
        return " and ".join(gold["answers_all"])
    if gold.get("answers"):
        return " or ".join(gold["answers"])
    if gold.get("passage"):
        return f"passage: {gold['passage'][:80]}"
    return "not in the documents"


def _passed(row: dict) -> bool | None:
    """Return whether a question passed: the fact first, or an honest not-found."""
    if row["kind"] == "unanswerable":
        return row["honest_not_found"]
    return row["fact_first"]


def evaluation_compare(*, a: Evaluation, b: Evaluation) -> dict[str, Any]:
    """Compare evaluation `a` against `b`, its baseline: each headline metric's delta (a − b),
    and the questions whose result changed, "better" where `a` passes and `b` did not (matched
    by set position on one set, else by question text)."""
    deltas = []
    for key, label in HEADLINE:
        value_a = ((a.metrics or {}).get("headline") or {}).get(key)
        value_b = ((b.metrics or {}).get("headline") or {}).get(key)
        share_a = value_a["share"] if value_a else None
        share_b = value_b["share"] if value_b else None
        delta = share_a - share_b if share_a is not None and share_b is not None else None
        deltas.append({"key": key, "label": label, "a": share_a, "b": share_b, "delta": delta})
    same_set = a.evaluation_set_id == b.evaluation_set_id
    rows_b = {
        (row["position"] if same_set else row["question"]): row
        for row in evaluation_rows(evaluation=b)
    }
    changed = []
    for row_a in evaluation_rows(evaluation=a):
        row_b = rows_b.get(row_a["position"] if same_set else row_a["question"])
        if row_b is None or row_a["status"] != "done" or row_b["status"] != "done":
            continue
        passed_a, passed_b = _passed(row_a), _passed(row_b)
        if passed_a == passed_b and row_a["verdict"] == row_b["verdict"]:
            continue
        change = "same" if passed_a == passed_b else ("better" if passed_a else "worse")
        sides = [{**row_a, "passed": passed_a}, {**row_b, "passed": passed_b}]
        changed.append(
            {
                "question": row_a["question"],
                "change": change,
                "a": row_a,
                "b": row_b,
                "sides": sides,
            }
        )
    order = {"worse": 0, "better": 1, "same": 2}
    changed.sort(key=lambda entry: order[entry["change"]])
    return {"metrics": deltas, "changed": changed, "same_set": same_set}


def evaluation_progress(*, evaluation: Evaluation) -> dict[str, int]:
    """Return how many questions are done, in flight, waiting and cancelled."""
    counts = dict.fromkeys(EvaluationItem.Status.values, 0)
    for status in evaluation.items.values_list("status", flat=True):
        counts[status] += 1
    return counts
