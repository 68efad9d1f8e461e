"""Answers read from a document's structure: a table row's cell, rows that match, a list's item.

- **Row lookup.** The question names a row by one of its cells ("the Porto office", "payroll")
  and asks for a column by its header or a word that means the same ("how many people" for
  "head count", "who runs" for "office manager", "how much" for "annual cost"). The answer
  leads with the cell's value and cites the row: "42 is the head count for Porto [1]."
- **Several rows.** "Which offices opened before 2015?" keeps the rows whose cell passes the
  condition (a comparison with a number or a year, or a value the question names) and answers
  with a small Markdown table, each row citing its passage.
- **Ordinal lookup.** "Step 3 of rolling back a deploy", "the second item", "the last step":
  the numbered list under the heading that best matches the rest of the question, read at
  that number (queries/answering/extractive/numbered.py).

Each returns None when the structure does not clearly answer, and the sentence quoting of
the provider takes over.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.chunk_kinds import KIND_ROW, KIND_TABLE
from knowledge.tables.cells import NUMBER as CELL_NUMBER
from knowledge.tables.cells import read_cell
from providers.tokenize import bm25_tokens
from queries.answering.checks import SYNONYM_GROUPS, question_terms
from queries.answering.extractive.numbered import ordinal_answer
from queries.answering.frame import (
    AMOUNT,
    DATE,
    DURATION,
    LIST,
    NUMBER,
    PERSON,
    PLACE,
    YES_NO,
    QuestionFrame,
)
from queries.answering.lexicon import words
from queries.answering.types import SourceBlock, StructuredAnswer
from queries.answering.vocabulary import spelled_like

_COMPARISON = re.compile(
    r"\b(?P<op>before|after|earlier than|later than|since|more than|over|above|at least|"
    r"greater than|larger than|less than|under|below|fewer than|at most|up to)\s+"
    r"(?P<value>\d[\d,.]*)",
    re.IGNORECASE,
)
_LOWER = {"before", "earlier than", "less than", "under", "below", "fewer than", "at most", "up to"}
_INCLUSIVE = {"since", "at least", "at most", "up to"}
_NUMERIC = re.compile(r"\d[\d,.]*")
_DATE_LIKE = re.compile(r"\b(?:1[89]|20)\d\d\b|\b\d{1,2}\s+[A-Z][a-z]+\b|\b[A-Z][a-z]+\s+\d{1,2}\b")
_PERSON_LIKE = re.compile(r"^[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)+$")
_PERSON_HEADERS = frozenset(bm25_tokens("name contact manager owner lead head person responsible"))
_PLACE_HEADERS = frozenset(bm25_tokens("city country location office site address region"))
MIN_ROWS_FOR_LIST = 2
_PLACE_NOUNS = frozenset(bm25_tokens(" ".join(words("place_nouns"))))
# The words for people: the synonym group of "people" ("staff", "employees", "team members").
_PEOPLE = frozenset().union(*(group for group in SYNONYM_GROUPS if "peopl" in group))


@dataclass(frozen=True)
class _Row:
    block: int
    rank: int
    table: tuple  # the file, the caption and the table's place: rows of one table share it
    headers: tuple[str, ...]
    cells: tuple[str, ...]
    number: int
    # The stems of what frames the table: its file name, caption and section path.
    frame: frozenset[str] = frozenset()
    # How many rows the whole table has (0 when the chunk does not say).
    total: int = 0


# Words a question about a row may hold besides the row's and the table's own: what kind of
# value it wants, and the verbs questions about people and places use.
_ROW_QUESTION_WORDS = frozenset(
    bm25_tokens(
        "year date day time number amount name value total work works working worked based "
        "located sit sits find reach person people someone current currently listed list "
        "include includes included cover covers covered offer offers offered have has get"
    )
)


def structured_answer(frame: QuestionFrame, blocks: list[SourceBlock]) -> StructuredAnswer | None:
    """Return the answer a table or a numbered list gives the question, or None."""
    if frame.constraint("item") or frame.constraint("relative"):
        answer = ordinal_answer(frame, blocks)
        # "the first point of contact" names no list: a table may still answer it.
        if answer is not None:
            return answer
    rows = table_rows(blocks)
    if not rows:
        return None
    if frame.plural or frame.answer_type == LIST:
        answer = rows_answer(frame.text, rows)
        if answer:
            return answer
    return row_answer(frame, rows)


# --- one row ---------------------------------------------------------------------------


def table_rows(blocks: list[SourceBlock]) -> list[_Row]:
    """Return every table row the blocks hold, once each, in the blocks' order."""
    rows: dict[tuple, _Row] = {}
    for rank, block in enumerate(blocks):
        structure = block.structure or {}
        headers = tuple(str(h) for h in structure.get("headers") or ())
        # Two tables of one file are told apart by their caption, else by their section, and
        # by their place among the file's tables (two sheets may share a caption).
        caption = str(structure.get("caption") or "")
        table = (block.file_name, caption or " › ".join(block.section), structure.get("table"))
        if block.kind == KIND_ROW and structure.get("cells"):
            found = [(int(structure.get("row") or 0), structure["cells"])]
            total = structure.get("rows")
        elif block.kind == KIND_TABLE and structure.get("rows"):
            first = int(structure.get("first_row") or 1)
            found = list(enumerate(structure["rows"], start=first))
            total = structure.get("row_count")
        else:
            continue
        total = total if isinstance(total, int) else 0
        frame = frozenset(
            bm25_tokens(
                " ".join([re.sub(r"[._-]", " ", block.file_name), *table[1:2], *block.section])
            )
        )
        for number, cells in found:
            # Rows and headers of one width, so a column index reads every row of the table.
            width = max(len(headers), len(cells))
            padded = headers + ("",) * (width - len(headers))
            key = (table, padded, number)
            if key not in rows:
                cells = tuple(map(str, cells)) + ("",) * (width - len(cells))
                rows[key] = _Row(block.index, rank, table, padded, cells, number, frame, total)
    return list(rows.values())


