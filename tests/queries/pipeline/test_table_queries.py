"""A table query written by a model, through the whole pipeline.

The model is scripted (tests/queries/pipeline/scripted.py): a hostile or broken model cannot be
summoned on demand, and these tests are about what the portal does with its query. The query
runs for real, in the test database, over the clinics workbook's stored tables: checked, run
read-only with its timeout, its result judged; the parser's program answers when it does not.
"""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings

from knowledge.bulk import TextItem, documents_ingest_inline
from knowledge.services import kb_create
from queries.pipeline.events import ListSink
from queries.pipeline.runner import run_pipeline
from tests.queries.pipeline.contract import check_frames
from tests.queries.pipeline.scripted import PLAN_RETRIEVE, Script, scripted_quote_first

pytestmark = pytest.mark.django_db(transaction=True)

COUNT = "How many clinics opened after 2019?"


@pytest.fixture(autouse=True)
def _always_ask_the_model(settings):
    """The model writes the query even where the parser is sure (TABLE_PARSER_SURE)."""
    settings.TABLE_PARSER_SURE = 1.01


def _ask(kb_ids, question: str, *queries: str):
    script = Script(planner=[PLAN_RETRIEVE] * 2, retrieval=list(queries))
    sink = ListSink()
    outcome = run_pipeline(
        query=question, strategy=scripted_quote_first(script), kb_ids=kb_ids, sink=sink
    )
    check_frames(sink.frames())
    retrieval = next(
        f["data"] for f in sink.frames()
        if f["type"] == "retrieval_result" and f["data"].get("stage") == "retrieval"
    )  # fmt: skip
    return outcome, retrieval, script, sink


def test_the_model_s_query_answers_and_the_parser_agreeing_verifies_it(
    clinics_kb, settings
) -> None:
    # Verified from the judge's probability of the parser's agreeing program: a threshold below
    # what the judge gives this count (0.77 as trained) shows that the agreement verifies.
    settings.TABLE_VERIFY_MIN = 0.6
    outcome, retrieval, script, sink = _ask(
        [clinics_kb.id], COUNT, "```sql\nSELECT COUNT(*) FROM clinics WHERE opened > 2019;\n```"
    )
    assert outcome.status == "succeeded"
    assert outcome.metadata["answer_values"] == [3]
    program = retrieval["program"]
    assert program["program"]["by"] == "model"
    assert "opened > 2019" in program["program"]["sql"].lower()
    assert "table_query" not in retrieval
    # The model was shown the workbook's two sheets, their columns and a few rows.
    stage, (system, user) = next(p for p in script.prompts if p[0] == "retrieval")
    assert "Table clinics" in user and "Table budgets" in user and "Braga" in user
    assert "opened (number)" in user
    # The parser computes the same count: two readings agree, so it is verified, and the rows
    # the parser counted are cited.
    assert program["confidence"] >= 0.6
    assert outcome.metadata["verdict"] == "verified"
    rows = {s["table"]["rows"][0][0] for s in outcome.sources if s.get("table")}
    assert rows == {"Braga", "Faro", "Evora"}


def test_a_model_s_answer_the_parser_does_not_compute_is_not_verified(clinics_kb) -> None:
    outcome, retrieval, _, sink = _ask(
        [clinics_kb.id],
        "Which clinic has the most beds?",
        "SELECT clinic FROM clinics ORDER BY beds ASC LIMIT 1",  # the least: a wrong query
    )
    assert outcome.metadata["answer_values"] == ["Evora"]
    assert retrieval["program"]["program"]["by"] == "model"
    assert retrieval["program"]["confidence"] < django_settings.TABLE_VERIFY_MIN
    assert outcome.metadata["verdict"] == "unverified"


@pytest.mark.parametrize(
    ("sql", "said"),
    [
        ("DROP TABLE knowledge_tablerow", "DROP"),
        ("SELECT pg_sleep(5)", "pg_sleep"),
        ("SELECT COUNT(*) FROM clinics, budgets", "cross join"),
        ("SELECT COUNT(*) FROM clinics CROSS JOIN budgets", "cross join"),
        ("SELECT COUNT(*) FROM knowledge_tablerow", "knowledge_tablerow"),
        ("SELECT COUNT(*) FROM public.clinics", "outside this question"),
        ("DELETE FROM clinics", "DELETE"),
        ("SELECT 1; DROP TABLE clinics", "one SELECT"),
    ],
)
def test_a_harmful_query_is_refused_and_the_parser_answers(clinics_kb, sql, said) -> None:
    outcome, retrieval, script, sink = _ask([clinics_kb.id], COUNT, sql)
    # Refused for what it does: the model is not asked to correct it.
    assert [stage for stage, _ in script.prompts].count("retrieval") == 1
    assert retrieval["table_query"]["outcome"] == "refused"
    assert said in retrieval["table_query"]["reason"]
    assert retrieval["program"]["program"]["by"] == "parser"
    assert outcome.status == "succeeded" and outcome.metadata["answer_values"] == [3]
    assert [f["type"] for f in sink.frames()][-2:] == ["done", "stream_end"]


