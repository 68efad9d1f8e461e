"""A question about a thing another table names by a clause: "how many engineers are in the
team that owns Billing?".

"The team that owns Billing" is a question of its own ("which team owns Billing?"), answered
from one table (the owners' sheet: Payments); the rest is asked of another table with its
answer in its place ("how many engineers are in the team Payments?", the teams' slide: 6).
`nested_choice` asks both through the store's `choose` and returns the second program with
the first as the step before it. Only across two tables: within one table the clause is a
condition the parser reads itself ("the player who scored the most"), so a question over one
table (every WikiTableQuestions question) is left to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings

from knowledge.tables.asked import asked_column
from knowledge.tables.choice import Step, TableChoice
from knowledge.tables.programs import HEADER_OPS, kept_rows
from knowledge.tables.wording import in_words

# "the team that owns Billing", "the carrier which handled S-1004", "the agent who closed T-7":
# a noun (one or two words), then a clause to the end of the question or to a comma.
_CLAUSE = re.compile(
    r"\bthe (?P<noun>[a-z]+(?: [a-z]+)?) (?:that|which|who) (?P<clause>[^,?!.]+)",
    re.IGNORECASE,
)


def nested_choice(
    kb_ids: list[int], query: str, filters, choose: Callable[..., TableChoice | None]
) -> TableChoice | None:
    """Return the program over a second table for a question whose thing a clause names from a
    first table, with the first program's cell as its step before, or None."""
    match = _CLAUSE.search(query)
    if match is None:
        return _by_role(kb_ids, query, filters, choose)
    inner = choose(kb_ids, f"Which {match['noun']} {match['clause'].strip()}?", filters)
    if inner is None or inner.steps or not _one_cell(inner):
        return None
    if inner.tentative and inner.confidence < settings.TABLE_ANSWER_MIN:
        # A lookup the rules leave to its row's passage may still name the thing: no passage
        # answers the whole question, so the judge decides.
        return None
    value = inner.best.result.values[0]
    outer_query = f"{query[: match.start()]}the {match['noun']} {value}{query[match.end() :]}"
    outer = choose(kb_ids, outer_query, filters)
    if outer is None or outer.table_id == inner.table_id:
        return None
    return _after(inner, outer)


# "Which sites does our treasurer look after?": a role one table's cell says ("Treasurer" of
# the volunteers' Role), asked of another table by the name in its row.
_ROLE = re.compile(r"\bour (?P<role>[a-z]+(?: [a-z]+)?)\b", re.IGNORECASE)


def _by_role(kb_ids, query: str, filters, choose) -> TableChoice | None:
    """Return the program over a second table for a question that names a person by the role a
    first table gives them ("our treasurer": Nia Evans), with the first as its step before, or
    None. The question asks which rows or how many ("which sites does our treasurer look
    after?"), not a detail of the person ("our treasurer's phone", "the email of our chair");
    the role is a whole cell of one row, the first program sure of it; the second table names
    the person in one column only."""
    if not re.match(r"\s*(?:which|what|how many)\b", query, re.IGNORECASE):
        return None
    for match in _ROLE.finditer(query):
        after, before = query[match.end() :], query[: match.start()]
        if re.match(r"['’]s\b", after) or re.search(r"\bof\s*$", before):
            continue
        words = match["role"].split()
        for role in words[:1] + ([" ".join(words)] if len(words) == 2 else []):
            inner = choose(kb_ids, f"Who is the {role}?", filters)  # (no "our": no recursion)
            if not _names_one(inner, role):
                continue
            value = str(inner.best.result.values[0])
            end = match.start() + 4 + len(role)
            outer = choose(kb_ids, f"{before}{value}{query[end:]}", filters)
            if (
                outer is not None
                and outer.table_id != inner.table_id
                and _reads_the_name(outer, value)
            ):
                if outer.left_to_its_row and _reads_the_asked_rows(outer, f"{before}{value}"):
                    # The question does not name the row the first step found: no passage of
                    # its words reads it.
                    outer.tentative = False
                return _after(inner, outer)
            return None
    return None


def _names_one(inner: TableChoice | None, role: str) -> bool:
    """Whether the first program reads one person by a role no other row holds."""
    if inner is None or inner.steps or not _one_cell(inner):
        return False
    if inner.tentative and inner.confidence < settings.TABLE_ANSWER_MIN:
        return False
    said = [c for c in inner.best.program.conditions if c.op == "eq" and c.value == role.lower()]
    return len(said) == 1 and len(kept_rows(inner.grid, tuple(said))) == 1


def _reads_the_asked_rows(outer: TableChoice, question: str) -> bool:
    """Whether the second program looks up the column the question's noun asks for ("which
    workshops": Workshop), not a count of them nor a detail the table may not hold."""
    program = outer.best.program
    return program.op == "values" and asked_column(question, outer.grid) == program.target


def _reads_the_name(outer: TableChoice, value: str) -> bool:
    """Whether the second program keeps its rows by the name, which one column holds."""
    program, name = outer.best.program, value.lower()
    said = [c for c in program.conditions + program.anchors if c.op == "eq" and c.value == name]
    columns = [column for column in outer.grid.columns if name in column.folded]
    return bool(said) and len(columns) == 1


def _after(inner: TableChoice, outer: TableChoice) -> TableChoice:
    """Return the second program with the first as the step before it."""
    row = inner.best.result.rows[0]
    program = inner.best.program
    outer.before = Step(
        "before",
        inner.grid.columns[program.target].name,
        str(inner.best.result.values[0]),
        in_words(program, inner.grid, inner.best.result),
        inner.grid.chunk_ids[row],
        inner.grid.row_numbers[row],
    )
    # As sure as the less sure of the two steps.
    outer.confidence = min(outer.confidence * outer.vote, inner.confidence * inner.vote)
    outer.vote = 1.0
    return outer


def _one_cell(choice: TableChoice) -> bool:
    """Whether a program read one cell of one row (a name, not a count)."""
    result = choice.best.result
    return (
        not result.computed
        and len(result.values) == 1
        and len(result.rows) == 1
        and choice.best.program.target is not None
        and choice.best.program.op not in HEADER_OPS  # a header is no cell of the row
    )
