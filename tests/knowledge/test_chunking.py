"""Recursive character chunking with exact source offsets."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.ingest.chunking import Chunk, chunk_segments, join_segments, split_text
from knowledge.ingest.extract import Segment, extract

FILES = Path(__file__).resolve().parents[1] / "fixtures" / "files"

SENTENCES = [
    "Marie Curie discovered polonium and radium in Paris.",
    "Tim Berners-Lee proposed the World Wide Web at CERN in 1989.",
    "Grace Hopper wrote the first compiler for the UNIVAC computer.",
    "Ada Lovelace published notes on the Analytical Engine in London.",
    "The adRAG pipeline indexes every chunk with BM25 and with vectors.",
]


def _long_document() -> str:
    paragraphs = []
    for index in range(12):
        # Paragraphs of varying length: some fit a chunk, some must be split.
        sentences = [SENTENCES[(index + k) % len(SENTENCES)] for k in range(2 + index)]
        lines = [" ".join(sentences[i : i + 3]) for i in range(0, len(sentences), 3)]
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def _assert_offsets_exact(text: str, spans: list) -> None:
    for span in spans:
        assert text[span.char_start : span.char_end] == span.text
        assert span.text == span.text.strip()


def test_chunks_fit_the_size_and_point_back_into_the_text() -> None:
    text = _long_document()

    spans = split_text(text, chunk_size=500, chunk_overlap=50)

    assert len(spans) > 5
    assert all(0 < len(span.text) <= 500 for span in spans)
    _assert_offsets_exact(text, spans)
    assert [span.char_start for span in spans] == sorted(span.char_start for span in spans)


def test_every_word_of_the_text_lands_in_some_chunk() -> None:
    text = _long_document()
    spans = split_text(text, chunk_size=200, chunk_overlap=20)

    covered = set()
    for span in spans:
        covered.update(range(span.char_start, span.char_end))

    uncovered = "".join(char for index, char in enumerate(text) if index not in covered)
    assert uncovered.strip() == ""


def test_neighbouring_chunks_of_one_long_paragraph_overlap_by_at_most_the_overlap() -> None:
    # Without sentence breaks the text splits into words, small enough to overlap.
    text = " ".join(SENTENCES * 8).replace(".", "")

    spans = split_text(text, chunk_size=300, chunk_overlap=50)

    overlaps = [
        previous.char_end - current.char_start
        for previous, current in zip(spans, spans[1:], strict=False)
    ]
    assert len(overlaps) >= 5
    assert all(0 < overlap <= 50 for overlap in overlaps)


def test_paragraphs_that_fit_stay_whole() -> None:
    first = "First paragraph here."
    second = "Second paragraph, a little longer.\nWith a second line."
    text = f"{first}\n\n{second}"

    assert [span.text for span in split_text(text, chunk_size=60, chunk_overlap=0)] == [
        first,
        second,
    ]


def test_matches_langchain_recursive_character_text_splitter_output() -> None:
    # Expected values produced by langchain-text-splitters 1.1.3 with the same separators.
    sentences = "Marie Curie studied radium. Pierre Curie studied crystals. They shared a prize."
    words = "one two three four five six seven eight nine ten"

    assert [s.text for s in split_text(sentences, chunk_size=40, chunk_overlap=10)] == [
        "Marie Curie studied radium",
        ". Pierre Curie studied crystals",
        ". They shared a prize.",
    ]
    assert [s.text for s in split_text(words, chunk_size=15, chunk_overlap=6)] == [
        "one two three",
        "three four",
        "four five six",
        "six seven",
        "seven eight",
        "eight nine ten",
    ]


def test_text_without_separators_falls_back_to_characters() -> None:
    text = "x" * 1200

    spans = split_text(text, chunk_size=500, chunk_overlap=50)

    assert [(s.char_start, s.char_end) for s in spans] == [(0, 500), (450, 950), (900, 1200)]


def test_empty_and_blank_text_give_no_chunks() -> None:
    assert split_text("") == []
    assert split_text(" \n\n \n ") == []


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (100, -1), (100, 101)])
def test_invalid_sizes_are_rejected(size: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        split_text("some text", chunk_size=size, chunk_overlap=overlap)


def test_chunk_segments_keeps_pages_and_document_offsets() -> None:
    segments = [
        Segment(text=" ".join(SENTENCES * 3), page=1),
        Segment(text="Short second page about CERN.", page=2),
        Segment(text="\n".join(SENTENCES * 2), page=3),
    ]
    document = join_segments(segments)

    chunks = chunk_segments(segments, chunk_size=200, chunk_overlap=30)

    assert [chunk.ordinal for chunk in chunks] == list(range(len(chunks)))
    assert {chunk.page for chunk in chunks} == {1, 2, 3}
    assert [chunk.page for chunk in chunks] == sorted(chunk.page for chunk in chunks)
    for chunk in chunks:
        assert document[chunk.char_start : chunk.char_end] == chunk.text
        assert len(chunk.text) <= 200
    page_two = [chunk for chunk in chunks if chunk.page == 2]
    assert page_two == [
        Chunk(
            ordinal=page_two[0].ordinal,
            text="Short second page about CERN.",
            page=2,
            char_start=len(segments[0].text) + 2,
            char_end=len(segments[0].text) + 2 + len("Short second page about CERN."),
        )
    ]


def test_extracted_pdf_chunks_carry_their_page_numbers() -> None:
    result = extract((FILES / "sample.pdf").read_bytes(), "sample.pdf")

    chunks = chunk_segments(result.segments, chunk_size=120, chunk_overlap=20)

    assert {chunk.page for chunk in chunks} == {1, 2}
    grace = next(chunk for chunk in chunks if "Grace Hopper" in chunk.text)
    assert grace.page == 2
    for chunk in chunks:
        assert result.text[chunk.char_start : chunk.char_end] == chunk.text


# --- structure-aware chunks -----------------------------------------------------------------

OFFICES_CSV = (
    b"office,country,head_count,opened\n"
    b"Lisbon,Portugal,212,2009\nPorto,Portugal,64,2016\nDublin,Ireland,31,2019\n"
)


def test_each_table_row_is_a_chunk_that_carries_its_headers_and_position() -> None:
    extracted = extract(OFFICES_CSV, "offices.csv")

    chunks = chunk_segments(extracted.segments)

    rows = [chunk for chunk in chunks if chunk.kind == "row"]
    assert [chunk.text for chunk in rows] == [
        "office: Lisbon · country: Portugal · head count: 212 · opened: 2009",
        "office: Porto · country: Portugal · head count: 64 · opened: 2016",
        "office: Dublin · country: Ireland · head count: 31 · opened: 2019",
    ]
    assert rows[1].structure == {
        "headers": ["office", "country", "head count", "opened"],
        "cells": ["Porto", "Portugal", "64", "2016"],
        "row": 2,
        "rows": 3,
        "caption": "offices",
        "table": 0,
    }
    # Offsets point back at the row's record in the document text.
    _assert_offsets_exact(extracted.text, rows)
    # The caption names what the rows are, for retrieval.
    assert rows[0].index_text == "offices\n" + rows[0].text


def test_a_run_of_rows_is_one_more_chunk_for_questions_about_several_rows() -> None:
    chunks = chunk_segments(extract(OFFICES_CSV, "offices.csv").segments)

    runs = [chunk for chunk in chunks if chunk.kind == "table"]
    assert len(runs) == 1
    assert runs[0].structure["first_row"] == 1 and runs[0].structure["row_count"] == 3
    assert runs[0].structure["rows"][2] == ["Dublin", "Ireland", "31", "2019"]
    assert runs[0].text.count("\n") == 2 and "|" not in runs[0].text


def test_a_numbered_list_stays_whole_under_its_heading_and_knows_its_last_number() -> None:
    source = "# Runbook\n\n## Rolling back a deploy\n\n" + "\n".join(
        f"{n}. Step {n} of the rollback: do the thing number {n} carefully." for n in range(1, 9)
    )

    chunks = chunk_segments(extract(source.encode(), "runbook.md").segments)

    assert len(chunks) == 1
    (chunk,) = chunks
    assert chunk.kind == "list" and chunk.section == ("Runbook", "Rolling back a deploy")
    assert chunk.text.startswith("1. Step 1 of the rollback")
    assert chunk.structure == {"items": 8, "numbered": True, "last": 8}
    # The heading is indexed with the text, never part of it.
    assert "Rolling back" not in chunk.text
    assert chunk.index_text.startswith("Runbook › Rolling back a deploy\n1. ")


def test_prose_never_straddles_two_sections() -> None:
    source = (
        "# Leave\n\n## Annual leave\n\nYou get 25 days.\n\n## Sick leave\n\nCall your manager.\n"
    )

    chunks = chunk_segments(extract(source.encode(), "policy.md").segments)

    assert [(chunk.section[-1], chunk.text) for chunk in chunks] == [
        ("Annual leave", "You get 25 days."),
        ("Sick leave", "Call your manager."),
    ]
