"""The programs tried for a question over the tables the store found, each table's best with
its standing: the choice among them is the highest standing (choice.stands_highest).

A program that reads every name the question says stands before one that does not, whatever
their fit: "which subject does the teacher of Web Design teach?" is read from the sheet of
courses holding Web Design (then joined to the teachers' sheet), not from the teachers' sheet
its other words match. Two tables linked by a column that names the other's rows are tried as
one too, and stand in place of either when the question asks of both
(knowledge/tables/joined.py). Nothing here reads the database: the store loads the tables.
"""

from __future__ import annotations

from django.conf import settings

from knowledge.tables.choice import TableChoice
from knowledge.tables.follows import followed
from knowledge.tables.joined import before_either, joined_tables, reading_both
from knowledge.tables.judge import probability
from knowledge.tables.rules import explained, relevance, signals, standing, table_words


def tried(query: str, first: str, tables: list[tuple]) -> list[tuple[TableChoice, tuple]]:
    """Return, for the tables (id, vote, (grid, document id, file name, KB)), each one's best
    program for the question's first step with its standing (rules.standing), in their order,
    then those of two tables read as one that stand in place of either."""
    words = {table_id: table_words(loaded[0]) for table_id, _, loaded in tables}
    found = []
    for table_id, vote, loaded, joined_as in [
        *((*table, None) for table in tables),
        *joined_tables(query, tables),
    ]:
        # The words of the other tables: what this one's program leaves may be theirs.
        elsewhere = frozenset().union(*(w for other, w in words.items() if other != table_id))
        choice = _best(query, first, table_id, vote, loaded, joined_as)
        if choice is not None:
            found.append((choice, standing(choice, first, elsewhere)))
    return before_either(found, first)


def _best(query: str, first: str, table_id: int, vote: float, loaded: tuple, joined_as):
    """Return a table's best program for the question, weighed, or None when none follows it."""
    grid, document_id, file_name, _ = loaded
    found = followed(first, grid)
    if not found:
        return None
    choice = TableChoice(
        table_id, document_id, file_name, grid, explained(first, found), relevance(query, grid),
        vote=vote, joined=joined_as,
    )  # fmt: skip
    _weigh(first, choice, found)
    if joined_as is not None and first == query:
        # Of two tables read as one, the likely program that reads both, when the judge would
        # let it answer; not when the question has a second step reading the other table after
        # the first (steps.py).
        lead = choice.best
        choice.best = reading_both(first, choice, found) or lead
        if choice.best is not lead:
            _weigh(first, choice, found)
            if choice.confidence < settings.TABLE_TENTATIVE_MIN:
                choice.best = lead
                _weigh(first, choice, found)
    return choice


def _weigh(question: str, choice: TableChoice, found: list) -> None:
    weighed = signals(question, choice, found)
    choice.confidence, choice.share = probability(weighed), weighed["share"]
