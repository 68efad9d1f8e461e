"""The steps after a table's program: a second question about the row it found ("which vessel
sails first, and who is its captain?"), the same row in another table joined on a shared
key column (a workbook's other sheet), or the word a question offers for a comparison of two
named rows ("does Bergen have more or less staff than Vigo?": "more").
"""

from __future__ import annotations

import re

from knowledge.tables.asked import holds_times
from knowledge.tables.cells import DATE, leading_number, names_its_rows
from knowledge.tables.choice import Step, TableChoice
from knowledge.tables.programs import Grid, display, fold
from knowledge.tables.question import header_overlap, read_question, stem

# "Which vessel sails first, and who is its captain?": a question, then one about its answer.
_SECOND_QUESTION = re.compile(
    r"^(?P<first>.+?)(?:,\s*|\s+)and\s+(?P<second>(?:who|what|which|when|where|how)\b.*"
    r"\b(?:its|their|his|her|that|this)\b.*)$",
    re.IGNORECASE,
)


def split_two_step(query: str) -> tuple[str, str]:
    """Return a question's first step and its second ("" when it asks one thing)."""
    match = _SECOND_QUESTION.match(query.strip())
    if not match:
        return query, ""
    return match.group("first").strip(), match.group("second").strip()


def _result_row(choice: TableChoice) -> int | None:
    """Return the one row a program's result is read from, if it is one."""
    result = choice.best.result
    if result.computed or len(result.values) != 1 or not result.rows:
        return None
    return result.rows[-1] if choice.best.program.op in ("next", "previous") else result.rows[0]


def _best_column(words: str, grid: Grid, exclude: set[int]) -> tuple[int, float] | None:
    question = read_question(words)
    scored = [
        (index, header_overlap(column.name, question))
        for index, column in enumerate(grid.columns)
        if index not in exclude
    ]
    scored = [(index, overlap) for index, overlap in scored if overlap >= 0.5]
    return max(scored, key=lambda pair: pair[1]) if scored else None


def same_row_step(second: str, choice: TableChoice) -> Step | None:
    """The second step of a two-step question: a column of the row the first step found."""
    row = _result_row(choice)
    if row is None:
        return None
    target = choice.best.program.target
    column = _best_column(second, choice.grid, {target} if target is not None else set())
    if column is None:
        return None
    index = column[0]
    value = choice.grid.columns[index].texts[row]
    if not value:
        return None
    name = choice.grid.columns[index].name
    return Step("row", name, value, f"then read {name} of that row",
                choice.grid.chunk_ids[row], choice.grid.row_numbers[row])  # fmt: skip


# A comparison offered as two words: the word for the larger number (a later date, a higher
# place in a list) and the word for the smaller.
_LARGER = ("more", "higher", "greater", "larger", "bigger", "longer", "after", "later", "above")
_SMALLER = ("less", "fewer", "lower", "smaller", "shorter", "before", "earlier", "below")
_OFFERED = re.compile(rf"\b({'|'.join(_LARGER + _SMALLER)}) or ({'|'.join(_LARGER + _SMALLER)})\b")
# "Above" a row in a ranking is a smaller number (a better place); in a list, an earlier row.
_RANKED = re.compile(r"\b(rank|ranked|ranking|place|placed|finish|finished|position|seed|seeded)\b")
_RANK_HEADER = re.compile(r"^(rank|pos|position|place|no|#|pick|seed)\b")
_NUMBER = re.compile(r"[\d.,]+")
_LISTED = re.compile(r"\b(listed|list|table|chart|column)\b")