def row_answer(frame: QuestionFrame, rows: list[_Row]) -> StructuredAnswer | None:
    """Answer with the cell of the row the question names, in the column it asks for (every
    row holding that cell when several do, led by their number when the question asks how
    many of them there are: `_counts_these`)."""
    query = frame.text
    stems = set(bm25_tokens(query))
    best: tuple[tuple, _Row, list[int]] | None = None
    for row in rows:
        keys, score = _named_cells(row, rows, stems)
        if keys and (best is None or (score, -row.rank) > (best[0], -best[1].rank)):
            best = (score, row, keys)
    if best is None:
        return None
    _, row, keys = best
    same = [
        other
        for other in rows
        if (other.table, other.headers) == (row.table, row.headers)
        and other.cells[keys[0]].strip().lower() == row.cells[keys[0]].strip().lower()
    ]
    if len(same) >= MIN_ROWS_FOR_LIST and len(keys) == 1:
        # "Who works from the Munich office?": every row with that value answers, unless the
        # question asks for what no column holds ("who is the client contact at Banco Norte?"
        # of a table of invoices: its rows are not the contact).
        if frame.answer_type == YES_NO or _unlisted(frame, row, keys):
            return None
        counted = _counts_these(frame, row, keys[0], rows)
        return _table_answer(row.headers, keys[0], same, lead_with_count=counted)
    column = _asked_column(frame, stems, row, keys)
    if column is None or not row.cells[column].strip():
        return None
    if frame.constraint("limit") and not set(row.headers[column].lower().split()) & words(
        "limit_words"
    ):
        # "How much can I claim for a taxi?" asks for a limit, not what a supplier costs.
        return None
    if _unexplained(frame, row, keys, column):
        # The question says more than "this row, this column" ("when was it signed?").
        return None
    value, header = row.cells[column].strip(), row.headers[column]
    subject = row.cells[keys[0]].strip()
    header = header.lower()
    if header.split()[-1].endswith("ed"):
        # "opened", "signed": a verb, not a noun the value could be.
        text = f"{value}: {header} for {subject} [{row.block}]."
    else:
        text = f"{value} is the {header} for {subject} [{row.block}]."
    return StructuredAnswer(
        text, [row.block], [f"{row.headers[column]}: {value}"], values=[as_value(value)]
    )


def as_value(text: str):
    """Return a cell as the value an answer asserts: a number as a number ("4,250" 4250)."""
    cell = read_cell(text)
    if cell.type == CELL_NUMBER and isinstance(cell.value, int | float):
        return int(cell.value) if float(cell.value).is_integer() else cell.value
    return text


