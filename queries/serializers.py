"""The runs and conversations API's serializers: the input of its views, and the shapes of the
bodies they answer with (some built as dicts, described here for the schema and the fuzzer).

The streaming endpoints' inputs (POST /api/query, POST /api/runs/<id>/rerun) are in
`queries/inputs.py`, shared by those views, the re-run service and the OpenAPI schema.
"""

from __future__ import annotations

import json

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from queries import selectors, services
from queries.models import Conversation, QueryRun, RunFeedback


class RatingCountsOutput(serializers.Serializer):
    up = serializers.IntegerField()
    down = serializers.IntegerField()


class RunSummaryOutput(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username")
    duration_ms = serializers.FloatField(allow_null=True)
    total_tokens = serializers.IntegerField()
    ratings = serializers.SerializerMethodField()

    class Meta:
        model = QueryRun
        fields = [
            "id",
            "user",
            "query",
            "provider",
            "model",
            "status",
            "created_at",
            "started_at",
            "finished_at",
            "duration_ms",
            "total_tokens",
            "kb_ids",
            "error_code",
            "last_seq",
            "rerun_of",
            "ratings",
            "conversation",
            "standalone_query",
        ]

    @extend_schema_field(RatingCountsOutput)
    def get_ratings(self, run: QueryRun) -> dict:
        """Count the run's ratings (annotated by `run_search`, else counted here)."""
        if hasattr(run, "feedback_up"):
            return {"up": run.feedback_up, "down": run.feedback_down}
        ratings = list(run.feedback.values_list("rating", flat=True))
        return {"up": ratings.count("up"), "down": ratings.count("down")}


class RunEventOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    time = serializers.DateTimeField()
    frame = serializers.JSONField(help_text="The frame exactly as streamed.")


class RunFiltersOutput(serializers.Serializer):
    """The metadata filters a run was narrowed to (only the keys that were set)."""

    documents = serializers.ListField(child=serializers.IntegerField(), required=False)
    file_types = serializers.ListField(child=serializers.CharField(), required=False)
    uploaded_after = serializers.CharField(required=False)
    uploaded_before = serializers.CharField(required=False)


class FeedbackOutput(serializers.Serializer):
    rating = serializers.ChoiceField(choices=RunFeedback.Rating.choices)
    comment = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class FeedbackSummaryOutput(serializers.Serializer):
    mine = FeedbackOutput(allow_null=True, help_text="The caller's own rating, if any.")
    up = serializers.IntegerField(help_text="Ratings up, by anyone.")
    down = serializers.IntegerField(help_text="Ratings down, by anyone.")


class RerunBriefOutput(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=QueryRun.Status.choices)
    created_at = serializers.DateTimeField()
    overrides = serializers.JSONField()


class RunDetailOutput(RunSummaryOutput):
    events = serializers.SerializerMethodField()
    filters = RunFiltersOutput(read_only=True)
    feedback = serializers.SerializerMethodField()
    reruns = serializers.SerializerMethodField()

    class Meta(RunSummaryOutput.Meta):
        fields = RunSummaryOutput.Meta.fields + [
            "answer",
            "sources",
            "metadata",
            "usage",
            "timings",
            "config",
            "error_message",
            "cancel_requested",
            "filters",
            "events",
            "overrides",
            "reruns",
            "feedback",
        ]

    @extend_schema_field(FeedbackSummaryOutput)
    def get_feedback(self, run: QueryRun) -> dict:
        request = self.context.get("request")
        return selectors.feedback_summary(run=run, user=request.user if request else None)

    @extend_schema_field(RerunBriefOutput(many=True))
    def get_reruns(self, run: QueryRun) -> list[dict]:
        request = self.context.get("request")
        reruns = selectors.run_list_for_user(user=request.user if request else None)
        return list(
            reruns.filter(rerun_of=run)
            .order_by("created_at")
            .values("id", "status", "created_at", "overrides")
        )

    @extend_schema_field(RunEventOutput(many=True))
    def get_events(self, run: QueryRun) -> list[dict]:
        return [
            {
                "seq": event.seq,
                "type": event.type,
                "time": event.created_at,
                "frame": json.loads(event.payload),
            }
            for event in run.events.order_by("seq")
        ]


class RunPageOutput(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = RunSummaryOutput(many=True)


class RunCancelOutput(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=QueryRun.Status.choices)
    cancel_requested = serializers.BooleanField()


class RunBriefOutput(serializers.Serializer):
    id = serializers.UUIDField()
    query = serializers.CharField()
    status = serializers.ChoiceField(choices=QueryRun.Status.choices)
    provider = serializers.CharField()
    model = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    duration_ms = serializers.FloatField(allow_null=True)
    total_tokens = serializers.IntegerField()
    rerun_of = serializers.UUIDField(allow_null=True)
    overrides = serializers.JSONField()
    attempts = serializers.IntegerField(help_text="Passes through retrieval..reflection.")


class CompareSummaryOutput(serializers.Serializer):
    config_changes = serializers.ListField(child=serializers.CharField())
    changed_stages = serializers.ListField(child=serializers.CharField())


class ConfigChangeOutput(serializers.Serializer):
    key = serializers.CharField(
        help_text="A dotted configuration key, e.g. `fusion.weights.graph`."
    )
    a = serializers.JSONField(allow_null=True)
    b = serializers.JSONField(allow_null=True)


class ConfigDiffOutput(serializers.Serializer):
    changed = ConfigChangeOutput(many=True)
    same = serializers.IntegerField(help_text="How many keys are equal.")


def _section(help_text: str) -> serializers.JSONField:
    return serializers.JSONField(help_text=help_text)


class CompareStagesOutput(serializers.Serializer):
    planner = _section("`a`, `b` (status, retrieve, use_external, query_type), `changed`.")
    retrieval = _section(
        "`a`, `b` (status and counts per store); `stores`: per store `in_both` (with "
        "`rank_a`, `rank_b`, `moved`), `only_a`, `only_b`, `overlap`, `same` (null for runs "
        "logged without hit ids); `changed`."
    )
    external_tools = _section("`a`, `b` (status, web_count), `changed`.")
    aggregator = _section(
        "`a`, `b` (status, before, after, sources); `ranked`: the fused order "
        "compared like a store; `changed`."
    )
    reranker = _section(
        "`a`, `b` (status, kind, name, top_k, best_score, scores); `passages`: each kept "
        "passage with its rank and score in a and b, `score_delta`, `moved`; `changed`."
    )
    compressor = _section(
        "`a`, `b` (status, original_chars, compressed_chars, ratio, compressed), `changed`."
    )
    reasoning = _section("`a`, `b` (status, confidence, is_sufficient), `changed`.")
    answer = _section(
        "`a`, `b` (the answers), `same`, `similarity`, `words_added`, `words_removed`, "
        "`segments` (a word diff: `op` equal/delete/insert and `text`), `changed`."
    )
    citations = _section(
        "Counts (`a_count`, `b_count`, `in_both`, `only_a`, `only_b`) and `sources`, each with "
        "its index and rerank score in a and b; `changed`."
    )
    reflection = _section(
        "`a`, `b` (grounded, verdict, confidence, issues, retry_count, attempts, query_type), "
        "`changed`."
    )


class RunCompareOutput(serializers.Serializer):
    a = RunBriefOutput()
    b = RunBriefOutput()
    same_run = serializers.BooleanField()
    summary = CompareSummaryOutput()
    config = ConfigDiffOutput()
    stages = CompareStagesOutput()
    timings = serializers.JSONField(
        help_text="`stages`: per stage the milliseconds in a and b (summed over attempts) and "
        "the delta; `run`: the recorded run timings likewise."
    )
    tokens = serializers.JSONField(
        help_text="`stages`: per stage input/output/total tokens in a and b and the delta; "
        "`total_a`, `total_b`, `delta`."
    )
    hits = serializers.DictField(
        child=serializers.JSONField(),
        help_text="Each compared hit key (`chunk:<id>`, `web:<url>`): file_name, page, preview.",
    )


class FeedbackInput(serializers.Serializer):
    rating = serializers.ChoiceField(choices=RunFeedback.Rating.choices)
    comment = serializers.CharField(
        required=False, allow_blank=True, max_length=services.FEEDBACK_COMMENT_MAX_CHARS
    )


class SourceRefOutput(serializers.Serializer):
    index = serializers.IntegerField()
    file_name = serializers.CharField()


class ConversationRunOutput(serializers.ModelSerializer):
    """One turn of a conversation: the question as asked and as it stood alone, the answer."""

    sources = serializers.SerializerMethodField(help_text="The answer's sources, by file.")

    class Meta:
        model = QueryRun
        fields = [
            "id",
            "query",
            "standalone_query",
            "status",
            "answer",
            "error_code",
            "created_at",
            "sources",
        ]

    @extend_schema_field(SourceRefOutput(many=True))
    def get_sources(self, run: QueryRun) -> list[dict]:
        return [
            {
                "index": int(source.get("index") or 0),
                "file_name": str(source.get("file_name") or ""),
            }
            for source in (run.sources or [])
            if isinstance(source, dict)
        ]


SHARED_WITH_HELP = "The team whose members may open it read-only (its share link), or null."


class ConversationSummaryOutput(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username")
    run_count = serializers.IntegerField()
    shared_with = serializers.CharField(
        source="shared_with.name", allow_null=True, help_text=SHARED_WITH_HELP
    )

    class Meta:
        model = Conversation
        fields = ["id", "title", "user", "created_at", "updated_at", "run_count", "shared_with"]


class ConversationDetailOutput(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username")
    runs = serializers.SerializerMethodField()
    shared_with = serializers.CharField(
        source="shared_with.name", allow_null=True, help_text=SHARED_WITH_HELP
    )

    class Meta:
        model = Conversation
        fields = ["id", "title", "user", "created_at", "updated_at", "runs", "shared_with"]

    @extend_schema_field(ConversationRunOutput(many=True))
    def get_runs(self, conversation: Conversation) -> list[dict]:
        runs = selectors.conversation_runs(conversation=conversation)
        return ConversationRunOutput(runs, many=True).data


class ConversationPageOutput(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = ConversationSummaryOutput(many=True)


class ConversationShareInput(serializers.Serializer):
    team = serializers.CharField(
        allow_null=True,
        allow_blank=True,
        help_text="A team you are in, by name or id; null or empty to stop sharing.",
    )


class ConversationShareOutput(serializers.Serializer):
    shared_with = serializers.CharField(allow_null=True, help_text=SHARED_WITH_HELP)
    url = serializers.CharField(help_text="The read-only page a member opens; empty if unshared.")
