"""What the question's words name, read against the parser's candidate programs.

Per candidate (`follows.follows_the_question` calls them): the column a "what" or "which"
question asks for, the different things "how many different" counts, the amount "how many
<amount>" reads, an amount for any "how many", comparisons that set some rows aside, a year said
as a time compared with dates or years. Over the list (`follows.followed`): one of a month and a
year, or one bound of a range, yields to both; a count of no row yields to one that keeps some
("A or B?" is knowledge/tables/offered.py). And two
programs the ranker never proposes: "the same <column> as <row>" (`same_as`, the `same`
operation) and the longest run of consecutive rows a count keeps (`consecutive_rows`, the
`streak` operation). Each sets aside or builds candidates as knowledge/tables/follows.py does for the
question's order, direction and totals; each came from half a of the dev fifth of
WikiTableQuestions' training split and was measured on both halves before it was kept.
"""

from __future__ import annotations

import re
from collections import defaultdict

from knowledge.tables.cells import DATE, TEXT, named_beside
from knowledge.tables.parser import Candidate
from knowledge.tables.programs import (
    AGGREGATES,
    ANCHORED,
    HEADER_OPS,
    Grid,
    Program,
    fold,
    kept_rows,
    run,
)
from knowledge.tables.question import STOPWORDS, is_outcome, mentions, read_question, stem

# Words after "how many" that name no amount ("how many of the players", "how many more").
AMOUNT_FILLERS = frozenset("of the more less fewer total different distinct".split())


def holds_times(column) -> bool:
    """Whether a column holds dates, or years written as numbers."""
    if column.type == DATE:
        return True
    numbers = [n for n in column.numbers if n is not None]
    return (
        column.numeric
        and bool(numbers)
        and all(float(n).is_integer() and 1000 <= n <= 2100 for n in numbers)
    )


# Header words of a column of years.
_TIME_HEADERS = frozenset(
    "year years season date opened founded established built released started began".split()
)


def is_a_time(column) -> bool:
    """Whether a column holds dates, or years under a header that says so ("Year", "Opened"):
    an Attendance of 1,200 to 1,800 is no year."""
    words = set(fold(column.name).split())
    return column.type == DATE or (holds_times(column) and bool(words & _TIME_HEADERS))


# Headers of numbers that name rows, not amounts: "Boat #", "No.", "Sr. No.", "ID" (but "# of
# prisoners" and "Weeks at No. 1" are amounts).
IDENTIFIER_HEADER = re.compile(r"(?:^|\s)(?:#|no\.?|id)\s*$", re.IGNORECASE)


# "what is the venue ...", "which nfl team ...", "what is the name of the trainer of ...":
# the word that names what is asked for.
_ASKED_NOUN = re.compile(
    r"^(?:(?:in|on|at|for|during|from|to) )?(?:what|which)(?: (?:is|was|are|were|of))?"
    r"(?: (?:the|our|their|its))?"
    r"(?: only)?(?: (?:two|three|four|five|\d+))?"
    r"(?: name of(?: the)?)? (\w+)|^(?:what (?:is|was) )?(?:the )?name of(?: the)? (\w+)"
)
# "which was our first release ...": the word that may name what the table's rows are.
_ASKED_ROWS = re.compile(
    r"^(?:what|which)(?: (?:is|was|are|were|of))?(?: (?:the|our|their|its))?"
    r"(?: (?:first|last|latest|newest|earliest|oldest|most recent))? (\w+)"
)


def _header_stems(column) -> set[str]:
    return {stem(word) for word in fold(column.name).split()}