def _unexplained(frame: QuestionFrame, row: _Row, keys: list[int], column: int) -> list[str]:
    """Return the question's words that neither the row, its table nor the column explain
    (nor the question words: "long" of "how long")."""
    explained = _said_by_row(frame, row, keys)
    asked = set(bm25_tokens(row.headers[column]))
    explained |= {stem for group in SYNONYM_GROUPS if group & asked for stem in group}
    return [word for word, stem in question_terms(frame.text) if stem not in explained]


def _said_by_row(frame: QuestionFrame, row: _Row, keys: list[int]) -> set[str]:
    """Return the stems a row explains whatever is asked of it: its table's, its headers', its
    named cells' and the question words'."""
    explained = set(row.frame) | _ROW_QUESTION_WORDS | set(bm25_tokens(frame.wh))
    explained |= set(bm25_tokens(" ".join(row.headers)))
    for index in keys:
        explained |= set(bm25_tokens(row.cells[index]))
    return explained


def _unlisted(frame: QuestionFrame, row: _Row, keys: list[int]) -> list[str]:
    """Return the question's words that the rows holding its named cell leave unexplained: as
    `_unexplained`, but the listing shows whole rows, so a word may be any header's synonym
    ("who owns ..." of an Owner column), a near spelling of a header ("assigned" of Assignee),
    a place noun when the named column holds places ("the Munich office" of a City column), or
    a word for people when the rows are people ("the Munich staff")."""
    headers = set(bm25_tokens(" ".join(row.headers)))
    explained = _said_by_row(frame, row, keys)
    explained |= {stem for group in SYNONYM_GROUPS if group & headers for stem in group}
    if set(bm25_tokens(row.headers[keys[0]])) & _PLACE_HEADERS:
        explained |= _PLACE_NOUNS
    if _type_fit(PERSON, set(bm25_tokens(row.headers[0])), row.cells[0]) >= 1.5:
        explained |= _PEOPLE
    header_words = [word for header in row.headers for word in header.lower().split()]
    return [
        word
        for word, stem in question_terms(frame.text)
        if stem not in explained and not spelled_like(word.lower(), header_words)
    ]


def _named_cells(row: _Row, rows: list[_Row], stems: set[str]) -> tuple[list[int], tuple]:
    """Return the cells of a row the question names, and how well it names them.

    A cell is named when the question holds all its words ("Porto"), or a word of it that no
    other row of its column holds ("payslip" of "Payroll and payslips"); a number alone never
    names a row.
    """
    header_stems = set(bm25_tokens(" ".join(row.headers)))
    keys, whole, partial = [], 0, 0
    named: set[str] = set()
    for cell in row.cells:
        cell_stems = {s for s in bm25_tokens(cell) if not _NUMERIC.fullmatch(s)}
        if "@" not in cell and "://" not in cell and cell_stems and cell_stems <= stems:
            named |= cell_stems
    for index, cell in enumerate(row.cells):
        if "@" in cell or "://" in cell:
            continue  # an address is what a question asks for, never how it names a row
        cell_stems = {s for s in bm25_tokens(cell) if not _NUMERIC.fullmatch(s)}
        shared = (cell_stems & stems) - header_stems
        if not shared:
            continue
        if cell_stems <= stems:
            keys.append(index)
            whole += len(cell_stems)
            continue
        others = [
            other
            for other in rows
            if other is not row and other.headers == row.headers and index < len(other.cells)
        ]
        unique = {
            s for s in shared if not any(s in set(bm25_tokens(o.cells[index])) for o in others)
        }
        # A word a whole named cell of the row already holds names it there: "Travel
        # bookings" names the row, and "TravelNest travel desk" is what is asked of it.
        unique -= named
        if unique:
            keys.append(index)
            partial += len(unique)
    return keys, (whole, partial)


