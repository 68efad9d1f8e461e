"""The extractive strategy: rule-based plans, quoted answers, mechanical grounding."""

from __future__ import annotations

import json

import pytest

from providers.llm.base import CallContext, RunCancelled
from providers.llm.chat import OfflineBackend
from queries.answering.extractive import NOT_FOUND, ExtractiveStrategy
from queries.answering.extractive.arithmetic import ArithmeticRejected, evaluate_arithmetic
from queries.answering.extractive.feedback import UNSUPPORTED_MARKER
from queries.answering.frame import frame_question
from queries.answering.sentences import split_sentences
from queries.answering.types import SourceBlock

CAVEAT = "Note: some claims in this answer may not be fully supported by the retrieved sources."
LEAVE = "Employees receive 25 days of paid annual leave per calendar year."
CARRY_OVER = "Unused leave can be carried over until March 31 of the following year."
PASSWORDS = "Passwords must be at least 14 characters long, e.g. a passphrase."
APPROVAL = "Dr. Miller approved the policy on 3.5.2023 after the audit."

SOURCES = [
    SourceBlock(
        index=1,
        file_name="travel.txt",
        text="Travel expenses are reimbursed within 30 days. Economy class is required for "
        "flights under 6 hours. Hotel costs are capped at 180 EUR per night.",
    ),
    SourceBlock(
        index=2,
        file_name="handbook.pdf",
        text=f"{LEAVE} {CARRY_OVER} The office is closed between Christmas and New Year.",
    ),
    SourceBlock(
        index=3,
        file_name="security.md",
        text=f"All laptops must use full-disk encryption. {PASSWORDS} {APPROVAL}",
    ),
]


def build_context(sources: list[SourceBlock]) -> str:
    """Number the blocks the way the compress node does."""
    return "\n\n".join(f"[{s.index}] {s.file_name}\n{s.text}" for s in sources)


@pytest.fixture
def provider() -> ExtractiveStrategy:
    return ExtractiveStrategy("extractive", OfflineBackend())


@pytest.fixture
def ctx() -> CallContext:
    return CallContext()


# --- Planner -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query", ["hi", "Hello there!", "hi, how are you?", "Thanks so much!", "good morning team"]
)
def test_planner_answers_greetings_directly(provider, ctx, query):
    plan = provider.plan(frame_question(query), ctx)
    assert plan.query_type == "conversational"
    assert plan.retrieve is False and plan.use_external is False


@pytest.mark.parametrize(
    "query", ["what is 12*7", "2+2", "square root of 16", "What is 10 divided by 4?", "3 x 5"]
)
def test_planner_computes_arithmetic_directly(provider, ctx, query):
    plan = provider.plan(frame_question(query), ctx)
    assert (plan.query_type, plan.retrieve, plan.use_external) == (
        "computational",
        False,
        False,
    )


@pytest.mark.parametrize(
    "query",
    [
        "write a python function that reverses a string",
        "how do I reverse a list in JavaScript",
        "Write a SQL query to count orders per day",
    ],
)
def test_planner_sends_coding_requests_to_a_direct_answer(provider, ctx, query):
    plan = provider.plan(frame_question(query), ctx)
    assert (plan.query_type, plan.retrieve) == ("coding", False)


@pytest.mark.parametrize(
    "query",
    [
        "What is the capital of France?",
        "who was the first president of the United States",
        "How many days are in a year?",
        "what is the speed of light",
    ],
)
def test_planner_recognises_clear_general_knowledge(provider, ctx, query):
    plan = provider.plan(frame_question(query), ctx)
    assert (plan.query_type, plan.retrieve) == ("general_knowledge", False)


@pytest.mark.parametrize(
    "query",
    [
        "What is the notice period?",
        "Who approved the security policy?",
        "What is the capital of France according to the report?",
        "What is the capital of the company?",
        "what does DNA stand for",
        "Summarize the uploaded documents",
        "Write a python function as described in the attached spec",
    ],
)
def test_planner_retrieves_for_questions_that_may_be_about_documents(provider, ctx, query):
    plan = provider.plan(frame_question(query), ctx)
    assert plan.retrieve is True
    assert plan.query_type in {"factual", "analytical"}
    assert plan.use_external is False