def asked_column(question: str, grid: Grid) -> int | None:
    """Return the column a "what" or "which" question names by its first noun ("what is the name
    of the trainer of …" names Trainer), when that noun names one column's header; the first
    column when the noun names no header but what the table's rows are ("which release …" of
    releases.md); else None."""
    match = _ASKED_NOUN.match(fold(question))
    if not match:
        return None
    noun = _head_noun(match.group(1) or match.group(2), fold(question)[match.end() :], grid)
    asked = stem(noun)
    # A plural names its singular's column before any column of the same stem: "which orders"
    # is Order, not Ordered.
    plural = {noun[:-1], noun[:-2]} if noun.endswith("s") else set()
    singular = [i for i, c in enumerate(grid.columns) if plural & set(fold(c.name).split())]
    named = singular or [i for i, c in enumerate(grid.columns) if asked in _header_stems(c)]
    rows_noun = _ASKED_ROWS.match(fold(question))
    if not named and rows_noun and _names_the_table(rows_noun.group(1), grid):
        # "which release fixed the most bugs?" over releases.md, headed Version, Released,
        # Bugs fixed, Lead: the rows are releases, and the first column names each.
        # (A version "3.4.0" reads as a number, but its column is typed as text.)
        first = grid.columns[0] if grid.columns else None
        names = first is not None and first.type == TEXT and len(set(first.folded)) == grid.size
        return 0 if names else None
    return named_beside(grid, named[0], fold(question).split()) if len(named) == 1 else None


# The verbs that end a "which" question's noun phrase: "which delivery partner is ...".
_PHRASE_ENDS = frozenset("is are was were has have had does do did will can could".split())


def _head_noun(noun: str, rest: str, grid: Grid) -> str:
    """Return the noun a question asks for: the first noun after "which", or the next word when
    the two are one name followed by its verb and the next names a column of names ("which
    delivery partner is fastest?" asks for a Partner, not a Delivery time; "which training
    courses are ..." for a Course, not a Trainer)."""
    words = rest.split()
    # "Which of the refurbished bikes …" of "Refurbished bikes": the noun the rows are, not
    # the participle before it that a header says too (Refurbished by).
    if (
        words
        and noun.endswith("ed")
        and words[0] not in STOPWORDS
        and _names_the_table(words[0], grid)
        and any(stem(noun) in _header_stems(column) for column in grid.columns)
    ):
        return words[0]
    if not words or words[0] in STOPWORDS:
        return noun

    def names(word: str, text: bool) -> bool:
        asked = {word, stem(word), stem(word.removesuffix("s"))}  # "partners": Partner
        return any(asked & _header_stems(c) and (c.numeric is not text) for c in grid.columns)

    if len(words) > 1 and words[1] in _PHRASE_ENDS:
        # "Which training courses are ...": the word before the verb heads the phrase.
        return words[0] if names(words[0], text=True) else noun
    # "Which delivery partners took the most orders?": a noun naming only an amount (Avg
    # delivery) before a word a header of names says (Partner; "carried" is no Carrier).
    forms = {words[0], words[0].removesuffix("s"), words[0].removesuffix("es")}
    before_a_name = any(forms & set(fold(c.name).split()) for c in grid.columns if not c.numeric)
    if before_a_name and names(noun, text=False) and not names(noun, text=True):
        return words[0]
    return noun


def asked_of_another_table(question: str, grid: Grid, others: list[Grid]) -> bool:
    """Whether a "which" or "what" question's noun names no column and no label of this table
    but a column or the label of another searched table: "which vendor cleans the Lisbon
    office?" over offices.csv (its Office manager is no vendor) beside vendors.csv."""
    match = _ASKED_NOUN.match(fold(question))
    noun = (match.group(1) or match.group(2)) if match else ""
    if not noun or noun in STOPWORDS or _names(noun, grid):
        return False
    return any(_names(noun, other) for other in others if other is not grid)


def _names(noun: str, grid: Grid) -> bool:
    asked = stem(noun)
    return any(asked in _header_stems(c) for c in grid.columns) or _names_the_table(noun, grid)


def _names_the_table(noun: str, grid: Grid) -> bool:
    """Whether a noun names what a table's rows are: a word of its label (its file's name, its
    section or its caption), singular or plural ("release" for releases.md)."""
    if noun in STOPWORDS or len(noun) < 3:
        return False
    label = re.split(r"[\W_]+", fold(grid.label.replace("›", " ")))
    singular = noun.removesuffix("s")
    return any(
        word
        and (
            stem(word) == stem(noun)
            or word.removesuffix("s") == singular
            or word.removesuffix("es") == singular
        )
        for word in label
    )