def test_another_team_s_table_has_no_name_in_the_query(clinics_kb, django_user_model) -> None:
    other = django_user_model.objects.create_user("other-team", password="x")
    theirs = kb_create(owner=other, name="Salaries")
    documents_ingest_inline(
        kb=theirs, items=[TextItem("salaries.csv", b"Name,Salary\nAna,90000\nRui,85000\n")]
    )
    outcome, retrieval, script, _ = _ask([clinics_kb.id], COUNT, "SELECT SUM(salary) FROM salaries")
    assert "salaries" not in next(p for p in script.prompts if p[0] == "retrieval")[1][1]
    assert retrieval["table_query"]["outcome"] == "refused"
    assert "'salaries'" in retrieval["table_query"]["reason"]
    assert outcome.metadata["answer_values"] == [3]


def test_a_runaway_query_is_stopped_by_its_timeout(clinics_kb, settings) -> None:
    settings.TABLE_QUERY_TIMEOUT_MS = 300
    runaway = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT COUNT(*) FROM n"
    )
    outcome, retrieval, script, _ = _ask([clinics_kb.id], COUNT, runaway)
    assert [stage for stage, _ in script.prompts].count("retrieval") == 1
    assert retrieval["table_query"]["outcome"] == "stopped"
    assert "300 ms" in retrieval["table_query"]["reason"]
    assert outcome.metadata["answer_values"] == [3]


@pytest.mark.parametrize(
    ("replies", "outcome_kind"),
    [
        (["NONE"], "declined"),
        # Names, not a count; then nothing: each is shown to the model again with its problem.
        (["SELECT clinic FROM clinics WHERE opened > 2019"] * 2, "unfit"),
        (["SELECT clinic FROM clinics WHERE opened > 2090"] * 2, "unfit"),
    ],
)
def test_a_declined_or_unfit_query_leaves_the_parser_s_program(
    clinics_kb, replies, outcome_kind
) -> None:
    outcome, retrieval, script, _ = _ask([clinics_kb.id], COUNT, *replies)
    assert retrieval["table_query"]["outcome"] == outcome_kind
    assert outcome.metadata["answer_values"] == [3]
    asked = [prompt for stage, prompt in script.prompts if stage == "retrieval"]
    assert len(asked) == len(replies)
    if len(asked) > 1:
        # The second prompt holds the first query and why it did not answer.
        assert "A QUERY THAT DID NOT ANSWER" in asked[1][1] and replies[0] in asked[1][1]
        assert retrieval["table_query"]["reason"] in asked[1][1]


def test_a_second_retrieval_of_the_same_question_asks_the_model_nothing_new(clinics_kb) -> None:
    """A retry's retrieval of the same question, at the same temperature, reads back the
    query the model wrote for it (its prompt is the same): one reply is scripted, not two."""
    from providers.llm.base import CallContext
    from queries.pipeline.context import RunContext
    from queries.pipeline.nodes.retrieval import _model_table_query

    script = Script(retrieval=["SELECT COUNT(*) FROM clinics WHERE opened > 2019"])
    run = RunContext(
        sink=ListSink(),
        strategy=scripted_quote_first(script),
        call=CallContext(),
        kb_ids=[clinics_kb.id],
    )
    computed = []
    for _ in range(2):
        result = run.stores.search(kb_ids=run.kb_ids, query=COUNT, top_k=5, filters=None)
        assert _model_table_query(run, COUNT, result) is None  # the model's query answered
        computed.append(result.hits["table"][0].structure["values"])
    assert computed == [[3], [3]]
    assert [stage for stage, _ in script.prompts] == ["retrieval"]