@pytest.mark.parametrize(
    ("query", "retrieve"),
    [
        ("latest news about OpenAI", False),
        ("what's the weather in Paris today", False),
        ("who is the current president of France", False),
        ("What happened this week in AI?", True),
        ("What changed in the 2025 budget?", True),
    ],
)
def test_planner_searches_the_web_only_for_live_questions(provider, ctx, query, retrieve):
    plan = provider.plan(frame_question(query), ctx)
    assert plan.use_external is True
    assert plan.retrieve is retrieve
    assert plan.query_type == "current_events"


def test_planner_keeps_questions_about_documents_off_the_web(provider, ctx):
    plan = provider.plan(frame_question("What does our report say about today's launch?"), ctx)
    assert plan.retrieve is True and plan.use_external is False


def test_plan_says_which_rule_fired(provider, ctx):
    greeting = provider.plan(frame_question("hello"), ctx)
    fallback = provider.plan(frame_question("What is the notice period?"), ctx)
    assert "greeting" in greeting.reasoning.lower()
    assert "documents are searched" in fallback.reasoning


# --- Direct answers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "result"),
    [
        ("what is 12*7", "84"),
        ("2+2", "4"),
        ("square root of 16", "4"),
        ("What is the square root of 2?", "1.414213562"),
        ("10 divided by 4", "2.5"),
        ("what's 15% of 200", "30"),
        ("2 ** 10", "1024"),
        ("(3 + 4) * -2", "-14"),
        ("17 // 5 + 17 % 5", "5"),
    ],
)
def test_direct_answer_computes_arithmetic(provider, ctx, query, result):
    assert provider.answer_direct(frame_question(query), ctx).text.endswith(f"= {result}")


@pytest.mark.parametrize(
    "expression",
    ["__import__('os')", "(1).__class__", "open('x')", "sqrt(-1)", "1/0", "9**9**9", "10**100000"],
)
def test_arithmetic_rejects_code_and_runaway_numbers(expression):
    with pytest.raises(ArithmeticRejected):
        evaluate_arithmetic(expression)


def test_code_is_never_planned_or_answered_as_arithmetic(provider, ctx):
    assert (
        provider.plan(frame_question("__import__('os').system('ls')"), ctx).query_type
        != "computational"
    )
    assert "cannot compute" in provider.answer_direct(frame_question("9**9**9"), ctx).text
    assert "divides by zero" in provider.answer_direct(frame_question("what is 1/0"), ctx).text


def test_direct_answer_greets_and_explains_the_portal(provider, ctx):
    reply = provider.answer_direct(frame_question("Hello!"), ctx).text
    assert reply.startswith("Hello!") and "documents" in reply
    assert provider.answer_direct(frame_question("thanks!"), ctx).text.startswith("You're welcome")


@pytest.mark.parametrize(
    "query", ["What is the capital of France?", "write a python function that sorts a list"]
)
def test_direct_answer_is_honest_about_what_it_cannot_answer(provider, ctx, query):
    reply = provider.answer_direct(frame_question(query), ctx)
    assert reply.is_sufficient is False  # a decline, never shown as verified
    reply = reply.text
    assert "only from your team's documents" in reply and "OpenAI or Ollama" in reply


def test_direct_answer_to_a_document_question_says_nothing_was_retrieved(provider, ctx):
    assert (
        "No passages were retrieved"
        in provider.answer_direct(frame_question("What is the notice period?"), ctx).text
    )


# --- Sentences and answers -----------------------------------------------------------------


def test_sentences_survive_abbreviations_and_decimals():
    text = (
        "Dr. Miller paid 3.5 EUR, e.g. for coffee. The U.S. office opened in Jan. 2020. It closed."
    )
    assert split_sentences(text) == [
        "Dr. Miller paid 3.5 EUR, e.g. for coffee.",
        "The U.S. office opened in Jan. 2020.",
        "It closed.",
    ]


def test_answer_quotes_the_supporting_sentence_with_its_block_number(provider, ctx):
    result = provider.answer(
        frame_question("How long must passwords be?"), build_context(SOURCES), SOURCES, ctx
    )
    assert result.text.startswith(f"{PASSWORDS} [3]")
    assert result.cited == (3,)
    assert result.key_facts[0] == PASSWORDS
    assert result.is_sufficient is True
    assert 0.5 <= result.confidence <= 1.0
    assert ctx.usage["reasoning"].calls == 1


def test_answer_cites_the_right_block_for_each_question(provider, ctx):
    leave = provider.answer(
        frame_question("How many days of annual leave do employees get?"), "", SOURCES, ctx
    )
    approval = provider.answer(
        frame_question("Who approved the security policy?"), "", SOURCES, ctx
    )
    assert leave.text.startswith(f"{LEAVE} [2]")
    assert approval.text.startswith(f"{APPROVAL} [3]")


