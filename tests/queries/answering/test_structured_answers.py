"""Answers read from structure: a table row's cell, rows that match, a numbered list's item."""

from __future__ import annotations

import pytest

from providers.llm.base import CallContext
from providers.llm.chat import OfflineBackend
from queries.answering.extractive import NOT_FOUND, ExtractiveStrategy
from queries.answering.extractive.structured import structured_answer
from queries.answering.frame import frame_question
from queries.answering.types import SourceBlock

OFFICE_HEADERS = ["office", "country", "head count", "opened", "office manager"]
OFFICES = [
    ["Lisbon", "Portugal", "212", "2009", "Catarina Mendes"],
    ["Porto", "Portugal", "64", "2016", "Rui Lopes"],
    ["Dublin", "Ireland", "31", "2019", "Aoife Brennan"],
    ["Munich", "Germany", "58", "2013", "Lukas Brenner"],
]
CONTACT_HEADERS = ["Topic", "Contact", "Email"]
CONTACTS = [
    ["Payroll and payslips", "Gemma Whitlock", "payroll@corvane.com"],
    ["Benefits, pension and health insurance", "Lukas Brenner", "benefits@corvane.com"],
]


def row(index: int, headers, cells, number: int, caption: str = "", file_name: str = "t.csv"):
    return SourceBlock(
        index=index,
        file_name=file_name,
        text=" · ".join(f"{h}: {c}" for h, c in zip(headers, cells)),
        kind="row",
        structure={
            "headers": headers, "cells": cells, "row": number, "rows": 4, "caption": caption
        },
    )  # fmt: skip


def office_rows() -> list[SourceBlock]:
    return [
        row(i, OFFICE_HEADERS, cells, i, "offices", "offices.csv")
        for i, cells in enumerate(OFFICES, start=1)
    ]


def listing(index: int, section: tuple[str, ...], steps: list[str]) -> SourceBlock:
    text = "\n".join(f"{n}. {step}" for n, step in enumerate(steps, start=1))
    return SourceBlock(
        index=index,
        file_name="runbook.md",
        text=text,
        section=section,
        kind="list",
        structure={"items": len(steps), "numbered": True, "last": len(steps)},
    )


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("How many people work in the Porto office?", "64 is the head count for Porto [2]."),
        ("Who runs the Dublin office?", "Aoife Brennan is the office manager for Dublin [3]."),
        ("In which year did the Munich office open?", "2013: opened for Munich [4]."),
    ],
)
def test_a_row_named_by_a_cell_answers_with_the_column_asked_for(question, answer) -> None:
    result = structured_answer(frame_question(question), office_rows())

    assert result is not None and result.text == answer and result.cited == [int(answer[-3])]


def test_a_cell_read_from_a_row_is_asserted_as_data() -> None:
    # The `done` metadata's answer_values: a number as a number, text as written.
    count = structured_answer(
        frame_question("How many people work in the Porto office?"), office_rows()
    )
    manager = structured_answer(frame_question("Who runs the Dublin office?"), office_rows())
    assert count.values == [64] and manager.values == ["Aoife Brennan"]
    answer = ExtractiveStrategy("extractive", OfflineBackend()).answer(
        frame_question("Who runs the Dublin office?"), "", office_rows(), CallContext()
    )
    assert answer.values == ("Aoife Brennan",)


def test_a_word_of_a_cell_no_other_row_holds_names_the_row() -> None:
    blocks = [
        row(i, CONTACT_HEADERS, cells, i, file_name="policy.md")
        for i, cells in enumerate(CONTACTS, start=1)
    ]

    contact = structured_answer(frame_question("Who should I contact about my payslip?"), blocks)
    email = structured_answer(
        frame_question("Which email address handles pension questions?"), blocks
    )

    assert contact.text == "Gemma Whitlock is the contact for Payroll and payslips [1]."
    # An address is what a question asks for, never how it names a row.
    assert email.text == (
        "benefits@corvane.com is the email for Benefits, pension and health insurance [2]."
    )


def test_a_question_that_says_more_than_row_and_column_is_left_to_the_sentences() -> None:
    # "signed" is no column of the table: the row lookup must not answer with "opened".
    assert (
        structured_answer(frame_question("When was the Porto office lease signed?"), office_rows())
        is None
    )
    assert (
        structured_answer(frame_question("What is the weather like in Lisbon?"), office_rows())
        is None
    )


