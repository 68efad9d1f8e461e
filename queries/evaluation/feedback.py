"""An evaluation set built from the answers a user rated good: each becomes a question whose
expected answer is what the good answer said first, cited from the files it cited."""

from __future__ import annotations

from adrag_site.errors import ServiceError
from queries.evaluation.scoring import CITATION, NOT_FOUND_PREFIX, answer_body, cited_files
from queries.evaluation.scoring import first_sentence as answer_first_sentence
from queries.evaluation.services import evaluation_set_create
from queries.evaluation.sets import ParsedQuestion, question_parse
from queries.models import EvaluationSet, RunFeedback
from queries.selectors import feedback_export_rows


def feedback_questions(*, user) -> list[ParsedQuestion]:
    """Return one question per distinct question the user rated good (the newest rating)."""
    questions: list[ParsedQuestion] = []
    seen: set[str] = set()
    for row in feedback_export_rows(user=user, rating=RunFeedback.Rating.UP):
        question = (row["standalone_query"] or row["question"]).strip()
        if not question or question.lower() in seen:
            continue
        seen.add(question.lower())
        if answer_body(row["answer"]).lower().startswith(NOT_FOUND_PREFIX):
            record = {"question": question, "not_in_documents": True}
        else:
            sentence = answer_first_sentence(row["answer"])
            expected = CITATION.sub("", sentence).strip().rstrip(".").strip()
            if not expected:
                continue
            files = sorted(
                name
                for name in cited_files(sentence, row["sources"] or [])
                if "(missing)" not in name
            )
            record = {"question": question, "answers": [expected], "sources": files}
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