def test_a_query_that_fails_as_written_is_corrected_by_the_model(clinics_kb) -> None:
    # The database rejects the first query (a column outside its aggregate); the model sees
    # the error and its second query answers.
    failing = "SELECT COUNT(*) FROM clinics WHERE opened > 2019 ORDER BY clinic"
    outcome, retrieval, script, _ = _ask(
        [clinics_kb.id], COUNT, failing, "SELECT COUNT(*) FROM clinics WHERE opened > 2019"
    )
    asked = [prompt[1] for stage, prompt in script.prompts if stage == "retrieval"]
    assert len(asked) == 2 and failing in asked[1] and "The query failed" in asked[1]
    assert "table_query" not in retrieval
    assert retrieval["program"]["program"]["by"] == "model"
    assert outcome.metadata["answer_values"] == [3]


def test_a_model_that_writes_no_corrected_query_leaves_the_parser_s_program(clinics_kb) -> None:
    failing = "SELECT COUNT(*) FROM clinics WHERE opened > 2019 ORDER BY clinic"
    outcome, retrieval, _, _ = _ask([clinics_kb.id], COUNT, failing, "NONE")
    assert retrieval["table_query"]["outcome"] == "declined"
    assert retrieval["table_query"]["reason"].startswith("The model wrote no corrected query")
    assert "The query failed" in retrieval["table_query"]["reason"]
    assert set(retrieval["table_query"]) == {"outcome", "reason", "sql"}
    assert outcome.metadata["answer_values"] == [3]


def test_a_question_about_prose_costs_no_table_query(clinics_kb) -> None:
    outcome, retrieval, script, _ = _ask([clinics_kb.id], "When do visiting hours end?")
    assert "retrieval" not in {stage for stage, _ in script.prompts}
    assert "program" not in retrieval and "table_query" not in retrieval
    assert "8 pm" in outcome.answer


def test_a_lookup_of_one_row_costs_no_table_query(clinics_kb) -> None:
    outcome, _, script, _ = _ask([clinics_kb.id], "Who is the manager of the Faro clinic?")
    assert "retrieval" not in {stage for stage, _ in script.prompts}
    assert "Joao Neves" in outcome.answer.split("\n")[0]


def test_no_model_is_asked_where_the_parser_is_sure(clinics_kb, settings) -> None:
    settings.TABLE_PARSER_SURE = 0.5
    outcome, retrieval, script, _ = _ask([clinics_kb.id], COUNT)
    assert "retrieval" not in {stage for stage, _ in script.prompts}
    assert retrieval["program"]["program"]["by"] == "parser"
    assert retrieval["program"]["confidence"] >= 0.5
    assert outcome.metadata["answer_values"] == [3]


def test_a_comparison_offered_as_two_words_is_answered_with_the_word_and_no_model_call(
    clinics_kb,
) -> None:
    outcome, retrieval, script, _ = _ask(
        [clinics_kb.id], "Does Faro have more or fewer beds than Braga?"
    )
    assert "retrieval" not in {stage for stage, _ in script.prompts}
    assert retrieval["program"]["program"]["by"] == "parser"
    assert (
        "then compared Beds of Faro (30) with that of Braga (45): fewer"
        in (retrieval["program"]["words"])
    )
    assert outcome.metadata["answer_values"] == ["fewer"]
    assert outcome.answer.split("\n")[0].lower().startswith("fewer")


def test_a_two_part_question_gets_both_values_and_whole_numbers_are_said_as_such(
    clinics_kb,
) -> None:
    # A CAST returns an integer, where the table's numbers come back as doubles.
    outcome, retrieval, _, _ = _ask(
        [clinics_kb.id],
        "Which clinic opened first, and how many beds does that clinic have?",
        "SELECT clinic, CAST(beds AS integer) FROM clinics ORDER BY opened ASC LIMIT 1",
    )
    assert retrieval["program"]["program"]["by"] == "model"
    assert outcome.metadata["answer_values"] == ["Lisbon", 120]
    assert outcome.answer.startswith("Lisbon and 120 [")


def test_a_question_that_asks_for_one_of_the_rows_gets_the_first_the_query_returns(
    clinics_kb,
) -> None:
    outcome, retrieval, _, _ = _ask(
        [clinics_kb.id],
        "Name one clinic that opened after 2019.",
        "SELECT clinic FROM clinics WHERE opened > 2019 ORDER BY opened",
    )
    assert retrieval["program"]["program"]["by"] == "model"
    assert outcome.metadata["answer_values"] == ["Braga"]
