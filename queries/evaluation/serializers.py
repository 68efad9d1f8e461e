"""The evaluations API's inputs and the shapes of its answers (built as dicts, described here
for the OpenAPI schema and the fuzzer)."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from queries.evaluation.selectors import evaluation_progress
from queries.inputs import (
    KnowledgeBaseIdsField,
    ModelField,
    ProviderField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
)
from queries.models import Evaluation, EvaluationSet


class EvaluationSetUploadInput(serializers.Serializer):
    file = serializers.FileField(
        help_text="A CSV (header row with a question column), JSON Lines or JSON file."
    )
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    team = serializers.CharField(
        required=False,
        allow_null=True,
        default=None,
        help_text="A team's name or id to share with.",
    )


class EvaluationSetBuildInput(serializers.Serializer):
    name = StrictCharField(
        max_length=200,
        required=False,
        allow_blank=True,
        default="",
        help_text="Required with from_feedback; a conversation's set is named after it by default.",
    )
    from_feedback = StrictBooleanField(
        required=False,
        default=False,
        help_text="true: build the set from the answers you rated good (their question, the "
        "first sentence as the expected answer, the files it cited).",
    )
    conversation = serializers.UUIDField(
        required=False,
        allow_null=True,
        default=None,
        help_text="A conversation you may read: each question that finished (its standalone "
        "form), its answer as the expected answer (its answer_values where the run has them), "
        "the files it cited. Not with from_feedback.",
    )
    team = StrictCharField(required=False, allow_null=True, default=None)


class EvaluationSetOutput(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    team = serializers.CharField(source="team.name", allow_null=True, default=None)

    class Meta:
        model = EvaluationSet
        fields = [
            "id", "name", "description", "owner", "team", "source", "file_name",
            "question_count", "created_at",
        ]  # fmt: skip


class EvaluationQuestionOutput(serializers.Serializer):
    position = serializers.IntegerField()
    id = serializers.CharField(help_text="The set's own id of the item, if it gave one.")
    kind = serializers.CharField()
    question = serializers.CharField()
    expected = serializers.CharField(help_text="The gold in words, as the pages show it.")
    not_in_documents = serializers.BooleanField()
    gold = serializers.JSONField(
        help_text="answers, answers_all, sources, passage, turns, standalone_contains."
    )


class EvaluationSetDetailOutput(EvaluationSetOutput):
    questions = serializers.SerializerMethodField()
    evaluation_count = serializers.SerializerMethodField()

    class Meta(EvaluationSetOutput.Meta):
        fields = [*EvaluationSetOutput.Meta.fields, "evaluation_count", "questions"]

    @extend_schema_field(EvaluationQuestionOutput(many=True))
    def get_questions(self, evaluation_set) -> list:
        return self.context["questions"]

    def get_evaluation_count(self, evaluation_set) -> int:
        return evaluation_set.evaluations.count()


class EvaluationSetListOutput(serializers.Serializer):
    evaluation_sets = EvaluationSetOutput(many=True)
    count = serializers.IntegerField()


class EvaluationInput(serializers.Serializer):
    evaluation_set = StrictIntegerField(min_value=1, help_text="The set's id.")
    knowledge_bases = KnowledgeBaseIdsField(help_text="The knowledge bases to search.")
    provider = ProviderField(required=False)
    model = ModelField(help_text="null: the provider's default model.")
    settings = serializers.DictField(
        required=False,
        allow_empty=True,
        help_text="The settings to change, as POST /api/runs/{run_id}/rerun takes them "
        "(retrieval_top_k, rerank_top_k, max_context_chars, max_reflection_retries, "
        "fusion_weights, reranker).",
    )
    label = StrictCharField(max_length=200, required=False, allow_blank=True, default="")


class EvaluationSetBriefOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class HeadlineValueOutput(serializers.Serializer):
    share = serializers.FloatField()
    n = serializers.IntegerField()
    hits = serializers.IntegerField(required=False)


class EvaluationOutput(serializers.ModelSerializer):
    evaluation_set = serializers.SerializerMethodField()
    user = serializers.CharField(source="user.username")
    progress = serializers.SerializerMethodField()
    headline = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = Evaluation
        fields = [
            "id", "evaluation_set", "user", "label", "status", "provider", "model", "kb_ids",
            "overrides", "question_count", "done_count", "progress", "headline",
            "created_at", "started_at", "finished_at", "url",
        ]  # fmt: skip

    @extend_schema_field(EvaluationSetBriefOutput)
    def get_evaluation_set(self, evaluation) -> dict:
        return {"id": evaluation.evaluation_set_id, "name": evaluation.evaluation_set.name}

    @extend_schema_field(serializers.DictField(child=serializers.IntegerField()))
    def get_progress(self, evaluation) -> dict[str, int]:
        return evaluation_progress(evaluation=evaluation)

    @extend_schema_field(serializers.DictField(child=HeadlineValueOutput(allow_null=True)))
    def get_headline(self, evaluation) -> dict:
        return (evaluation.metrics or {}).get("headline") or {}

    def get_url(self, evaluation) -> str:
        return reverse("evaluation-page", args=[evaluation.id])


class EvaluationListOutput(serializers.Serializer):
    evaluations = EvaluationOutput(many=True)
    count = serializers.IntegerField()


class EvaluationRowOutput(serializers.Serializer):
    position = serializers.IntegerField()
    id = serializers.CharField()
    kind = serializers.CharField()
    question = serializers.CharField()
    expected = serializers.CharField()
    status = serializers.CharField()
    run_id = serializers.UUIDField(allow_null=True)
    run_status = serializers.CharField()
    verdict = serializers.CharField()
    correct = serializers.BooleanField(allow_null=True)
    fact_first = serializers.BooleanField(allow_null=True)
    citation_hit = serializers.BooleanField(allow_null=True)
    honest_not_found = serializers.BooleanField(allow_null=True)
    reciprocal_rank = serializers.FloatField(allow_null=True)
    seconds = serializers.FloatField(allow_null=True)
    first_sentence = serializers.CharField()


class EvaluationDetailOutput(EvaluationOutput):
    metrics = serializers.JSONField(
        help_text="headline, false_badges, verdicts, kinds, latency_ms, tokens."
    )
    rows = serializers.SerializerMethodField()

    class Meta(EvaluationOutput.Meta):
        fields = [*EvaluationOutput.Meta.fields, "metrics", "rows"]

    @extend_schema_field(EvaluationRowOutput(many=True))
    def get_rows(self, evaluation) -> list:
        return self.context["rows"]


class EvaluationCancelOutput(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
