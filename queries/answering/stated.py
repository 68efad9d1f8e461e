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
_FUNCTION_WORDS = frozenset(
    "a an and at by for from in is it no not of on or the to was yes".split()
)


def _plain(text: str) -> str:
    """Return text as compared: lowercased, one kind of dash and quote, spaces collapsed."""
    text = _DASHES.sub("-", text.lower()).replace("’", "'").replace("“", '"').replace("”", '"')
    return " ".join(text.split())


def _find(text: str, cell: str) -> re.Match | None:
    """Return where a text says a cell, as a whole word or phrase: a number not inside a longer
    number ("1" is not said by "1,250" or "1.5")."""
    return re.search(rf"(?<!\w)(?<!\d[.,]){re.escape(cell)}(?!\w)(?![.,]\d)", text)


def _sayable(cell: str) -> bool:
    """Return whether a cell is one an answer can be read to state: a number, or a text of
    more than one character that is not one of the words sentences are made of ("A", "a")."""
    if re.fullmatch(r"[\d.,%+-]+", cell):
        return any(ch.isdigit() for ch in cell)
    return len(cell) > 1 and cell not in _FUNCTION_WORDS


def stated_values(question: str, answer: str, blocks: list[SourceBlock]) -> list:
    """Return the cells of one column of the rows the answer's first sentence cites that the
    sentence states and the question does not name; none when it states several columns', or
    the sentence cites nothing."""
    line = next((line.strip() for line in answer.splitlines() if line.strip()), "")
    # The first sentence of the answer's first line: a table's rows below a lead ("3 rows
    # match:") are no value the answer states.
    first = next(iter(split_claims(line)), "")
    if first.rstrip().endswith(":"):
        # A lead into rows or a list ("16 rows match [1]:") states no value of them.
        return []
    cited = {int(n) for group in CITATION.findall(first) for n in re.split(r"[,;]", group)}
    said, asked = _plain(CITATION.sub(" ", first)), _plain(question)
    cells = [
        (row.table, row.headers[column], cell.strip())
        for row in table_rows([block for block in blocks if block.index in cited])
        for column, cell in enumerate(row.cells)
        if _sayable(_plain(cell.strip())) and not _find(asked, _plain(cell.strip()))
    ]
    columns: dict[tuple, dict[str, int]] = {}
    # The longest cells first, each taking the words it says: "Ana" is not said again by the
    # "Ana Costa" already read. The values keep the rows' order.
    for place, (table, header, cell) in sorted(enumerate(cells), key=lambda e: -len(e[1][2])):
        found = _find(said, _plain(cell))
        if found is None:
            continue
        said = said[: found.start()] + " " * len(found.group()) + said[found.end() :]
        columns.setdefault((table, header), {}).setdefault(cell, place)
    if len(columns) != 1:
        return []
    (values,) = columns.values()
    return [as_value(cell) for cell in sorted(values, key=values.get)]