def offered_word_step(query: str, choice: TableChoice) -> Step | None:
    """The word a question offers for comparing the two rows it names ("more or less",
    "before or after", "above or below"), said of the row it names first: the comparison's
    answer is the word, not the row that has more."""
    program, result = choice.best.program, choice.best.result
    if program.op not in ("more", "less") or len(program.anchors) != 2 or len(result.rows) != 2:
        return None
    text = fold(query)
    match = _OFFERED.search(text)
    if not match or (match.group(1) in _LARGER) == (match.group(2) in _LARGER):
        return None
    larger, smaller = sorted(match.groups(), key=lambda word: word not in _LARGER)
    values = [a.value for a in program.anchors]
    if not all(isinstance(value, str) and value for value in values) or any(
        _NUMBER.fullmatch(value) and re.search(rf"\bthan {re.escape(value)}\b", text)
        for value in values
    ):
        return None  # "more or less than 6 goals": a quantity, not the row a 6 is in
    said_at = _said_at(text, values)
    if said_at is None:
        return None
    first, other = (0, 1) if said_at[0] < said_at[1] else (1, 0)
    rows, grid = result.rows, choice.grid
    name = grid.columns[program.anchors[first].column].texts[rows[first]]
    other_name = grid.columns[program.anchors[other].column].texts[rows[other]]
    key = grid.columns[program.key]
    mine, theirs = key.numbers[rows[first]], key.numbers[rows[other]]
    if larger == "above" and _LISTED.search(text):
        word = larger if rows[first] < rows[other] else smaller
        words = f"then compared where {name} and {other_name} are listed: {word}"
        return Step("word", "", word, words, None, grid.row_numbers[rows[first]])
    if mine is None or theirs is None or mine == theirs:
        return None
    if larger in ("above", "higher") and (
        _RANKED.search(text) or _RANK_HEADER.search(fold(key.name))
    ):
        # A place: above is where a table ordered by the key lists first (a smaller rank or
        # golf score, more points); an unordered table's ranks count up.
        numbers = [number for number in key.numbers if number is not None]
        descending = numbers == sorted(numbers, reverse=True) and numbers != sorted(numbers)
        above = mine > theirs if descending else mine < theirs
        word = larger if above else smaller
    else:
        word = larger if mine > theirs else smaller
    return _compared(choice, first, other, word)


def _compared(choice: TableChoice, first: int, other: int, word: str) -> Step:
    """The step that answers a comparison of two named rows with a word, said of the row the
    question names first ("then compared Staff of Vigo (38) with that of Bergen (212): less")."""
    program, rows, grid = choice.best.program, choice.best.result.rows, choice.grid
    key = grid.columns[program.key]
    name = grid.columns[program.anchors[first].column].texts[rows[first]]
    other_name = grid.columns[program.anchors[other].column].texts[rows[other]]
    words = (
        f"then compared {key.name} of {name} ({key.texts[rows[first]]}) with that of "
        f"{other_name} ({key.texts[rows[other]]}): {word}"
    )
    return Step("word", "", word, words, None, grid.row_numbers[rows[first]])


# A question answered yes or no: it opens with a verb ("is K2 taller than Kangchenjunga?",
# "did Oakley play more minutes than Parish?").
_POLAR = re.compile(r"^(is|was|were|are|did|does|do|has|have|had)\b")


def yes_or_no_step(query: str, choice: TableChoice) -> Step | None:
    """Whether the row a question names first has the more (the less) of what a comparison of
    two named rows weighs, said yes or no when the question asks it so ("is the C-5's range
    greater than the C-1's?": yes), not the row that has more. A question that offers two
    answers ("Tamil or Telugu?") is left to the comparison."""
    program, result = choice.best.program, choice.best.result
    if program.op not in ("more", "less") or program.key is None or len(result.rows) != 2:
        return None
    text = fold(query)
    values = [anchor.value for anchor in program.anchors]
    if (
        not _POLAR.match(text)
        or " or " in text
        or not all(isinstance(v, str) and v for v in values)
    ):
        return None
    said_at = _said_at(text, values)
    if said_at is None:
        return None
    first, other = (0, 1) if said_at[0] < said_at[1] else (1, 0)
    rows, key = result.rows, choice.grid.columns[program.key]
    mine, theirs = key.numbers[rows[first]], key.numbers[rows[other]]
    if mine is None or theirs is None or mine == theirs:
        return None
    return _compared(
        choice, first, other, "yes" if (mine > theirs) == (program.op == "more") else "no"
    )


