"""A model's table query: the schema it is shown, its reply read, its result judged. Running
it is tests/knowledge/tables/test_sql.py; through the pipeline, tests/queries/pipeline/
test_table_queries.py."""

from __future__ import annotations

import pytest

from knowledge.tables.build import grid, table_from_rows
from knowledge.tables.model_sql import (
    _is_amount,
    answered_column,
    as_written,
    build_schema,
    extract_sql,
    misfit,
    query_misfit,
    result_values,
    rows_holding,
    same_values,
    without_the_named,
)

HEADERS = ["Office", "Staff (FTE)", "Opened", "Lead"]
ROWS = [
    ["Lisbon", "120", "12 March 2015", "Ana Reis"],
    ["Porto", "85", "2019-06-01", "Rui Sousa"],
    ["Braga", "40", "2021-01-15", "Ana Reis"],
    ["Faro", "12", "2022-09-30", "Marta Lobo"],
]


@pytest.fixture
def offices():
    table = table_from_rows(HEADERS, ROWS)
    return grid(table, "offices.xlsx › Offices", [101, 102, 103, 104])


def test_the_schema_names_each_table_and_column_with_its_type_and_a_few_rows(offices) -> None:
    schema = build_schema([(7, offices, 1, "offices.xlsx"), (8, offices, 1, "offices.xlsx")])
    text = schema.text()
    # Two tables of one caption get two names; headers become SQL names.
    assert [table.named.name for table in schema.tables] == ["offices", "offices_2"]
    assert "Table offices — offices.xlsx › Offices, 4 rows" in text
    assert "staff_fte (number)" in text and "opened (date as text 'YYYY-MM-DD'" in text
    assert "lead (text)" in text and "row_number (number)" in text
    # Three sample rows, as written: the fourth is not shown.
    assert "Lisbon | 120 | 12 March 2015 | Ana Reis" in text and "Faro" not in text
    assert schema.named[0].table_id == 7


@pytest.mark.parametrize(
    ("reply", "sql"),
    [
        ("SELECT 1", "SELECT 1"),
        ("```sql\nSELECT lead FROM offices\n```", "SELECT lead FROM offices"),
        ("Here is the query:\nSELECT COUNT(*) FROM offices;", "SELECT COUNT(*) FROM offices;"),
        ("WITH t AS (SELECT 1) SELECT * FROM t", "WITH t AS (SELECT 1) SELECT * FROM t"),
        ("NONE", None),
        ("none - the tables do not say", None),
        ("", None),
    ],
)
def test_the_query_is_read_from_the_reply(reply, sql) -> None:
    assert extract_sql(reply) == sql


def test_the_values_are_the_first_column_that_is_not_the_row_number() -> None:
    assert result_values(["row_number", "office"], [(1, "Lisbon"), (3, "Braga")]) == [
        "Lisbon",
        "Braga",
    ]
    assert result_values(["count"], [(3,)]) == [3]
    assert result_values(["avg"], [(2.0,)]) == [2] and result_values(["avg"], [(2.5,)]) == [2.5]


@pytest.mark.parametrize(
    ("question", "values", "fits"),
    [
        ("How many offices opened after 2018?", [3], True),
        ("How many offices opened after 2090?", [0], False),
        ("How many offices opened after 2018?", ["Porto", "Braga", "Faro"], False),
        ("What is the total staff?", [257], True),
        ("Which office has the most staff?", ["Lisbon"], True),
        ("Which offices opened after 2018?", ["Porto", "Braga", "Faro"], True),
        ("Which office opened in 1990?", [], False),
        ("Which office opened in 1990?", [None], False),
        ("List every row", list(range(21)), False),
        # "the only" asks for one row; "the only two" for two.
        ("Which is the only office in Spain?", ["Vigo", "Madrid"], False),
        ("Which is the only office in Spain?", ["Vigo"], True),
        ("Who are the only two leads in Spain?", ["Lucia Vidal", "Ana Ruiz"], True),
    ],
)
def test_a_result_is_judged_against_what_the_question_asks(question, values, fits) -> None:
    assert (misfit(question, values) == "") is fits


def test_two_results_agree_on_numbers_by_value_and_text_folded(offices) -> None:
    assert same_values([3], [3.0]) and same_values(["Ana Reis"], ["ana reis"])
    assert same_values(["Porto", "Braga"], ["braga", "porto"])
    assert not same_values(["Porto"], ["Porto", "Braga"]) and not same_values([3], ["3 staff"])
    # The rows holding a text result are the rows it cites.
    assert rows_holding(["Ana Reis"], offices) == [0, 2]
    assert rows_holding([3], offices) == []


