"""Evaluation sets built from answers already given: each answer a user rated good, and each
finished turn of a conversation, becomes a question whose expected answer is what that answer
said first, cited from the files it cited."""

from __future__ import annotations

from typing import Any

from adrag_site.errors import ServiceError
from queries.evaluation.scoring import CITATION, NOT_FOUND_PREFIX, answer_body, cited_files
from queries.evaluation.scoring import first_sentence as answer_first_sentence
from queries.evaluation.services import evaluation_set_create
from queries.evaluation.sets import ParsedQuestion, question_parse
from queries.models import EvaluationSet, RunFeedback
from queries.selectors import feedback_export_rows


def _value_text(value: Any) -> str:
    """Return an asserted value as an answer writes it (64, not 64.0)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _values_gold(answer: str, values: list | None) -> dict[str, list[str]]:
    """Return the gold of the values an answer asserts as data (the `done` metadata's
    `answer_values`): any one of one value, every one of several; none unless the answer
    writes each as it is (an ISO date the answer words otherwise would never match)."""
    texts = [_value_text(value) for value in values or [] if _value_text(value)]
    if not texts or not all(text.lower() in answer.lower() for text in texts):
        return {}
    return {"answers": texts} if len(texts) == 1 else {"answers_all": texts}


def answer_record(
    *, question: str, answer: str, sources: list[dict], values: list | None = None
) -> dict[str, Any] | None:
    """Return the set's item an answer makes: a "could not find" answer a `not_in_documents`
    item; any other its asserted values (else its first sentence without the [n] markers) as
    the expected answer, with the files that sentence cited. None for an empty answer."""
    if answer_body(answer).lower().startswith(NOT_FOUND_PREFIX):
        return {"question": question, "not_in_documents": True}
    sentence = answer_first_sentence(answer)
    gold = _values_gold(answer, values)
    if not gold:
        expected = CITATION.sub("", sentence).strip().rstrip(".").strip()
        if not expected:
            return None
        gold = {"answers": [expected]}
    files = sorted(name for name in cited_files(sentence, sources or []) if "(missing)" not in name)
    return {"question": question, **gold, "sources": files}


def feedback_questions(*, user) -> list[ParsedQuestion]:
    """Return one question per distinct question the user rated good (the newest rating)."""
    questions: list[ParsedQuestion] = []
    seen: set[str] = set()
    for row in feedback_export_rows(user=user, rating=RunFeedback.Rating.UP):
        question = (row["standalone_query"] or row["question"]).strip()
        if not question or question.lower() in seen:
            continue
        seen.add(question.lower())
        record = answer_record(question=question, answer=row["answer"], sources=row["sources"])
        if record is not None:
            questions.append(question_parse(record, position=len(questions) + 1))
    return questions


def evaluation_set_from_feedback(*, user, name: str, team=None) -> EvaluationSet:
    """Record a set of the answers the user rated good; 400 when they rated none good."""
    questions = feedback_questions(user=user)
    if not questions:
        raise ServiceError(
            400, "no_rated_answers", "You have rated no answer good yet: rate some in History."
        )
    return evaluation_set_create(
        user=user, name=name, questions=questions, team=team, source=EvaluationSet.Source.FEEDBACK
    )
