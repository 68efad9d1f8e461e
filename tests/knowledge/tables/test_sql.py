"""A model's table query: refused before it runs unless it is one SELECT over the question's
own tables with allowed functions and join conditions; stopped by its timeout; read-only."""

from __future__ import annotations

import re

import pytest
from django.db import connection

from knowledge import services
from knowledge.models import Table, TableRow
from knowledge.tables.sql import (
    RESERVED,
    ProgramRefused,
    ProgramStopped,
    check,
    execute,
    named_table,
)
from tests.knowledge.conftest import FILES, run_ingestion


@pytest.fixture
def budgets(kb, user):
    document, _ = services.document_upload(
        kb=kb, file_name="sample.xlsx", data=(FILES / "sample.xlsx").read_bytes(), user=user
    )
    run_ingestion(document.id)
    table = Table.objects.get(document=document, ordinal=1)  # Lab budgets
    return named_table("lab_budgets", table.id, table.columns)


TABLES = [named_table("clinics", 1, [{"name": "Clinic", "type": "text"}])]


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("DROP TABLE clinics", "Only a SELECT"),
        ("SELECT 1; DROP TABLE clinics", "one SELECT"),
        ("DELETE FROM clinics", "Only a SELECT"),
        ("SELECT pg_sleep(10)", "pg_sleep() is not allowed"),
        ("SELECT clinic FROM clinics WHERE pg_sleep(5) IS NULL", "pg_sleep() is not allowed"),
        ("SELECT * FROM knowledge_tablerow", "not one of this question's tables"),
        ("SELECT * FROM public.clinics", "outside this question"),
        ("SELECT * FROM other_team_budgets", "not one of this question's tables"),
        ("SELECT a.clinic FROM clinics a CROSS JOIN clinics b", "no cross join"),
        ("SELECT a.clinic FROM clinics a, clinics b", "no cross join"),
        ("SELECT clinic FROM clinics FOR UPDATE", "lock"),
        ("SELECT set_config('statement_timeout', '0', false)", "set_config() is not allowed"),
        ("SELECT clinic INTO copy FROM clinics", "INTO"),
        ("SELEC clinic FROM", "could not be parsed"),
        # A string the model left open fails in sqlglot's tokenizer, before its parser.
        ("SELECT clinic FROM clinics WHERE clinic = 'Men\\'s Pro' LIMIT 1", "could not be parsed"),
    ],
)
def test_a_query_that_may_not_run_is_refused_before_it_runs(sql, why) -> None:
    with pytest.raises(ProgramRefused, match=re.escape(why)):
        check(sql, TABLES)


@pytest.mark.parametrize(
    "sql",
    [
        "WITH big AS (SELECT clinic FROM clinics WHERE clinic LIKE 'B%') SELECT count(*) FROM big",
        # Connectives and CASE are functions to sqlglot: allowed like any operator.
        "SELECT count(*) FROM clinics WHERE clinic ILIKE 'a%' OR clinic ILIKE 'b%'",
        "SELECT clinic FROM clinics WHERE clinic <> 'Faro' AND NOT clinic IS NULL",
        "SELECT CASE WHEN clinic = 'Faro' THEN 1 ELSE 0 END FROM clinics",
        "SELECT clinic FROM clinics WHERE clinic IN ('Faro', 'Porto') AND clinic BETWEEN 'A' AND 'Z'",
    ],
)
def test_a_select_over_the_named_tables_passes(sql) -> None:
    assert check(sql, TABLES).split()[0] in ("WITH", "SELECT")


@pytest.mark.parametrize(
    ("sql", "literal"),
    [
        ("SELECT clinic FROM clinics WHERE clinic = 'O'Neill's'", "'O''Neill''s'"),
        ("SELECT count(*) FROM clinics WHERE clinic ILIKE 'Don't Stop%'", "'Don''t Stop%'"),
    ],
)
def test_an_apostrophe_a_model_left_single_in_a_name_is_read_doubled(sql, literal) -> None:
    assert literal in check(sql, TABLES)


@pytest.mark.django_db
def test_a_query_runs_over_the_named_tables_rows_typed(budgets) -> None:
    columns, rows = execute(
        "SELECT lab, budget_2026_eur FROM lab_budgets ORDER BY budget_2026_eur DESC LIMIT 1",
        [budgets],
    )
    assert columns == ["lab", "budget_2026_eur"]
    top = max(TableRow.objects.filter(table_id=budgets.table_id), key=lambda row: row.values[1])
    assert rows == [(top.cells[0], top.values[1])]


@pytest.mark.django_db
def test_a_runaway_query_is_stopped_by_its_timeout_and_leaves_no_trace(budgets) -> None:
    runaway = (
        "SELECT count(*) FROM lab_budgets a JOIN lab_budgets b ON true JOIN lab_budgets c ON true "
        "JOIN lab_budgets d ON true JOIN lab_budgets e ON true JOIN lab_budgets f ON true "
        "JOIN lab_budgets g ON true JOIN lab_budgets h ON true JOIN lab_budgets i ON true "
        "JOIN lab_budgets j ON true JOIN lab_budgets k ON true JOIN lab_budgets l ON true "
        "JOIN lab_budgets m ON true JOIN lab_budgets n ON true JOIN lab_budgets o ON true "
        "JOIN lab_budgets p ON true JOIN lab_budgets q ON true JOIN lab_budgets r ON true "
        "JOIN lab_budgets s ON true JOIN lab_budgets t ON true JOIN lab_budgets u ON true "
        "JOIN lab_budgets v ON true JOIN lab_budgets w ON true JOIN lab_budgets x ON true "
        "JOIN lab_budgets y ON true JOIN lab_budgets z ON true JOIN lab_budgets aa ON true "
        "JOIN lab_budgets ab ON true JOIN lab_budgets ac ON true JOIN lab_budgets ad ON true "
        "JOIN lab_budgets ae ON true JOIN lab_budgets af ON true JOIN lab_budgets ag ON true "
        "JOIN lab_budgets ah ON true JOIN lab_budgets ai ON true JOIN lab_budgets aj ON true "
        "JOIN lab_budgets ak ON true JOIN lab_budgets al ON true JOIN lab_budgets am ON true"
    )
    with pytest.raises(ProgramStopped, match="was stopped"):
        execute(runaway, [budgets], timeout_ms=300)
    # The connection is usable, writable and without the query's timeout afterwards.
    with connection.cursor() as cursor:
        cursor.execute("SHOW transaction_read_only")
        assert cursor.fetchone()[0] == "off"
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] != "300ms"
    assert TableRow.objects.filter(table_id=budgets.table_id).update(cells=["x"]) == 2


@pytest.mark.django_db
def test_a_header_that_is_a_reserved_word_gets_a_name_a_query_can_write(budgets) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT word FROM pg_get_keywords() WHERE catcode IN ('R', 'T')")
        assert RESERVED == {word for (word,) in cursor.fetchall()}
    table = named_table(
        "terms", budgets.table_id, [{"name": "From", "type": "text"}, {"name": "", "type": "text"}]
    )
    assert [name for name, _ in table.columns] == ["c_from", "c_column"]
    columns, rows = execute("SELECT c_from, c_column FROM terms LIMIT 1", [table])
    assert columns == ["c_from", "c_column"] and len(rows) == 1