def _asked_column(frame: QuestionFrame, stems: set[str], row: _Row, keys: list[int]) -> int | None:
    """Return the column the question asks for: by its header, a synonym, the answer type."""
    wanted = frame.answer_type
    scores: list[tuple[float, int]] = []
    for index, header in enumerate(row.headers):
        if index in keys or index >= len(row.cells) or not header:
            continue
        header_stems = set(bm25_tokens(header))
        score = 2.0 * len(header_stems & stems)
        score += sum(
            1.0
            for group in SYNONYM_GROUPS
            if group & header_stems and group & (stems - header_stems)
        )
        if score == 0:
            continue
        scores.append((score + _type_fit(wanted, header_stems, row.cells[index]), index))
    if not scores:
        return None
    scores.sort(key=lambda pair: (-pair[0], pair[1]))
    return scores[0][1]


def _type_fit(wanted: str, header_stems: set[str], cell: str) -> float:
    """Return how well a cell holds the kind of answer the question asks for."""
    cell = cell.strip()
    if wanted == PERSON:
        return 1.5 * bool(_PERSON_LIKE.match(cell)) + 0.5 * bool(header_stems & _PERSON_HEADERS)
    if wanted in (NUMBER, AMOUNT, DURATION):
        digits = sum(ch.isdigit() for ch in cell)
        return 1.5 if digits and digits * 2 >= len(cell.replace(" ", "")) else 0.3 * bool(digits)
    if wanted == DATE:
        return 1.5 * bool(_DATE_LIKE.search(cell))
    if wanted == PLACE:
        return 1.0 * bool(header_stems & _PLACE_HEADERS)
    return 0.0


# --- several rows ----------------------------------------------------------------------


_NUMBER_OF = re.compile(r"(?<!average )(?<!mean )(?<!median )\bnumber of (?:the )?(\w+)", re.I)


def _counts_these(frame: QuestionFrame, row: _Row, column: int, rows: list[_Row]) -> bool:
    """Whether "how many" asks for the number of rows that hold the cell the question names in
    `column` ("How many offices are in Portugal?"), so the rows answer with their number.

    Only when nothing else could make it another number: the passages hold every row of the
    table (a count of the rows retrieval found is no count of the table's); the question
    counts the rows' own things (a text column's header, the table's caption or the named
    cell, not an amount a column of numbers holds: "how many people work in Portugal?" adds
    the head counts); and it puts no other condition the table could check (a comparison, a
    superlative, another header or cell: "how many offices opened after 2010 in Portugal?").
    """
    counted = _counted_noun(frame)
    compares = _COMPARISON.search(frame.text) or re.search(r"\bthan\b", frame.text, re.I)
    if not counted or compares or frame.constraint("superlative"):
        return False
    table = [other for other in rows if other.table == row.table and other.headers == row.headers]
    if not row.total or not set(range(1, row.total + 1)) <= {other.number for other in table}:
        return False
    amounts = _amount_columns(table)
    noun = set(bm25_tokens(counted))
    named = set(bm25_tokens(row.cells[column]))
    headers = [set(bm25_tokens(header)) for header in row.headers]
    texts = set().union(*(h for i, h in enumerate(headers) if i not in amounts))
    if not (_near(noun, texts) or noun & (row.frame | named)):
        return False
    said = {stem for _, stem in question_terms(frame.text)} - noun - named - _ROW_QUESTION_WORDS
    held = set().union(*headers, *(set(bm25_tokens(" ".join(other.cells))) for other in table))
    return not said & held


def _counted_noun(frame: QuestionFrame) -> str:
    """Return what "how many" or "the number of" counts, "" when the question asks neither (or
    asks for something else: "which country had the same number of athletes ...?")."""
    if frame.wh == "how many":
        return frame.counted
    match = _NUMBER_OF.search(frame.text) if frame.answer_type in (NUMBER, "") else None
    return match.group(1) if match else ""


def _amount_columns(rows: list[_Row]) -> set[int]:
    """Return the columns whose cells are numbers (an empty column is none)."""
    amounts = set()
    for index in range(len(rows[0].headers)):
        cells = [row.cells[index] for row in rows if row.cells[index].strip()]
        if cells and all(read_cell(cell).type == CELL_NUMBER for cell in cells):
            amounts.add(index)
    return amounts


def _near(stems: set[str], others: set[str]) -> bool:
    """Whether two sets of stems share one, or a synonym group holds one of each."""
    return bool(stems & others) or any(g & stems and g & others for g in SYNONYM_GROUPS)