def follows_the_asked_column(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a program that answers with a column's cells answers with the column a "what" or
    "which" question names: "what is the name of the trainer of the first place horse?" is the
    Trainer, not the Horse; "which nfl team picked the first player" the NFL team. The period
    with the most of a row answers with a header, which "which month" asks for."""
    target = None if candidate.program.op in HEADER_OPS else candidate.program.target
    asked = asked_column(question, grid) if target is not None else None
    return asked is None or target == asked


_COMPARISONS = ("gt", "lt", "ge", "le")


def compares_to_some_effect(grid: Grid, candidate: Candidate) -> bool:
    """Whether each comparison a program keeps rows by sets some rows aside: "how many times did
    his jump surpass 7.70 m?" is no count of the rows whose Year is over 7.70, which is every
    row. A comparison the question says is said of some rows, not all."""
    program = candidate.program
    if grid.size < 3:
        return True
    return not any(
        c.op in _COMPARISONS and len(kept_rows(grid, (c,))) == grid.size for c in program.conditions
    )


# The words that ask how many different cells, not how many rows: without one, the number of
# different cells answers another question ("how many times did she win?", "how many races were
# run?"; on the dev fifth 4 of 52 such answers were right).
_DIFFERENT = frozenset("different distinct unique separate".split())
# "how many different countries": the word that names what is counted, told apart.
_COUNTED_NOUN = re.compile(r"\bhow many (?:different|distinct|unique|separate) (\w+)")


def counts_what_it_names(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a count counts the different things the question names: "how many different
    cities are the churches in?" is the number of different City cells, not of rows nor of
    another column's cells. Only when the word after "how many different" names one text
    column; a count of rows is right where that column repeats no cell. (Without "different",
    "how many countries are listed?" counts the different countries about as often as it
    counts the rows: on the dev fifth, 3 right and 4 wrong.) The number of different cells
    answers only a question that asks for different (distinct, unique) ones: on the dev fifth
    it was the first program of 52 questions without such a word, 4 of them right; set aside,
    8 gained and 4 lost (half a 790 -> 794, half b 761 -> 761)."""
    program = candidate.program
    if program.op not in ("count", "distinct"):
        return True
    folded = fold(question)
    if program.op == "distinct" and not _DIFFERENT.intersection(folded.split()):
        return False
    match = _COUNTED_NOUN.search(folded)
    if not match:
        return True
    asked = {stem(match.group(1)), stem(match.group(1).removesuffix("s"))}  # "types": Type
    named = [
        index for index, column in enumerate(grid.columns)
        if not column.numeric and asked & _header_stems(column)
    ]  # fmt: skip
    if len(named) != 1:
        return True
    if program.op == "distinct":
        return program.target == named[0]
    if any(c.column == named[0] for c in program.conditions):
        return True  # "how many countries are in Europe?" counts rows of that column
    column = grid.columns[named[0]]
    rows = kept_rows(grid, program.conditions)
    return len({column.folded[row] for row in rows}) == len(rows)


# Conditions that keep one column's rows together: a month with a year, a lower with an upper
# bound.
_KIND = {
    "month": "date",
    "year": "date",
    "day": "date",
    "gt": "range",
    "ge": "range",
    "lt": "range",
    "le": "range",
}


def _by_column(program: Program) -> dict[tuple[int, str], set]:
    """Return the conditions a program keeps rows by that pair on one column, by column and
    kind (a date's month and year, a range's bounds)."""
    said: dict[tuple[int, str], set] = defaultdict(set)
    for c in program.conditions:
        if c.op in _KIND:
            said[(c.column, _KIND[c.op])].add(c)
    return said


def reads_both_of_a_pair(found: list[Candidate]) -> list[Candidate]:
    """Return the candidates without those that keep rows by one of two conditions the question
    says of one column when another keeps them by both: "how many defendants were arrested in
    December 1955?" is no count of 1955's rows, nor of every December's; "how many models
    weighed between 100 and 200 grams?" no count of those over 100 g. A program over the rows
    (a count, a total, the first) that keeps none by the column of a month and a year said
    together yields too: "how many games were played in September 1978?" is no count of every
    game (dev fifth: half a 3 more right, half b 1)."""
    pairs = {
        place: frozenset(conditions)
        for c in found
        for place, conditions in _by_column(c.program).items()
        if len(conditions) == 2
    }
    if not pairs:
        return found
    dates = {column for column, kind in pairs if kind == "date"}
    return [
        c for c in found
        if all(
            len(conditions) == 2 or not conditions <= pairs[place]
            for place, conditions in _by_column(c.program).items() if place in pairs
        )
        and (
            c.program.op in ANCHORED or c.program.op == "values"
            or dates <= {x.column for x in c.program.conditions}
        )
    ]  # fmt: skip


# A question that asks for a number of things: "how many …", "what is the number of …",
# "number of opponents faced?" (not "the most number of", which asks for a row).
_ASKS_A_NUMBER = re.compile(
    r"\bhow (?:many|much)\b|^(?:what|whats)(?: (?:is|are|was|were))? the (?:total )?number of\b"
    r"|^(?:the )?(?:total )?number of\b"
)


def answers_with_a_number(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a program answers a question that asks how many with an amount: a count, a total
    or another aggregate, or the cells of a numeric column that are no identifiers. "How many
    shipments carried between 7 and 13 containers?" is no Shipment #, and "what are the number
    of channels owned by the government?" no list of their names."""
    program = candidate.program
    if program.op in AGGREGATES or not _ASKS_A_NUMBER.search(fold(question)):
        return True
    if program.target is None:
        return True
    column = grid.columns[program.target]
    return column.numeric and not IDENTIFIER_HEADER.search(column.name)


def counts_some_rows(found: list[Candidate]) -> list[Candidate]:
    """Return the candidates without the counts of no row when another count keeps some: a
    condition that keeps nothing ("held in June" read as a month of a column no date parses in)
    more often misreads the question than answers it with 0."""
    if not any(c.program.op == "count" and c.result.rows for c in found):
        return found
    return [c for c in found if c.program.op != "count" or c.result.rows]


# Words that ask for rows that follow one another ("how many consecutive wins", "in a row").
_CONSECUTIVE = re.compile(r"\b(?:consecutive|consecutively|straight|streak|in a row)\b")


# The probability that the longest run of an outcome's rows answers a question about
# consecutive ones ("how many consecutive wins"): on the dev fifth of WikiTableQuestions'
# training split it was right 3 times in 4 on the half the judge is fitted on, 11 in 12 on the
# other. A run of rows another condition keeps (a name, a word) was right 5 times in 21: it is
# as likely as the count it comes from.
STREAK_RIGHT = 0.8


def consecutive_rows(question: str, grid: Grid, found: list[Candidate]) -> Candidate | None:
    """Return the longest run of rows that follow one another among those the likeliest count
    keeps, when the question asks for consecutive ones ("how many consecutive wins did they
    have?": the longest run of wins, not every win), or None. The ranker proposes the count,
    seldom by an outcome (a results column's W or L), which it never met in training."""
    if not _CONSECUTIVE.search(fold(question)):
        return None
    counts = [c for c in found if c.program.op == "count" and c.program.conditions]
    if not counts:
        return None

    def of_an_outcome(candidate: Candidate) -> bool:
        return any(is_outcome(condition) for condition in candidate.program.conditions)

    # A count of an outcome's rows first: the ranker, which never met one, ranks it low.
    likeliest = max(counts, key=lambda c: (of_an_outcome(c), c.score))
    program = Program("streak", conditions=likeliest.program.conditions)
    result = run(program, grid)
    if result is None:
        return None
    score = STREAK_RIGHT if of_an_outcome(likeliest) else likeliest.score
    return Candidate(program, result, {}, score)


# The probability a "same <column> as <row>" program is right: on the dev fifth of
# WikiTableQuestions' training split it was right 12 times in 14 on the half the judge is fitted
# on, 13 in 16 on the other. The ranker, which never proposes it, gives it none.
SAME_AS_RIGHT = 0.8


def same_as(question: str, grid: Grid, found: list[Candidate]) -> Candidate | None:
    """Return the other rows that share a cell with the row the question names, when it asks
    for "the same <column> as <row>" ("which track has the same producer as 'Say Something'?",
    "how many clinics have the same manager as Faro?"), or None. The ranker proposes no such
    program: its probability is SAME_AS_RIGHT. The column compared is the one the words after
    "same" name; the answer is the column a "what"/"which" question names, else the named row's
    own column (a count for "how many")."""
    folded = fold(question)
    words = folded.split()
    if "same" not in words:
        return None
    after = words[words.index("same") + 1 :]
    said = [w for w in after[: after.index("as")] if w not in STOPWORDS] if "as" in after else []
    named = [
        c for c in mentions(read_question(question), grid)
        if c.op == "eq" and f" {c.value} " in f" {' '.join(after)} "
    ]  # fmt: skip
    if not said or not named:
        return None
    anchor = max(named, key=lambda c: len(str(c.value)))
    stems = {stem(w) for w in said}
    keys = [
        index for index, column in enumerate(grid.columns)
        if index != anchor.column and stems & _header_stems(column)
    ]  # fmt: skip
    if len(keys) != 1:
        return None
    target: int | None = anchor.column
    asked = asked_column(question, grid)
    if _ASKS_A_NUMBER.search(folded):
        target = None
    elif asked is not None and asked != keys[0]:
        target = asked
    program = Program("same", target=target, key=keys[0], anchors=(anchor,))
    result = run(program, grid)
    if result is None:
        return None
    return Candidate(program, result, {}, SAME_AS_RIGHT)


# A year said as a time: "built after 1915", "since 2009", "before 1990".
_YEAR_AS_TIME = re.compile(
    r"\b(?:after|before|since|until|till|prior to|earlier than|later than) (1[0-9]{3}|20[0-9]{2})\b"
)


def compares_years_with_times(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a program compares a year the question says as a time ("which locomotive was built
    after 1915?") with a column of dates or years, when the table has one, not with another
    number that happens to be larger (a Works number over 1915)."""
    years = {float(y) for y in _YEAR_AS_TIME.findall(fold(question))}
    if not years:
        return True
    times = {index for index, column in enumerate(grid.columns) if is_a_time(column)}
    if not times:
        return True
    return all(
        c.column in times
        for c in candidate.program.conditions
        if c.op in _COMPARISONS and c.value in years
    )


# The words that ask for an order of the rows (the most, the first, before, more).
ASKS_ORDER = frozenset(
    "most least highest lowest largest smallest biggest fewest greatest best worst longest "
    "shortest earliest latest first last top bottom maximum minimum oldest newest youngest "
    "before after next previous following preceding prior later earlier more less fewer "
    "higher lower larger smaller longer shorter older newer max min".split()
)


# The words that name an aggregate of a column.
_AGGREGATE_NAMES = frozenset("average mean total sum".split())


def orders_as_asked(question: str, candidate: Candidate) -> bool:
    """Whether a program that takes the row with the most or the least of an amount answers a
    question that names an aggregate only when it also asks for an order (a word of order or a
    superlative): "what was the average inspection score?" is no row with the lowest score.
    ("Which nations won only one medal?" names none, and its least is its answer.)"""
    if candidate.program.op not in ("argmax", "argmin"):
        return True
    words = set(fold(question).split())
    if not words & _AGGREGATE_NAMES:
        return True
    return bool(words & ASKS_ORDER) or any(w.endswith("est") and len(w) > 5 for w in words)