def same_yes_or_no_step(query: str, choice: TableChoice) -> Step | None:
    """Whether the row a question names before "the same … as <row>" is one of the rows that
    share that row's cell, said yes or no when the question asks it so ("does Vigo have the
    same manager as Faro?"), not the rows that share it."""
    program, result = choice.best.program, choice.best.result
    text = fold(query)
    if program.op != "same" or not _POLAR.match(text) or " or " in text or " same " not in text:
        return None
    grid, anchor = choice.grid, program.anchors[0]
    column = grid.columns[anchor.column]
    before = text[: text.index(" same ")]
    named = [
        row for row in range(grid.size)
        if row != result.rows[0] and len(column.folded[row]) > 1
        and re.search(rf"(?<!\w){re.escape(column.folded[row])}(?!\w)", before)
    ]  # fmt: skip
    if not named:
        return None
    row = max(named, key=lambda r: len(column.folded[r]))  # "Bergen North", not "Bergen"
    word = "yes" if row in result.rows[1:] else "no"
    words = f"then looked for {column.texts[row]} among them: {word}"
    return Step("word", "", word, words, grid.chunk_ids[row], grid.row_numbers[row])


# A number a yes-or-no question measures against ("are there at least 10 songs?", "did Kent score
# more or less than 150 runs?"): the words that compare, then the number.
_SAID_THRESHOLD = re.compile(
    r"\b(?P<words>(?:more|less|fewer|greater|higher|lower|above|below|over|under)"
    r"(?:(?: or |/)(?:more|less|fewer|greater|higher|lower|above|below))?"
    r"|at least|at most|no more|no less)(?: than)? \$?(?P<number>\d[\d,]*(?:\.\d+)?)\b"
)
_OVER = frozenset({"more", "greater", "higher", "above", "over"})
# Words of the rest of the question that name an amount to read, not rows to count.
_NAMES_AN_AMOUNT = re.compile(r"\b(number|total|amount|average|score|attendance|rank|age)\b")


def threshold_question(query: str) -> tuple[str, str, float] | None:
    """Return the question a yes-or-no comparison with a number asks first, the words that
    compare and the number ("are there at least 10 songs in the table?": "how many there songs
    in the table?", "at least", 10), or None. The answer is that question's, measured against
    the number (`threshold_step`). On WikiTableQuestions' training split, the first program for
    the question left was right against the number 36 times in 50 (the dev fifth's 5 in 5
    included), and compared nothing for 7 more (a cell not a number, no program)."""
    text = fold(query)
    match = _SAID_THRESHOLD.search(text)
    if not _POLAR.match(text) or match is None:
        return None
    rest = " ".join((text[: match.start()] + " " + text[match.end() :]).split()[1:])
    lead = "what is" if _NAMES_AN_AMOUNT.search(rest) else "how many"
    return f"{lead} {rest}?", match.group("words"), float(match.group("number").replace(",", ""))


def threshold_step(words: str, number: float, choice: TableChoice) -> Step | None:
    """The yes or no (or the word offered: "more or less", "above or below") of the program's one
    number measured against the number the question says; None when it is no number, or the
    two are equal and two words are offered."""
    result = choice.best.result
    if len(result.values) != 1:
        return None
    value = result.values[0]
    found = value if isinstance(value, float) else leading_number(str(value))
    if found is None:
        return None
    offered = re.split(r" or |/", words)
    if len(offered) == 2:
        larger, smaller = sorted(offered, key=lambda word: word not in _OVER)
        if found == number:
            return None
        word = larger if found > number else smaller
    else:
        holds = {
            "at least": found >= number, "no less": found >= number,
            "at most": found <= number, "no more": found <= number,
        }.get(words, found > number if words in _OVER else found < number)  # fmt: skip
        word = "yes" if holds else "no"
    said = f"then compared {display(found)} with {display(number)}: {word}"
    return Step(
        "word", "", word, said, None, choice.grid.row_numbers[result.rows[0]] if result.rows else 0
    )


# Words that ask for a number of years as a number ("how many years after", "how old").
_ASKS_HOW_MANY = re.compile(r"\bhow (?:many|much|old)\b|\bnumber of\b")


def years_apart_step(query: str, choice: TableChoice) -> Step | None:
    """The difference of two named rows' years (a Year, an Election year, an Age) said in years,
    as "what is the difference in age between A and B?" is answered ("12 years"); "how many
    years after …" asks for the number alone. On the dev fifth of WikiTableQuestions' training
    split: 4 answers right more, 1 fewer (a difference of debut dates whose answer is "1")."""
    program, result = choice.best.program, choice.best.result
    if program.op != "diff" or program.key is None or len(result.values) != 1:
        return None
    key = choice.grid.columns[program.key]
    words = set(fold(key.name).split())
    value = result.values[0]
    if (
        _ASKS_HOW_MANY.search(fold(query))
        or not isinstance(value, float)
        or key.type == DATE  # dates sort as yyyymmdd: their difference is no number of years
        or not (words & {"age", "year"} or holds_times(key))
    ):
        return None
    said = f"{display(value)} {'year' if value == 1 else 'years'}"
    return Step(
        "word", "", said, f"said in years: {said}", None, choice.grid.row_numbers[result.rows[0]]
    )


