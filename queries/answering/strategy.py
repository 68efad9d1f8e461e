"""What the pipeline asks of an answering strategy, whatever model (if any) stands behind it.

A strategy decides how a question is answered: whether rules or a model plan it, how the
context is cut, who writes the answer and who judges it. It holds the backend it asks
(`providers/llm/`), which only streams chat replies. The nodes call these methods and nothing
else, and get typed values back (`types.py`). Every method raises ProviderError on failure
and RunCancelled when the run is cancelled.
"""

from __future__ import annotations

from typing import ClassVar

from providers.llm.base import CallContext
from providers.llm.chat import ChatBackend
from queries.answering.frame import QuestionFrame
from queries.answering.types import AGAIN, Answer, Critique, Plan, RetryMode, SourceBlock


class Strategy:
    """The tasks of one answering strategy over one backend."""

    kind: ClassVar[str] = ""
    # How an answer the check did not verify is tried again (types.RetryMode).
    retry: ClassVar[RetryMode] = AGAIN

    def __init__(self, name: str, backend: ChatBackend) -> None:
        self.name = name
        self.backend = backend

    @property
    def label(self) -> str:
        return self.backend.label or self.name

    def condense(self, query: str, history: list[dict[str, str]], ctx: CallContext) -> str:
        """Return a follow-up rewritten to stand alone, given the earlier turns (oldest first).

        Each turn is {"query", "standalone_query", "answer"}; with no history, the question.
        """
        raise NotImplementedError

    def plan(self, frame: QuestionFrame, ctx: CallContext) -> Plan:
        """Decide whether to retrieve, whether to search the web, and the kind of question."""
        raise NotImplementedError

    def context_budget(self, context: str, ctx: CallContext) -> int | None:
        """Return how many characters of this context the answer reads well (None: the run's
        own limit)."""
        return None

    def compress(self, frame: QuestionFrame, context: str, ctx: CallContext) -> str:
        """Return a shorter context that keeps the [n] block labels."""
        raise NotImplementedError

    def answer(
        self,
        frame: QuestionFrame,
        context: str,
        blocks: list[SourceBlock],
        ctx: CallContext,
        feedback: str = "",
    ) -> Answer:
        """Answer from the numbered blocks with [n] citations; `feedback` is a retry's critique."""
        raise NotImplementedError

    def answer_plain(
        self,
        frame: QuestionFrame,
        context: str,
        blocks: list[SourceBlock],
        ctx: CallContext,
        feedback: str = "",
    ) -> Answer:
        """Answer as plain text: the spec's fallback when the structured answer failed."""
        return self.answer(frame, context, blocks, ctx, feedback)

    def answer_direct(self, frame: QuestionFrame, ctx: CallContext) -> Answer:
        """Answer without any retrieved context (the planner's direct-answer branch); an
        answer that declines says so (`is_sufficient` False) and is never verified."""
        raise NotImplementedError

    def critique(
        self,
        frame: QuestionFrame,
        context: str,
        answer: str,
        blocks: list[SourceBlock],
        ctx: CallContext,
    ) -> Critique:
        """Judge the answer against the blocks (the deterministic check judges it as well)."""
        raise NotImplementedError

    def rewrite_query(self, frame: QuestionFrame, feedback: str, ctx: CallContext) -> str:
        """Return a retrieval query for a retry that takes the critique into account."""
        return frame.text

    # Whether a model writes the table store's query (knowledge/tables/model_sql.py); without
    # one, the offline parser's program answers.
    writes_table_queries: ClassVar[bool] = False

    def write_table_query(
        self, question: str, schema: str, ctx: CallContext, *, problem: str = ""
    ) -> str:
        """Return the model's reply to a question over the tables of `schema`: one SQL SELECT,
        or NONE; `problem` is a query written before that did not answer, and why."""
        raise NotImplementedError

    # Reported by GET /api/providers and used to fill a run's model.
    def available(self) -> bool:
        return self.backend.available()

    def models(self) -> list[str]:
        return self.backend.models()

    def default_model(self) -> str:
        return self.backend.default_model()
