"""What the table store chose for a question: a table's best program, with its standing.

`TableChoice` is what the rules that decide whether a program answers read
(knowledge/tables/rules.py), and what the store turns into a computed passage
(knowledge/tables/store.py); a `Step` is a column read after the program (knowledge/tables/
steps.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from knowledge.tables.parser import Candidate
from knowledge.tables.programs import Grid


@dataclass
class Step:
    """A second step after the program: a column read from the row it found, in its own table
    or in another table joined on a shared key column."""

    # "row": a second question about the row; "join": the same row in another table; "word": a
    # word that answers ("yes", "more"); "one": the first of the cells read, when one is asked for
    kind: str
    header: str
    value: str
    words: str
    chunk_id: int | None
    row_number: int


@dataclass(frozen=True)
class Joined:
    """Two tables read as one (knowledge/tables/joined.py): the first's number of columns (those
    before the second's), the second's id, and each row's chunk of the second's row it names."""

    columns: int
    second: int
    chunks: tuple[int | None, ...]


@dataclass
class TableChoice:
    table_id: int
    document_id: int
    file_name: str
    grid: Grid
    best: Candidate
    relevance: float
    steps: list[Step] = field(default_factory=list)
    # How sure the parser is of the program: its probability among the candidates.
    confidence: float = 0.0
    # The ranker's probability of the program's result among the programs that follow the
    # question (follows.follows_the_question): what is left when the rules set aside its likeliest.
    share: float = 0.0
    # The table's share of the BM25 votes (1.0 when every table is tried).
    vote: float = 1.0
    # The tables of the question: (table id, grid), the chosen one's document's first.
    others: list[tuple[int, Grid]] = field(default_factory=list)
    # A program the rules do not admit but the judge does not rule out (TABLE_TENTATIVE_MIN):
    # it answers only when the passages find nothing, and is never verified.
    tentative: bool = False
    # Tentative only as a lookup left to its row's chunk (rules.left_to_its_row): not when a
    # first step named the row, which no passage of the question's words finds (nested.py).
    left_to_its_row: bool = False
    # The cell a first program read from another table for a clause of the question ("the team
    # that owns Billing": Payments), which this program's question says in its place
    # (knowledge/tables/nested.py).
    before: Step | None = None
    # Two tables read as one; None for one table.
    joined: Joined | None = None


def stands_highest(tried: list[tuple[TableChoice, tuple]]) -> TableChoice | None:
    """Return the tried table's program whose standing (rules.standing) is highest, the first
    tried on a tie; None when no table was tried."""
    return max(tried, key=lambda pair: pair[1], default=(None, ()))[0]
