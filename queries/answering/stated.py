"""The values an answer in words asserts: the cells of the rows it cites that it states.

A model's answer ("The Porto office is led by Ana Costa [2].") asserts a value as much as a
table program's result does. Its `answer_values` (the `done` metadata) are the cells of the
rows its first sentence cites that the sentence states and the question does not name, when
they are all of one column: several columns stated ("Porto, opened 2019, led by Ana Costa")
say no one value.
"""

from __future__ import annotations

import re

from queries.answering.checks import CITATION
from queries.answering.extractive.structured import as_value, table_rows
from queries.answering.sentences import split_claims
from queries.answering.types import SourceBlock

_DASHES = re.compile(r"[‐-―−]")


def _plain(text: str) -> str:
    """Return text as compared: lowercased, one kind of dash and quote, spaces collapsed."""
    text = _DASHES.sub("-", text.lower()).replace("’", "'").replace("“", '"').replace("”", '"')
    return " ".join(text.split())


def _says(text: str, cell: str) -> bool:
    """Return whether a text says a cell, as a whole word or phrase."""
    return re.search(rf"(?<!\w){re.escape(cell)}(?!\w)", text) is not None


def stated_values(question: str, answer: str, blocks: list[SourceBlock]) -> list:
    """Return the cells of one column of the rows the answer's first sentence cites that the
    sentence states and the question does not name; none when it states several columns', or
    the sentence cites nothing."""
    line = next((line.strip() for line in answer.splitlines() if line.strip()), "")
    # The first sentence of the answer's first line: a table's rows below a lead ("3 rows
    # match:") are no value the answer states.
    first = next(iter(split_claims(line)), "")
    cited = {int(n) for group in CITATION.findall(first) for n in re.split(r"[,;]", group)}
    said, asked = _plain(CITATION.sub(" ", first)), _plain(question)
    columns: dict[tuple, list[str]] = {}
    for row in table_rows([block for block in blocks if block.index in cited]):
        for column, cell in enumerate(row.cells):
            text = _plain(cell.strip())
            if text and _says(said, text) and not _says(asked, text):
                found = columns.setdefault((row.table, row.headers[column]), [])
                if cell.strip() not in found:
                    found.append(cell.strip())
    if len(columns) != 1:
        return []
    return [as_value(cell) for cell in next(iter(columns.values()))]