# A question that asks for one of the rows a program keeps: "name a city in Portugal", "what
# is one ship with the same status as the Arizona?".
_ASKS_FOR_ONE = re.compile(
    r"\b(?:name|give|list|mention|tell me|identify|provide) (?:a|an|one|at least one)\b"
    r"|^(?:what|which|who) (?:is|was|are|were) (?:one|an?)\b|\bone of the\b"
)


def asks_for_one(query: str) -> bool:
    """Whether a question asks for one of the rows that answer it ("name a city in Portugal")."""
    return bool(_ASKS_FOR_ONE.search(fold(query)))


def one_of_them_step(query: str, choice: TableChoice) -> Step | None:
    """The first of the cells a program reads when the question asks for one of them ("name a
    city from the same country as Bangalore"): any is an answer, and the first listed is the
    one to name. On WikiTableQuestions' training split: 4 such answers, each right named first
    (2 on the dev fifth, 2 on the rest), none right as the whole list."""
    result = choice.best.result
    values = list(dict.fromkeys(display(value) for value in result.values))
    if result.computed or len(values) < 2 or not asks_for_one(query):
        return None
    row = result.rows[0]
    words = f"then named the first of them: {values[0]}"
    return Step(
        "one", "", values[0], words, choice.grid.chunk_ids[row], choice.grid.row_numbers[row]
    )


def _said_at(text: str, values: list[str]) -> tuple[int, int] | None:
    """Return where the question says each of two names, as whole words, the longer found
    first so that "Bergen" is not found inside "Bergen North"; None unless both are found
    apart."""
    taken: list[tuple[int, int]] = []
    found: dict[int, int] = {}
    for index in sorted(range(len(values)), key=lambda i: -len(values[i])):
        pattern = re.compile(rf"(?<!\w){re.escape(values[index])}(?!\w)")
        match = next(
            (
                m
                for m in pattern.finditer(text)
                if all(m.end() <= a or m.start() >= b for a, b in taken)
            ),
            None,
        )
        if match is None:
            return None
        taken.append(match.span())
        found[index] = match.start()
    return found[0], found[1]


def _asks_for_its_target(read, choice: TableChoice) -> bool:
    """Whether "which <noun>" names the column the program answers from: "which building used
    the most gas?" read from Building asks for the building, whatever else it says ("when was
    the teacher of Cloud Basics hired?" asks for no teacher, "which clinic's head nurse ..." for
    the head nurse)."""
    target, words = choice.best.program.target, read.words
    return (
        target is not None
        and not re.match(r"\s*\w+\s+[\w-]+['’]s\b", read.text)  # "which clinic's head nurse"
        and len(words) > 1
        and words[0] in ("which", "what")
        and stem(words[1]) == read.head
        and read.head in {stem(word) for word in fold(choice.grid.columns[target].name).split()}
    )


def _said_header_words(name: str, stems: set[str]) -> set[str]:
    return {stem(word) for word in fold(name).split()} & stems


def _asks_which_of_two(query: str, program) -> bool:
    """Whether the question asks only which of two named rows has more ("did we sell more at
    Quarry Studio or at the Mayfair Centre last season?"): the answer, with nothing to join
    ("which has more seats, A or B, and who manages it?" asks for more)."""
    return program.op in ("more", "less") and bool(_AUXILIARY_FIRST.match(query))


_AUXILIARY_FIRST = re.compile(r"\s*(?:did|do|does|is|are|was|were|has|have|had)\b", re.IGNORECASE)