def test_answer_reads_the_context_when_no_sources_are_given(provider, ctx):
    from_context = provider.answer_plain(
        frame_question("How long must passwords be?"), build_context(SOURCES), [], ctx
    )
    assert from_context.text.startswith(f"{PASSWORDS} [3]")


def test_answer_marks_a_sentence_cut_by_the_chunk_boundary(provider, ctx):
    cut = [
        SourceBlock(
            index=1,
            file_name="travel.txt",
            text="ravel costs are reimbursed. Hotel costs are capped at 180 EUR per night in",
        )
    ]
    result = provider.answer(frame_question("What is the hotel cap per night?"), "", cut, ctx)
    assert result.text == "Hotel costs are capped at 180 EUR per night in… [1]"
    assert provider.critique(frame_question(""), "", result.text, cut, ctx).grounded is True


def test_answer_says_so_when_nothing_is_relevant(provider, ctx):
    result = provider.answer(
        frame_question("What is the recipe for chocolate cake?"), "", SOURCES, ctx
    )
    assert result.text == NOT_FOUND
    assert result.cited == () and result.key_facts == ()
    assert result.is_sufficient is False


# --- Answering the question that was asked -------------------------------------------------

PYTHON = SourceBlock(
    index=1,
    file_name="python.txt",
    text="Python is a programming language whose design philosophy emphasises code readability. "
    "Its lead designer was Guido van Rossum. The language is named after a comedy group.",
)
LIGHTHOUSE = SourceBlock(
    index=1,
    file_name="lighthouse.txt",
    text="The Alexandria lighthouse was built on the island of Pharos to guide ships into the "
    "harbour. Its construction was finished in 280 BC.",
)
OFFICES = SourceBlock(
    index=1,
    file_name="offices.txt",
    text="Employees who work at the Berlin office build the mobile app. "
    "The Berlin office has a staff of 120.",
)
EIFFEL = SourceBlock(
    index=1,
    file_name="eiffel.txt",
    text="The Eiffel Tower is a wrought-iron lattice tower in Paris. It was designed by the "
    "engineering company of Gustave Eiffel. The tower was completed in 1889 for the World's Fair.",
)
CURIE = "Marie Curie discovered polonium and radium together with her husband Pierre."


def test_who_question_quotes_the_pronoun_sentence_that_names_the_person(provider, ctx):
    result = provider.answer(frame_question("Who led the design of Python?"), "", [PYTHON], ctx)
    assert result.key_facts[0] == "Its lead designer was Guido van Rossum."
    assert result.text.startswith("Its lead designer was Guido van Rossum. [1]")


def test_when_question_prefers_the_sentence_with_a_date(provider, ctx):
    result = provider.answer(
        frame_question("When was the Alexandria lighthouse built?"), "", [LIGHTHOUSE], ctx
    )
    assert result.key_facts[0] == "Its construction was finished in 280 BC."


def test_how_many_question_prefers_the_sentence_with_a_number(provider, ctx):
    result = provider.answer(
        frame_question("How many employees work at the Berlin office?"), "", [OFFICES], ctx
    )
    assert result.key_facts[0] == "The Berlin office has a staff of 120."


def test_two_part_question_is_answered_part_by_part(provider, ctx):
    result = provider.answer(
        frame_question("Who designed the Eiffel Tower and when was it completed?"),
        "",
        [EIFFEL],
        ctx,
    )
    assert result.text == (
        "It was designed by the engineering company of Gustave Eiffel. [1] "
        "The tower was completed in 1889 for the World's Fair. [1]"
    )


def test_heading_is_never_quoted_as_an_answer_sentence(provider, ctx):
    handbook = SourceBlock(
        index=1, file_name="handbook.md", text=f"Annual Leave Policy for Employees\n{LEAVE}"
    )
    result = provider.answer(
        frame_question("What is the annual leave policy for employees?"), "", [handbook], ctx
    )
    assert result.text == f"{LEAVE} [1]"


def test_sentence_from_another_document_sharing_only_a_name_is_not_appended(provider, ctx):
    sources = [
        SourceBlock(index=1, file_name="curie.txt", text=f"{CURIE} She won two Nobel Prizes."),
        SourceBlock(
            index=2, file_name="sorbonne.txt", text="Pierre Curie taught physics at the Sorbonne."
        ),
    ]
    result = provider.answer(frame_question("What did Marie Curie discover?"), "", sources, ctx)
    assert result.text == f"{CURIE} [1]"
    assert result.cited == (1,)