def test_several_rows_that_pass_a_comparison_answer_as_a_small_table() -> None:
    result = structured_answer(frame_question("Which offices opened before 2016?"), office_rows())

    assert result is not None
    lines = result.text.split("\n")
    assert lines[0] == "2 rows of offices match [1]:"
    assert lines[2:4] == ["| office | opened |", "|---|---|"]
    assert lines[4:] == ["| Lisbon | 2009 [1] |", "| Munich | 2013 [4] |"]


def office_table_chunk(index: int = 1) -> SourceBlock:
    """The offices as one chunk of several rows, which says how many rows the table has."""
    return SourceBlock(
        index=index,
        file_name="offices.csv",
        text="\n".join(" · ".join(cells) for cells in OFFICES),
        kind="table",
        structure={
            "headers": OFFICE_HEADERS, "rows": OFFICES, "first_row": 1, "row_count": 4,
            "caption": "offices", "table": 0,
        },
    )  # fmt: skip


@pytest.mark.parametrize(
    "question",
    ["How many offices are in Portugal?", "What is the number of offices in Portugal?"],
)
@pytest.mark.parametrize("chunks", ["rows", "table"])
def test_a_count_over_every_row_of_the_table_answers_with_the_number(question, chunks) -> None:
    blocks = office_rows() if chunks == "rows" else [office_table_chunk()]

    result = structured_answer(frame_question(question), blocks)

    assert result is not None and result.values == [2]
    assert result.text.startswith("2 [1]. 2 rows of offices match [1]:")


def test_a_count_over_part_of_the_table_lists_the_rows_without_a_number() -> None:
    # Three of the table's four rows were retrieved: two matching rows among them say nothing
    # of how many the table holds.
    blocks = [block for block in office_rows() if block.index != 3]

    result = structured_answer(frame_question("How many offices are in Portugal?"), blocks)

    assert result is not None and result.values == []
    assert result.text.startswith("2 rows of offices match [1]:")


def test_rows_of_another_table_of_the_file_do_not_complete_a_count() -> None:
    # Two sheets of one workbook under one caption: the first sheet's rows 1 to 3 and the
    # second sheet's row 4 are not every row of either.
    blocks = [
        SourceBlock(
            index=block.index,
            file_name="offices.csv",
            text=block.text,
            kind="row",
            structure={**block.structure, "table": 0 if block.index < 4 else 1},
        )  # fmt: skip
        for block in office_rows()
    ]

    result = structured_answer(frame_question("How many offices are in Portugal?"), blocks)

    assert result is not None and result.values == []


@pytest.mark.parametrize(
    "question",
    [
        "What is the average number of offices in Portugal?",
        # The people are the head count's: an amount the rows hold, not the rows.
        "How many people work in offices in Portugal?",
        # Beds are no thing of the table: the rows may hold them in a column not shown.
        "How many beds are there in Portugal?",
        # A condition on another column: not every Portuguese office opened after 2010.
        "How many offices opened after 2010 in Portugal?",
        "How many offices in Portugal have a head count of 64?",
        # A condition, whatever the table says of it.
        "How many offices are in Portugal after 2010?",
        "How many offices in Portugal are bigger than 100?",
        # A number the rows share, not the number asked for.
        "Which offices are in Portugal, the country with the largest number of offices?",
        "Which city has the same number of offices as Portugal?",
        "How many offices are in Portugal's largest city?",
    ],
)
def test_a_question_that_counts_something_else_gets_no_count_of_rows(question) -> None:
    result = structured_answer(frame_question(question), office_rows())

    assert result is None or result.values != [2]


def test_several_rows_that_hold_the_value_asked_for_answer_together() -> None:
    result = structured_answer(frame_question("Which offices are in Portugal?"), office_rows())

    assert result is not None and result.cited == [1, 2]
    assert "| Lisbon | Portugal [1] |" in result.text and "Porto" in result.text
    assert "Dublin" not in result.text


INVOICE_HEADERS = ["Invoice", "Client", "Amount"]
INVOICES = [
    ["INV-301", "Atlas Freight", "EUR 1,200"],
    ["INV-302", "Banco Norte", "EUR 800"],
    ["INV-303", "Banco Norte", "EUR 450"],
    ["INV-304", "Quay Labs", "EUR 300"],
]


def invoice_rows() -> list[SourceBlock]:
    return [
        row(i, INVOICE_HEADERS, cells, i, "invoices", "invoices.pdf")
        for i, cells in enumerate(INVOICES, start=1)
    ]