def joined_step(query: str, choice: TableChoice) -> Step | None:
    """A join: the question names a column this table lacks and another table has (a
    workbook's other sheet); that table's row sharing the found row's key is read. A word the
    table's label says is this table's: "which building collected the least rent in
    February?" of "Rent collected 2026" asks for no Monthly rent of the leases, and "the most
    gas in 2025" of "Energy use 2025" for no Meetings attended (2025); nor does a word its
    program's conditions read ("reported in February" of a date column)."""
    row = _result_row(choice)
    read, program = read_question(query), choice.best.program
    if row is None or not choice.others or _asks_which_of_two(query, program):
        return None
    if _asks_for_its_target(read, choice):
        return None
    stems = read.stems
    literal = {stem(word) for word in read.words}
    conditions = " ".join(str(c.said) for c in program.conditions + program.anchors)
    here = set().union(
        _said_header_words(f"{choice.grid.label} {conditions}", stems),
        *(_said_header_words(c.name, stems) for c in choice.grid.columns),
    )
    # A question that names the amount the program answers with asks for another table's column
    # only by most of its header: "how many panels are there on the roof at St Aidan's?" asks
    # for no Next roof survey of the leases (but "the email of the lead" reads a Work email
    # address of the lead's row).
    target = program.target
    said_target = (
        target is not None
        and choice.grid.columns[target].numeric
        and header_overlap(choice.grid.columns[target].name, read) >= 0.5
    )
    asked = []  # (another table, the column of it the question names)
    for _, other in choice.others:
        # The most header words said, those said as they are before those a phrase implies
        # ("which extension do I dial?" reads Extension before Mobile).
        named = [
            (
                len(_said_header_words(column.name, stems) - here),
                len(_said_header_words(column.name, literal) - here),
                index,
            )
            for index, column in enumerate(other.columns)
        ]
        best, _, index = max(named, default=(0, 0, -1))
        if best and (not said_target or header_overlap(other.columns[index].name, read) >= 0.5):
            asked.append((other, index))
    # A key of the same name in both tables, in any of them, before the answer as a key.
    met = _met_by_name(choice, row, asked) or _met_by_answer(choice, row, asked, read)
    if met is None:
        return None
    other, index, mine, theirs, match = met
    name = other.columns[index].name
    return Step(
        "join",
        name,
        other.columns[index].texts[match],
        f"then read {name} of {other.label} where {theirs.name} is {mine.texts[row]}",
        other.chunk_ids[match],
        other.row_numbers[match],
    )


def _met_by_name(choice: TableChoice, row: int, asked: list):
    """The first other table whose row meets the found row on a column of the same name in
    both, with a cell in the column asked for."""
    for other, index in asked:
        for mine in choice.grid.columns:
            for key_index, theirs in enumerate(other.columns):
                if key_index == index or fold(mine.name) != fold(theirs.name):
                    continue
                match = _the_row_holding(theirs, mine.folded[row])
                if match is not None and other.columns[index].texts[match]:
                    return other, index, mine, theirs, match
    return None


def _met_by_answer(choice: TableChoice, row: int, asked: list, read):
    """The first other table whose rows the program's answer names: "the day rate of the lead
    of Harbour app" reads the Lead of Harbour app, a Name of the team's table. The question
    must say the answer's header ("the lead"): "what is Harbour app's budget?" read from Status
    asks nothing of the row the status "Active" names in a summary by status. The answer
    names a row of the other table's first column (its rows' names) when that column's filled
    cells are text and all differ: a name in a Manager column names the manager's reports,
    not a row. Nor is a column named together with the answer's header asked of the answer:
    "who has the lead role?" asks for the lead."""
    target = choice.best.program.target
    if target is None:
        return None
    mine = choice.grid.columns[target]
    if mine.numeric or not _said_header_words(mine.name, read.stems):
        return None  # a number names no row; an answer the question does not ask about
    for other, index in asked:
        theirs = other.columns[0]
        if index == 0 or theirs.numeric or not names_its_rows(theirs):
            continue
        if _said_together(read.words, mine.name, other.columns[index].name):
            continue
        match = _the_row_holding(theirs, mine.folded[row])
        if match is not None and other.columns[index].texts[match]:
            return other, index, mine, theirs, match
    return None


def _said_together(words: list[str], first: str, second: str) -> bool:
    """Whether the question says a word of header `first` just before one of `second`."""
    before = {stem(word) for word in fold(first).split()}
    after = {stem(word) for word in fold(second).split()}
    return any(
        stem(word) in before and stem(following) in after
        for word, following in zip(words, words[1:])
    )


def _the_row_holding(column, value: str) -> int | None:
    return (
        next((r for r, v in enumerate(column.folded) if v and v == value), None) if value else None
    )