# --- Reflection ----------------------------------------------------------------------------


def test_reflect_finds_the_providers_own_answer_grounded(provider, ctx):
    answer = provider.answer(frame_question("What is the leave policy?"), "", SOURCES, ctx).text
    assert "[2]" in answer
    for text in (answer, f"{answer}\n\n{CAVEAT}"):
        verdict = provider.critique(
            frame_question("What is the leave policy?"), "", text, SOURCES, ctx
        )
        assert verdict.grounded is True and verdict.should_retry is False
        assert verdict.issues == () and verdict.confidence == 1.0


def test_reflect_catches_a_fabricated_sentence(provider, ctx):
    answer = f"{PASSWORDS} [3] The CEO approved a 50% bonus for every employee. [2]"
    verdict = provider.critique(frame_question("Passwords?"), "", answer, SOURCES, ctx)
    assert verdict.grounded is False and verdict.should_retry is True
    assert len(verdict.issues) == 1 and "bonus" in verdict.issues[0]
    assert verdict.confidence == 0.5
    assert "bonus" in verdict.feedback and PASSWORDS not in verdict.feedback


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (f"{PASSWORDS} [1]", "Not supported by [1]"),
        (f"{PASSWORDS} [9]", "does not exist [9]"),
        (PASSWORDS, "No citation"),
    ],
)
def test_reflect_catches_wrong_or_missing_citations(provider, ctx, answer, problem):
    verdict = provider.critique(frame_question("Passwords?"), "", answer, SOURCES, ctx)
    assert verdict.grounded is False
    assert problem in verdict.issues[0]


def test_reflect_accepts_a_light_paraphrase_of_the_cited_sentence(provider, ctx):
    answer = "Passwords must be at least 14 characters long [3]."
    assert (
        provider.critique(frame_question("Passwords?"), "", answer, SOURCES, ctx).grounded is True
    )


def test_reflect_accepts_a_quoted_sentence_a_chunk_left_without_a_full_stop(provider, ctx):
    sources = [
        SourceBlock(index=1, file_name="handbook.pdf", text=LEAVE.rstrip(".")),
        SourceBlock(index=2, file_name="handbook.pdf", text=CARRY_OVER),
    ]
    answer = f"{LEAVE.rstrip('.')} [1] {CARRY_OVER} [2]"
    verdict = provider.critique(
        frame_question("What is the leave policy?"), "", answer, sources, ctx
    )
    assert verdict.grounded is True and verdict.issues == ()


def test_reflect_sends_a_not_found_answer_back_for_a_retry(provider, ctx):
    verdict = provider.critique(frame_question("Cake?"), "", NOT_FOUND, SOURCES, ctx)
    assert verdict.grounded is False and verdict.should_retry is True
    assert verdict.feedback


# --- Retries -------------------------------------------------------------------------------


def test_retry_after_not_found_widens_the_search(provider, ctx):
    query = "What holidays does the company observe?"
    first = provider.answer(frame_question(query), "", SOURCES, ctx)
    assert first.text == NOT_FOUND
    feedback = provider.critique(frame_question(query), "", first.text, SOURCES, ctx).feedback
    retry = provider.answer(frame_question(query), "", SOURCES, ctx, feedback=feedback)
    assert retry.text != NOT_FOUND
    assert "Christmas" in retry.text and retry.is_sufficient is False
    assert provider.critique(frame_question(query), "", retry.text, SOURCES, ctx).grounded is True


@pytest.mark.parametrize(
    "feedback",
    [
        UNSUPPORTED_MARKER + json.dumps([LEAVE]),
        f'The sentence "{LEAVE}" does not answer the question; find other evidence.',
    ],
)
def test_retry_drops_the_sentences_the_critic_rejected(provider, ctx, feedback):
    query = "How many days of annual leave do employees get?"
    first = provider.answer(frame_question(query), "", SOURCES, ctx)
    retry = provider.answer(frame_question(query), "", SOURCES, ctx, feedback=feedback)
    assert LEAVE in first.text
    assert LEAVE not in retry.text and CARRY_OVER in retry.text


def test_rewrite_query_adds_the_missing_words_from_the_feedback(provider, ctx):
    query = "How much money does the team have?"
    feedback = "The answer should mention the Berlin office budget for 2024."
    assert (
        provider.rewrite_query(frame_question(query), feedback, ctx)
        == f"{query} Berlin office budget 2024"
    )
    assert provider.rewrite_query(frame_question(query), "", ctx) == query