def test_a_question_asking_two_things_of_one_row_gets_every_column_of_it() -> None:
    columns, rows = ["vessel", "captain"], [("Skagerrak", "Jon Eide")]
    assert result_values(columns, rows, whole_row=True) == ["Skagerrak", "Jon Eide"]
    assert result_values(columns, rows) == ["Skagerrak"]
    # Several rows are a list of the first column, whatever the question.
    two = [("Skagerrak", "Jon Eide"), ("Biscaya", "Ana Pardo")]
    assert result_values(columns, two, whole_row=True) == ["Skagerrak", "Biscaya"]


def test_a_date_the_query_returns_is_given_as_the_table_writes_it(offices) -> None:
    # The query reads the Opened column as ISO text; the answer quotes the cell.
    assert as_written(["2015-03-12", "2019-06-01"], offices) == ["12 March 2015", "2019-06-01"]
    # A date no cell holds, a number and other text stay as the query returned them.
    assert as_written(["2020-01-01", 85, "Porto"], offices) == ["2020-01-01", 85, "Porto"]


SEASONS = table_from_rows(
    ["Season", "Place", "Sacks"],
    [["2001", "1", "8.5"], ["2002", "3", "12"], ["2003", "2", "12"], ["2004", "4", "4"]],
)


@pytest.mark.parametrize(
    ("sql", "said"),
    [
        # "How many staff?" is their total: COUNT of a column of amounts counts its rows.
        ("SELECT COUNT(staff_fte) FROM offices", "SUM(staff_fte)"),
        ("SELECT COUNT(sacks) FROM seasons WHERE season < 2004", "SUM(sacks)"),
        ("SELECT AVG(row_number) FROM offices", "row_number"),
        ("SELECT SUM(row_number) FROM offices WHERE lead ILIKE 'ana reis'", "row_number"),
        ("SELECT COUNT(*) FROM offices", ""),
        ("SELECT COUNT(DISTINCT lead) FROM offices", ""),
        ("SELECT COUNT(lead) FROM offices", ""),  # a text column's count counts its rows
        ("SELECT SUM(staff_fte) FROM offices", ""),
        ("SELECT MAX(row_number) FROM offices", ""),
        # Years and places in an order are counted by their rows: "how many seasons …?".
        ("SELECT COUNT(season) FROM seasons WHERE place = 1", ""),
        ("SELECT COUNT(place) FROM seasons WHERE sacks > 5", ""),
        ("SELECT place FROM seasons GROUP BY place HAVING COUNT(sacks) > 1", ""),
    ],
)
def test_a_query_that_cannot_compute_what_it_seems_to_is_unfit(offices, sql, said) -> None:
    seasons = grid(SEASONS, "seasons.csv › Seasons", [1, 2, 3, 4])
    schema = build_schema([(7, offices, 1, "offices.xlsx"), (8, seasons, 2, "seasons.csv")])
    assert [table.named.name for table in schema.tables] == ["offices", "seasons"]
    reason = query_misfit(sql, schema)
    assert (said in reason) if said else reason == ""
    assert bool(reason) == bool(said)


@pytest.mark.parametrize(
    ("question", "sql", "said"),
    [
        # "How many sacks" over a Sacks column is their total, whatever the words around it.
        ("How many sacks did he make in total?", "SELECT COUNT(*) FROM seasons", "SUM(sacks)"),
        (
            "How many sacks came before 2004?",
            "SELECT COUNT(*) FROM seasons WHERE season < 2004",
            "SUM(sacks)",
        ),
        (
            "How many staff do the offices have altogether?",
            "SELECT COUNT(*) FROM offices",
            "SUM(staff_fte)",
        ),
        # Rows are what is counted when the word names no column of amounts ...
        ("How many offices are there?", "SELECT COUNT(*) FROM offices", ""),
        (
            "How many seasons had more than 5 sacks?",
            "SELECT COUNT(*) FROM seasons WHERE sacks > 5",
            "",
        ),
        # ... or a column of years or of places in an order ("how many places" is no total).
        ("How many places were won?", "SELECT COUNT(*) FROM seasons", ""),
        ("How many sacks did he make in total?", "SELECT SUM(sacks) FROM seasons", ""),
        # COUNT(*) that is not the answer, counts distinct values or has a condition on the
        # counted column itself counts what it should.
        ("How many sacks a season?", "SELECT SUM(sacks) / COUNT(*) FROM seasons", ""),
        ("How many sacks?", "SELECT COUNT(DISTINCT sacks) FROM seasons", ""),
        ("How many sacks were over 8?", "SELECT COUNT(*) FROM seasons WHERE sacks > 8", ""),
        (
            "How many sacks in the best season?",
            "SELECT sacks FROM seasons WHERE season = (SELECT season FROM seasons GROUP BY season "
            "ORDER BY COUNT(*) DESC LIMIT 1)",
            "",
        ),
    ],
)
def test_counting_rows_when_the_question_counts_a_column_s_amounts_is_unfit(
    offices, question, sql, said
) -> None:
    seasons = grid(SEASONS, "seasons.csv › Seasons", [1, 2, 3, 4])
    schema = build_schema([(7, offices, 1, "offices.xlsx"), (8, seasons, 2, "seasons.csv")])
    reason = query_misfit(sql, schema, question)
    assert (said in reason) if said else reason == ""