def test_rows_that_hold_a_named_cell_answer_only_what_their_columns_say() -> None:
    # Every Munich row answers who works there; no column of the invoices holds a contact.
    staff = [
        row(i, ["Name", "Office"], cells, i, "staff", "staff.csv")
        for i, cells in enumerate(
            [["Lukas Brenner", "Munich"], ["Rita Sousa", "Porto"], ["Jonas Albrecht", "Munich"]],
            start=1,
        )
    ]
    result = structured_answer(frame_question("Who works from the Munich office?"), staff)
    assert result is not None and result.cited == [1, 3]

    for question in (
        "Who is the client contact at Banco Norte?",
        "What is the phone number of Banco Norte?",
    ):
        assert structured_answer(frame_question(question), invoice_rows()) is None, question
    listed = structured_answer(
        frame_question("Which invoices are for Banco Norte?"), invoice_rows()
    )
    assert listed is not None and listed.cited == [2, 3]


def test_rows_listed_for_a_named_cell_are_explained_by_any_header_its_places_and_its_people():
    # The words a question says of rows are any header's, not only the named one's: a City
    # column is where an office is, a column of names is the staff, Assignee is what is assigned.
    staff = [
        row(i, ["Employee", "City"], cells, i, "directory", "directory.csv")
        for i, cells in enumerate(
            [["Lukas Brenner", "Munich"], ["Rita Sousa", "Porto"], ["Jonas Albrecht", "Munich"]],
            start=1,
        )
    ]
    for question in ("Who works from the Munich office?", "Who are the Munich staff?"):
        result = structured_answer(frame_question(question), staff)
        assert result is not None and result.cited == [1, 3], question
    tickets = [
        row(i, ["Ticket", "Assignee", "Status"], cells, i, "tickets", "tickets.csv")
        for i, cells in enumerate(
            [
                ["T-101", "Priya Nair", "Open"],
                ["T-102", "Marco Ruiz", "Open"],
                ["T-103", "Priya Nair", "Closed"],
            ],
            start=1,
        )  # fmt: skip
    ]
    result = structured_answer(frame_question("What is assigned to Priya Nair?"), tickets)
    assert result is not None and result.cited == [1, 3]
    # A yes-or-no question is not answered by a list of rows.
    assert structured_answer(frame_question("Has Banco Norte paid?"), invoice_rows()) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "What is step 3 of rolling back a deploy?",
            "Step 3 of “Rolling back a deploy”: Redeploy.",
        ),
        (
            "What is the second step of rotating credentials?",
            "Step 2 of “Rotating credentials”: Store.",
        ),
        (
            "What is the last step of rolling back a deploy?",
            "Step 4 of “Rolling back a deploy”: Tell.",
        ),
    ],
)
def test_an_ordinal_reads_the_list_under_the_heading_that_matches(question, expected) -> None:
    blocks = [
        listing(
            1, ("Runbook", "Rotating credentials"), ["Create.", "Store.", "Restart.", "Revoke."]
        ),
        listing(
            2, ("Runbook", "Rolling back a deploy"), ["Announce.", "Freeze.", "Redeploy.", "Tell."]
        ),
    ]

    result = structured_answer(frame_question(question), blocks)

    assert result is not None and result.text.startswith(expected)


def test_a_step_past_the_end_of_the_list_is_not_found(monkeypatch) -> None:
    blocks = [listing(1, ("Runbook", "Rolling back a deploy"), ["Announce.", "Freeze.", "Tell."])]
    provider = ExtractiveStrategy("extractive", OfflineBackend())

    answer = provider.answer(
        frame_question("What is step 9 of rolling back a deploy?"), "", blocks, CallContext()
    )

    assert answer.text == NOT_FOUND and answer.is_sufficient is False


def test_the_provider_never_quotes_a_table_row_as_a_sentence() -> None:
    provider = ExtractiveStrategy("extractive", OfflineBackend())

    answer = provider.answer(
        frame_question("What is the weather like in Lisbon?"), "", office_rows(), CallContext()
    )

    assert answer.text == NOT_FOUND


def test_how_much_i_can_spend_is_a_limit_not_what_a_contract_costs() -> None:
    headers = ["vendor", "service", "annual cost eur"]
    blocks = [
        row(1, headers, ["Northpeak Telecom", "Company mobile contracts", "39800"], 1),
        row(2, headers, ["Stratus Hosting", "Cloud hosting", "684000"], 2),
    ]

    assert (
        structured_answer(frame_question("How much can I spend on a company mobile phone?"), blocks)
        is None
    )
    answer = structured_answer(
        frame_question("How much do we pay Northpeak Telecom per year?"), blocks
    )
    assert answer.text == "39800 is the annual cost eur for Northpeak Telecom [1]."