def rows_answer(query: str, rows: list[_Row]) -> StructuredAnswer | None:
    """Answer "which X ..." with the rows of one table that pass the question's condition."""
    tables: dict[tuple, list[_Row]] = {}
    for row in rows:
        tables.setdefault((row.table, row.headers), []).append(row)
    stems = set(bm25_tokens(query))
    for (_, headers), its_rows in sorted(tables.items(), key=lambda kv: kv[1][0].rank):
        if len(its_rows) < MIN_ROWS_FOR_LIST:
            continue
        condition = _condition(query, stems, headers, its_rows)
        if condition is None:
            continue
        column, keep = condition
        matching = [row for row in its_rows if keep(row.cells[column])]
        if len(matching) < MIN_ROWS_FOR_LIST or len(matching) == len(its_rows):
            continue
        return _table_answer(headers, column, matching)
    return None


def _condition(query: str, stems: set[str], headers: tuple[str, ...], rows: list[_Row]):
    """Return (column, test) for the condition the question puts on a table's rows."""
    comparison = _COMPARISON.search(query)
    if comparison:
        limit = _number(comparison.group("value"))
        op = comparison.group("op").lower()
        column = _best_header(stems, headers, rows, numeric=True)
        if column is None or limit is None:
            return None

        def compare(cell: str) -> bool:
            value = _number((_NUMERIC.findall(cell) or [""])[0])
            if value is None:
                return False
            if op in _LOWER:
                return value <= limit if op in _INCLUSIVE else value < limit
            return value >= limit if op in _INCLUSIVE else value > limit

        return column, compare
    # A value the question names that some rows hold in one column ("end in 2027", "Portugal"):
    # numbers and names first, and never a word of the headers ("contracts" of "contract end").
    header_stems = set(bm25_tokens(" ".join(headers)))
    terms = [(word, stem) for word, stem in question_terms(query) if stem not in header_stems]
    names = {word.lower() for word in re.findall(r"(?<!^)\b[A-Z][\w'’-]+|\d[\d.,]*", query)}
    terms.sort(key=lambda pair: pair[0] not in names)
    for term in [stem for _, stem in terms]:
        for column in range(len(headers)):
            holding = [r for r in rows if term in set(bm25_tokens(r.cells[column]))]
            if 0 < len(holding) < len(rows):
                return column, (lambda cell, term=term: term in set(bm25_tokens(cell)))
    return None


def _best_header(stems: set[str], headers: tuple[str, ...], rows: list[_Row], numeric: bool):
    best, best_score = None, 0.0
    for index, header in enumerate(headers):
        values = [row.cells[index] for row in rows if index < len(row.cells)]
        if numeric and not all(_NUMERIC.search(value) for value in values if value.strip()):
            continue
        header_stems = set(bm25_tokens(header))
        score = 2.0 * len(header_stems & stems) + sum(
            1.0 for group in SYNONYM_GROUPS if group & header_stems and group & stems
        )
        if score > best_score:
            best, best_score = index, score
    return best


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _table_answer(
    headers: tuple[str, ...], column: int, rows: list[_Row], *, lead_with_count: bool = False
) -> StructuredAnswer:
    shown = list(dict.fromkeys([0, column]))
    names = ", ".join(row.cells[0] for row in rows)
    caption = rows[0].table[1] or rows[0].table[0] or "the table"
    # A lead-in (it ends with a colon), so the rows below are the claims the check reads.
    matches = (
        f"{len(rows)} rows of {caption} match" if len(rows) != 1 else f"1 row of {caption} matches"
    )
    lead = f"{matches} [{rows[0].block}]:"
    if lead_with_count:
        # The number asked for first, as the sentence whose claim it is.
        lead = f"{len(rows)} [{rows[0].block}]. {lead}"
    lines = [
        "| " + " | ".join(headers[i] or f"column {i + 1}" for i in shown) + " |",
        "|" + "---|" * len(shown),
    ]
    for row in rows:
        cells = [row.cells[i].replace("|", "/") for i in shown]
        cells[-1] = f"{cells[-1]} [{row.block}]"
        lines.append("| " + " | ".join(cells) + " |")
    cited = list(dict.fromkeys(row.block for row in rows))
    values = [len(rows)] if lead_with_count else []
    return StructuredAnswer(lead + "\n\n" + "\n".join(lines), cited, [names], values=values)