def test_rewrite_query_ignores_its_own_feedback_about_rejected_sentences(provider, ctx):
    query = "What is the leave policy?"
    fabricated = provider.critique(
        frame_question(query), "", "Bonuses are paid in gold. [1]", SOURCES, ctx
    )
    not_found = provider.critique(frame_question(query), "", NOT_FOUND, SOURCES, ctx)
    assert provider.rewrite_query(frame_question(query), fabricated.feedback, ctx) == query
    assert provider.rewrite_query(frame_question(query), not_found.feedback, ctx) == query


# --- Compression ---------------------------------------------------------------------------


def test_compress_keeps_labels_and_fits_the_limit(provider, ctx, settings):
    settings.MAX_CONTEXT_CHARS = 200
    context = build_context(SOURCES)
    compressed = provider.compress(frame_question("How long must passwords be?"), context, ctx)
    assert len(compressed) <= 200 < len(context)
    blocks = compressed.split("\n\n")
    assert all(block.split("\n")[0] in context.split("\n") for block in blocks)
    assert any(block.startswith("[3] security.md\n") and PASSWORDS in block for block in blocks)


def test_compress_drops_blocks_with_no_sentence_left(provider, ctx, settings):
    settings.MAX_CONTEXT_CHARS = 100
    compressed = provider.compress(
        frame_question("How long must passwords be?"), build_context(SOURCES), ctx
    )
    assert compressed == f"[3] security.md\n{PASSWORDS}"


def test_compress_keeps_the_sentence_order_within_a_block(provider, ctx, settings):
    settings.MAX_CONTEXT_CHARS = 600
    compressed = provider.compress(
        frame_question("Who approved the password policy?"), build_context(SOURCES), ctx
    )
    assert len(compressed) <= 600
    assert compressed.index(PASSWORDS) < compressed.index(APPROVAL)
    assert [line for line in compressed.split("\n") if line.startswith("[")] == sorted(
        line for line in compressed.split("\n") if line.startswith("[")
    )


# --- Determinism, cancellation, registry ----------------------------------------------------


def test_same_inputs_give_the_same_outputs(provider, ctx, settings):
    settings.MAX_CONTEXT_CHARS = 300
    query = "What is the leave policy?"
    context = build_context(SOURCES)
    assert provider.answer(frame_question(query), context, SOURCES, ctx) == provider.answer(
        frame_question(query), context, SOURCES, ctx
    )
    assert provider.compress(frame_question(query), context, ctx) == provider.compress(
        frame_question(query), context, ctx
    )
    assert provider.plan(frame_question(query), ctx) == provider.plan(frame_question(query), ctx)


def test_every_task_stops_when_the_run_is_cancelled(provider):
    cancelled = CallContext(is_cancelled=lambda: True)
    calls = [
        lambda: provider.plan(frame_question("hi"), cancelled),
        lambda: provider.answer_direct(frame_question("hi"), cancelled),
        lambda: provider.answer(frame_question("q"), "", SOURCES, cancelled),
        lambda: provider.answer_plain(frame_question("q"), "", SOURCES, cancelled),
        lambda: provider.critique(frame_question("q"), "", "a [1]", SOURCES, cancelled),
        lambda: provider.compress(frame_question("q"), build_context(SOURCES), cancelled),
        lambda: provider.rewrite_query(frame_question("q"), "feedback", cancelled),
    ]
    for call in calls:
        with pytest.raises(RunCancelled):
            call()


def test_registry_reports_the_offline_provider():
    from queries.answering.registry import get_strategy

    provider = get_strategy("extractive")
    assert isinstance(provider, ExtractiveStrategy)
    assert provider.available() is True
    assert provider.models() == ["extractive"] and provider.default_model() == "extractive"
    assert provider.label == "Extractive (offline)"


@pytest.mark.parametrize(
    "request_text",
    [
        "Summarize the leave policy.",
        "Describe the leave policy.",
        "Give an overview of the leave policy.",
    ],
)
def test_a_request_to_summarise_is_answered_by_the_passage_not_one_sentence(
    provider, ctx, request_text
):
    handbook = SourceBlock(
        index=1,
        file_name="handbook.pdf",
        text=f"{LEAVE} {CARRY_OVER} The office closes at Christmas.",
    )
    result = provider.answer(frame_question(request_text), "", [handbook], ctx)
    assert LEAVE in result.text and CARRY_OVER in result.text, result.text