@pytest.mark.parametrize(
    ("question", "values", "kept"),
    [
        ("Besides Braga, which offices does Ana Reis lead?", ["Lisbon", "Braga"], ["Lisbon"]),
        # A misspelt name (a letter more) is still the row the question names.
        ("besides bragga, which offices does ana reis lead?", ["Lisbon", "Braga"], ["Lisbon"]),
        ("Which office has the same lead as Lisbon?", ["Lisbon", "Braga"], ["Braga"]),
        # Only what is said after the word asking for the others: "Lisbon" is not named there;
        # a name two letters apart is another one.
        ("Lisbon aside, which office has the same lead as Braga?", ["Lisbon", "Braga"], ["Lisbon"]),
        (
            "Besides Australia, which countries won gold?",
            ["Austria", "Canada"],
            ["Austria", "Canada"],
        ),
        # Without a word asking for the others, every value stays.
        (
            "Which offices are led by Ana Reis, Lisbon or Braga?",
            ["Lisbon", "Braga"],
            ["Lisbon", "Braga"],
        ),
        # One value, or only the named ones: the result stays as it is.
        ("Besides Lisbon, which office opened first?", ["Lisbon"], ["Lisbon"]),
        ("Other than Porto and Faro, which are open?", ["Porto", "Faro"], ["Porto", "Faro"]),
        ("How many offices other than Porto?", [3, 4], [3, 4]),
    ],
)
def test_a_list_asked_beside_a_named_row_leaves_that_row_out(question, values, kept) -> None:
    assert without_the_named(question, values) == kept


def test_a_column_of_numbers_without_one_value_is_no_column_of_amounts() -> None:
    assert not _is_amount([None, None]) and not _is_amount([])
    assert _is_amount([8.5, 12.0, 12.0]) and not _is_amount([2001.0, 2002.0])
    assert not _is_amount([3.0, 1.0, 2.0])  # places 1..n


def test_a_column_s_own_cell_the_query_returns_keeps_the_unit_the_table_gives_it() -> None:
    table = table_from_rows(
        ["Year", "Share", "Seats", "Time"],
        [["1985", "28.9%", "12", "2:28:17"], ["1990", "31.5%", "14", "2:31:02"]],
    )
    votes = grid(table, "votes.csv", [1, 2])
    named = build_schema([(7, votes, 1, "votes.csv")]).tables[0].named
    share = answered_column("SELECT MAX(share) FROM t WHERE year < 1990", named)
    assert share == 1
    assert as_written([28.9], votes, share) == ["28.9%"]
    # A time the query read as seconds is the cell the table writes.
    time = answered_column("SELECT t.time, row_number FROM t ORDER BY time LIMIT 1", named)
    assert as_written([8897], votes, time) == ["2:28:17"]
    # A sum, a count or a computation is the query's own number, not a cell.
    for sql in (
        "SELECT SUM(share) FROM t",
        "SELECT COUNT(*) FROM t",
        "SELECT MAX(share) - MIN(share) FROM t",
        "SELECT nothing FROM t",
    ):
        assert answered_column(sql, named) is None, sql
    # A number no cell of the column holds stays as the query returned it.
    assert as_written([12], votes, share) == [12]


@pytest.mark.parametrize(
    ("question", "header", "named"),
    [
        ("How many books were lent in total?", "Books lent", True),
        ("How many staff work here in all?", "Staff (FTE)", True),  # a unit in brackets aside
        ("How many games did the club play?", "Game", True),
        # Every other word of the header must be said: Season tickets are no seasons.
        ("How many seasons did he play?", "Season tickets", False),
        ("How many total goals did he score?", "Total apps", False),
        # A column that numbers or codes the rows holds no amount.
        ("How many trains stop at Leeds?", "Train No.", False),
        ("How many boats finished?", "Boat #", False),
        ("How many rounds did he win?", "Round", False),
    ],
)
def test_how_many_names_a_header_by_all_of_its_words(question, header, named) -> None:
    from knowledge.tables.counted import counted_by_header

    assert bool(counted_by_header(question, header)) == named
