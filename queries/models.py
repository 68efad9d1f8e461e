"""Query runs and their event log: the single source of truth of what a run did and sent."""

from __future__ import annotations

import json
import uuid

from django.conf import settings
from django.db import models


class Conversation(models.Model):
    """A thread of runs: each follow-up is read with the turns before it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations"
    )
    title = models.CharField(max_length=200, blank=True, default="")
    # The team whose members may open the conversation read-only (its share link); None: only
    # its owner (and staff).
    shared_with = models.ForeignKey(
        "auth.Group",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="shared_conversations",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["user", "-updated_at"])]

    def __str__(self) -> str:
        return self.title or str(self.id)


class QueryRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        CANCELLED = "cancelled"
        INTERRUPTED = "interrupted"

    ACTIVE_STATUSES = (Status.QUEUED, Status.RUNNING)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="runs"
    )
    query = models.TextField()
    provider = models.CharField(max_length=32)
    model = models.CharField(max_length=200, blank=True, default="")
    knowledge_bases = models.ManyToManyField(
        "knowledge.KnowledgeBase", blank=True, related_name="runs"
    )
    kb_ids = models.JSONField(default=list, help_text="The KB ids searched, as at the start.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    cancel_requested = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    answer = models.TextField(blank=True, default="")
    sources = models.JSONField(default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    config = models.JSONField(default=dict, blank=True)
    usage = models.JSONField(default=dict, blank=True)
    timings = models.JSONField(default=dict, blank=True)
    error_code = models.CharField(max_length=40, blank=True, default="")
    error_message = models.TextField(blank=True, default="")
    job_id = models.BigIntegerField(null=True, blank=True)
    last_seq = models.PositiveIntegerField(default=0)
    request_id = models.CharField(max_length=128, blank=True, default="")
    conversation = models.ForeignKey(
        Conversation, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    standalone_query = models.TextField(
        blank=True, default="", help_text="The question rewritten to stand alone, for a follow-up."
    )
    rerun_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="reruns"
    )
    overrides = models.JSONField(
        default=dict, blank=True, help_text="The settings a re-run changed from its original."
    )
    filters = models.JSONField(
        default=dict, blank=True, help_text="Metadata filters applied inside retrieval."
    )
    # A run an evaluation queued (one of its questions, or a follow-up's earlier turn): the
    # user's run limits leave it out, its job waits behind people's questions.
    evaluation = models.ForeignKey(
        "queries.Evaluation", null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["user", "-created_at"]),
            models.Index(fields=["status"]),
        ]

    def __str__(self) -> str:
        return f"{self.query[:60]} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE_STATUSES

    @property
    def duration_ms(self) -> float | None:
        if self.started_at and self.finished_at:
            return round((self.finished_at - self.started_at).total_seconds() * 1000, 1)
        return None

    @property
    def total_tokens(self) -> int:
        return sum(int(stage.get("total_tokens", 0)) for stage in (self.usage or {}).values())


class RunEvent(models.Model):
    """One frame of a run, numbered 1, 2, 3, ... per run; never trimmed."""

    run = models.ForeignKey(QueryRun, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    # The frame's JSON exactly as sent: JSONB would reorder keys, and a replay must be
    # byte-identical to the live stream.
    payload = models.TextField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["run", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="run_event_unique_seq")]

    def __str__(self) -> str:
        return f"{self.run_id}#{self.seq} {self.type}"

    @property
    def data(self) -> dict | None:
        return json.loads(self.payload).get("data")


class RunFeedback(models.Model):
    """A user's rating of a run's answer: one per user per run, editable."""

    class Rating(models.TextChoices):
        UP = "up"
        DOWN = "down"

    run = models.ForeignKey(QueryRun, on_delete=models.CASCADE, related_name="feedback")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="run_feedback"
    )
    rating = models.CharField(max_length=4, choices=Rating.choices)
    comment = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(fields=["run", "user"], name="run_feedback_one_per_user")
        ]
        indexes = [models.Index(fields=["rating", "-updated_at"])]

    def __str__(self) -> str:
        return f"{self.run_id} {self.rating} by {self.user_id}"


class EvaluationSet(models.Model):
    """Questions with their expected answers, kept per team like a knowledge base."""

    class Source(models.TextChoices):
        UPLOAD = "upload"
        FEEDBACK = "feedback"
        CONVERSATION = "conversation"

    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="evaluation_sets"
    )
    team = models.ForeignKey(
        "auth.Group",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="evaluation_sets",
    )
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.UPLOAD)
    file_name = models.CharField(max_length=255, blank=True, default="")
    question_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class EvaluationQuestion(models.Model):
    """One item of a set: the question and its gold (queries/evaluation/sets.py reads them)."""

    evaluation_set = models.ForeignKey(
        EvaluationSet, on_delete=models.CASCADE, related_name="questions"
    )
    position = models.PositiveIntegerField()
    external_id = models.CharField(max_length=200, blank=True, default="")
    kind = models.CharField(max_length=40, blank=True, default="")
    question = models.TextField()
    # The scorer's item (queries/evaluation/scoring.score): answers, answers_all, sources,
    # passage, turns, standalone_contains; kind "unanswerable" for "not in the documents".
    gold = models.JSONField(default=dict)

    class Meta:
        ordering = ["evaluation_set", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation_set", "position"], name="evaluation_question_unique_position"
            )
        ]

    def __str__(self) -> str:
        return self.question[:60]


class Evaluation(models.Model):
    """A set run against knowledge bases with a provider and settings: a batch of runs."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        CANCELLED = "cancelled"

    ACTIVE_STATUSES = (Status.QUEUED, Status.RUNNING)

    evaluation_set = models.ForeignKey(
        EvaluationSet, on_delete=models.CASCADE, related_name="evaluations"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="evaluations"
    )
    label = models.CharField(max_length=200, blank=True, default="")
    knowledge_bases = models.ManyToManyField(
        "knowledge.KnowledgeBase", blank=True, related_name="evaluations"
    )
    kb_ids = models.JSONField(default=list)
    provider = models.CharField(max_length=32)
    model = models.CharField(max_length=200, blank=True, default="")
    # The settings changed from the defaults, as a re-run takes them (queries/inputs.RerunInput).
    overrides = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    question_count = models.PositiveIntegerField(default=0)
    done_count = models.PositiveIntegerField(default=0)
    metrics = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"{self.evaluation_set} #{self.pk} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE_STATUSES


class EvaluationItem(models.Model):
    """One question of an evaluation: the run in flight (a follow-up's turns first), the
    question's own run once asked, and its score."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        CANCELLED = "cancelled"

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="items")
    question = models.ForeignKey(
        EvaluationQuestion, on_delete=models.CASCADE, related_name="evaluation_items"
    )
    position = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    current_run = models.ForeignKey(
        QueryRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    run = models.ForeignKey(
        QueryRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="evaluation_items"
    )
    conversation = models.ForeignKey(
        Conversation, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    turns_done = models.PositiveSmallIntegerField(default=0)
    score = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["evaluation", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "position"], name="evaluation_item_unique_position"
            )
        ]
        indexes = [models.Index(fields=["evaluation", "status"])]

    def __str__(self) -> str:
        return f"{self.evaluation_id}#{self.position} {self.status}"
