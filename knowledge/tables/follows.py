"""Whether a candidate program follows what the question asks of its shape: the order it names
("due first" orders by Due date), the direction ("the most"), the time order ("the newest",
in knowledge/tables/asked_time.py), a total ("the total budget", "how many seats in all"), and
each number or name it says read once.

The parser ranks every program it can build (knowledge/tables/parser.py); these set aside the
ones that answer another question before the store weighs the rest (knowledge/tables/rules.py,
knowledge/tables/store.py). Each was measured on the dev fifth of WikiTableQuestions' training
split first (`bench/table_parser.py`)."""

from __future__ import annotations

import re
from collections import defaultdict
from itertools import takewhile

from knowledge.tables.against import against_column
from knowledge.tables.asked import (
    AMOUNT_FILLERS,
    answers_with_a_number,
    compares_to_some_effect,
    compares_years_with_times,
    consecutive_rows,
    counts_some_rows,
    counts_what_it_names,
    follows_the_asked_column,
    holds_times,
    orders_as_asked,
    reads_both_of_a_pair,
    same_as,
)
from knowledge.tables.asked_time import (
    answers_which_with_a_date,
    cannot_be_the_longest,
    elapsed_direction,
    follows_the_asked_time,
    follows_the_named_order,
    program_direction,
)
from knowledge.tables.between import reads_only_when_asked
from knowledge.tables.cells import DURATION
from knowledge.tables.change import column_change, period_total, row_extreme, row_span
from knowledge.tables.counted import reads_the_counted_amount
from knowledge.tables.having import keeps_what_it_has
from knowledge.tables.kept import (
    averages_as_asked,
    counts_no_named_cell,
    keeps_every_named_cell,
    keeps_what_it_excludes,
    names_every_kept_row,
    reads_no_row_after,
    reads_no_unasked_row,
)
from knowledge.tables.money import money_along_a_row, money_total, still_owed
from knowledge.tables.offered import (
    added_pair,
    compared_as_asked,
    counted_options,
    offered_row,
    picks_an_offered_cell,
    summed_values,
)
from knowledge.tables.parser import Candidate, ranked
from knowledge.tables.periods import offered_column, period_cell, periods_meeting
from knowledge.tables.programs import Grid, display, fold, kept_rows
from knowledge.tables.question import (
    RANK_WORDS,
    asked_direction,
    read_question,
    said_as,
    stem,
)
from knowledge.tables.said import said_durations
from knowledge.tables.top import top_rows
from knowledge.tables.totals import over_every_month, reads_a_named_period
from knowledge.tables.whole import whole_column

# Cues that order by an amount: the words after them name what is measured ("the highest
# water usage", "the most beds").
AMOUNT_CUES = frozenset(
    "most least highest lowest largest smallest biggest fewest greatest longest shortest more "
    "less fewer higher lower larger smaller maximum minimum".split()
)


def follows_the_asked_direction(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a program that takes the larger or the smaller of an amount takes the one the
    question asks for: "which line had the longest outage?" is no argmin of Outage minutes. A
    rank or place column is left to the ranker (its smallest is its best)."""
    program = candidate.program
    direction = program_direction(program)
    if not direction or program.key is None:
        return True
    # The question's words alone: reading the whole question again for each of a table's
    # hundreds of candidates would cost more than ranking them.
    words = fold(question).split()
    column = grid.columns[program.key]
    header = set(fold(column.name).split())
    if cannot_be_the_longest(words, grid, column, program.op):
        return False
    asked = elapsed_direction(words, column) or asked_direction(words)
    asked = asked or _praised(words, column) or _speed(words, column)
    if not asked:
        return True
    if header & RANK_WORDS:
        return True
    return direction == asked


# "The best" and "the worst" of an amount: more is better (a rate, a score, a rating), except
# for an amount whose smaller is the better (a time, a cost, a rank or a place: "4th", a
# starting or finishing position), left to the ranker.
_PRAISE = {"best": 1, "better": 1, "worst": -1, "worse": -1}
# The header words of an amount of time.
_TIMES = frozenset("time times duration hours minutes seconds days h min mins s delay".split())
_SMALLER_IS_BETTER = (
    RANK_WORDS
    | _TIMES
    | frozenset(
        "price cost costs fee fees rent expenses delays debt loss losses errors defects start "
        "finish grid".split()
    )
)
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)\b")


def _praised(words: list[str], column) -> int:
    """Return 1 when the question asks for the best of a column whose larger is the better
    ("the carrier with the best on-time rate"), -1 for the worst, 0 otherwise."""
    said = {_PRAISE[word] for word in words if word in _PRAISE}
    if len(said) != 1 or set(fold(column.name).split()) & _SMALLER_IS_BETTER:
        return 0
    ordinals = sum(bool(_ORDINAL.match(text)) for text in column.folded)
    return 0 if ordinals * 2 >= len(column.folded) else said.pop()


# "The fastest" is the smallest of a time ("Avg delivery (min)") and the largest of anything
# else (a speed); "the slowest" the other way.
_SPEED = {"fastest": 1, "faster": 1, "quickest": 1, "quicker": 1, "slowest": -1, "slower": -1}


def _speed(words: list[str], column) -> int:
    """Return the direction a question's "fastest" or "slowest" asks of a column (0: none)."""
    said = {_SPEED[word] for word in words if word in _SPEED}
    if len(said) != 1:
        return 0
    timed = column.type == DURATION or set(fold(column.name).split()) & _TIMES
    return -said.pop() if timed else said.pop()


# Words after "total" that name no column ("the total number of wins").
_TOTAL_FILLERS = frozenset("number amount of the all".split())


def follows_the_asked_total(words: list[str], grid: Grid, candidate: Candidate) -> bool:
    """Whether a program follows "the total <amount>" when the amount names a numeric column:
    "the total budget of the offices" adds Budget, it counts no rows and reads no one cell
    (dev part: 3 more right, 2 fewer). "How much" asks for an amount, never a number of rows
    ("how much do we pay suppliers in total?")."""
    if candidate.program.op in ("count", "distinct") and "how much" in " ".join(words):
        return False
    if "total" not in words:
        return True
    after = [w for w in words[words.index("total") + 1 :][:4] if w not in _TOTAL_FILLERS][:1]
    named = [
        index for index, column in enumerate(grid.columns)
        if after and column.numeric and not holds_times(column)
        and stem(after[0]) in {stem(word) for word in fold(column.name).split()}
    ]  # fmt: skip
    program = candidate.program
    if not named or program.op not in _TOTAL_READERS:
        return True
    return program.op in _ADDING and program.key in named


# The operations "the total <amount>" may be read as: only those that add it up follow it.
_TOTAL_READERS = frozenset("sum count distinct first last max values".split())
# The operations that add a column up: over the kept rows, or over the two rows named.
_ADDING = ("sum", "plus")
# Words that ask for every row's amount added up.
_TOTALLING = frozenset("total all together altogether combined overall".split())


# Programs that read one cell, or each kept row's cell, of their target column.
_READING = ("first", "last", "values")
_SAYS_NEIGHBOUR = frozenset("after before next previous following preceding then".split())


def follows_the_asked_amount(words: list[str], grid: Grid, candidate: Candidate) -> bool:
    """Whether a program follows "how many <amount> ..." when the amount names a numeric column.

    With "in total" (or in all, together, altogether, combined), "how many seats in
    all courses together?" and "how many minutes were systems down in total?" add the Seats or
    the Minutes down column; a count of rows answers "how many courses". Without, the amount of
    the rows a condition keeps is still their sum, not the first one's: "how many seats in the
    North building?" adds the North rooms' seats (one kept row reads its own)."""
    for index, word in enumerate(words[:-1]):
        if word not in ("many", "much") or index == 0 or words[index - 1] != "how":
            continue
        after = [w for w in words[index + 1 : index + 4] if w not in AMOUNT_FILLERS][:1]
        named = [
            number for number, column in enumerate(grid.columns)
            if after and column.numeric and not holds_times(column)
            and said_as(after[0]) & {stem(w) for w in fold(column.name).split()}
        ]  # fmt: skip
        if not named:
            continue
        program = candidate.program
        if _TOTALLING & set(words):
            return program.op in _ADDING and program.key in named
        if program.op in _READING and program.target in named and program.conditions:
            return len(kept_rows(grid, program.conditions)) <= 1
        if program.op in ("next", "previous") and program.target in named:
            # The row after or before a named one, when the question says so.
            return bool(_SAYS_NEIGHBOUR & set(words))
        return True
    return True


def follows_the_named_doer(words: list[str], grid: Grid, candidate: Candidate) -> bool:
    """Whether a program answering "who <does> ..." reads the text column named for the doer
    of that verb: "who owns the project due first?" is the Owner, "who manages ..." the
    Manager, "who captains the largest vessel?" the Captain, not the project or the row's name.
    The header is an agent noun sharing the verb's stem, or the noun the verb is made of: a
    Finish column ("1st", "DNF") is not who finished, and a numeric column (a Score for "who
    scored") is no doer. "Who is the caretaker of ...", "who's our contact at ..." name the
    column by the noun itself."""
    target = candidate.program.target
    if target is None or "who" not in words[:-1]:
        return True
    after = words[words.index("who") + 1 :]
    said = next((at for at, word in enumerate(after) if word not in _BEFORE_A_ROLE), None)
    if said is None:
        return True
    # "Who is the site manager at Hull?": the role's last word before what it is of or at.
    role = [*takewhile(lambda w: w not in _AFTER_A_ROLE, after[said : said + 3])] or [after[said]]
    word = role[-1] if said else after[said]

    def names(header_word: str) -> bool:
        if said:  # "who is the caretaker": the noun
            return stem(header_word) == stem(word)
        return (header_word.endswith(("er", "ers")) and stem(header_word) == stem(word)) or (
            word.endswith("s") and header_word == word[:-1]  # "who captains": Captain
        )

    named = [
        index for index, column in enumerate(grid.columns)
        if not column.numeric and any(names(w) for w in fold(column.name).split())
    ]  # fmt: skip
    return len(named) != 1 or target == named[0]


# What "who" and the role it asks for may have between them ("who is the", "who's our").
_BEFORE_A_ROLE = frozenset("is was are were s the our their its his her a an".split())
_AFTER_A_ROLE = frozenset("of at for in on from with to that who which".split())


_SAID_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_TOKEN = re.compile(r"[\w'’-]+|[^\w\s]")


def reads_each_word_once(question: str, candidate: Candidate) -> bool:
    """Whether the program reads each thing the question says once: a number said once feeds
    one condition ("opened before 2014" is no Opened of 2014 with a Head count under 2014), and
    the two rows a comparison names are two names, not two words of one ("the first step of
    requesting annual leave" compares no row holding "annual" with one holding "leave")."""
    program = candidate.program
    said = program.conditions + program.anchors
    asked = _said_numbers(question)
    used = [
        number
        for c in said
        for number in ([c.value] if isinstance(c.value, float) else _said_numbers(str(c.said)))
    ]
    if any(0 < asked.count(number) < used.count(number) for number in set(used)):
        return False
    if len(program.anchors) < 2:
        return True
    tokens = [
        word
        for token in _TOKEN.findall(question.lower())
        for word in fold(token).split() or [token]
    ]
    spoken = [fold(str(anchor.said)).split() for anchor in program.anchors]
    for one in spoken:
        for other in spoken:
            if one is not other and one and other and _follows(tokens, one, other):
                return False
    return True


# A cell that is one number and nothing else ("2014", "1,200").
_WHOLE_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def keeps_the_said_comparison(question: str, candidate: Candidate) -> bool:
    """Whether a program reads a number the question compares as a comparison: "which offices
    opened before 2014?" keeps the offices opened before it, not the one whose cell is 2014 (a
    number also said without a comparison may be a cell)."""
    numbers = read_question(question).numbers
    compared = {value for value, op in numbers if op} - {value for value, op in numbers if not op}
    return not any(
        c.op == "eq"
        and _WHOLE_NUMBER.fullmatch(str(c.value))
        and _said_numbers(str(c.value))[0] in compared
        for c in candidate.program.conditions
    )


def keeps_the_said_duration(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a program over a column of durations that the question compares against an
    amount of time, and asks no order of, keeps the rows within it: "which suppliers deliver
    within two days?" lists those, not the quickest one nor every one."""
    program = candidate.program
    if program.key is None or grid.columns[program.key].type != DURATION:
        return True
    folded = fold(question)
    said = {op for _, op, _ in said_durations(folded)}
    if not said or asked_direction(folded.split()):
        return True
    if program.op in ("argmax", "argmin", "max", "min"):
        return False
    return any(c.column == program.key and c.op in said for c in program.conditions)


def _said_numbers(text: str) -> list[float]:
    """Return the numbers written in digits in a text ("2,000", "8.70"); a version or a date
    written with several points ("3.1.0") is none."""
    return [
        float(number.replace(",", ""))
        for number in _SAID_NUMBER.findall(text)
        if number.count(".") <= 1
    ]


def _follows(tokens: list[str], one: list[str], other: list[str]) -> bool:
    """Whether the words `other` come right after the words `one` in the question's tokens."""
    phrase = one + other
    return any(tokens[i : i + len(phrase)] == phrase for i in range(len(tokens)))


# A question that ends by naming the answers it admits: "which is deeper, lake tuz or lake palas
# tuzla?", "who held the post longer, Sivarao or Suryalingam?".
_OPTIONS = re.compile(r"[,:;]\s*(?:the\s+)?([^,:;?]+?)\s+or\s+(?:the\s+)?([^,:;?]+?)\s*[?.!]*\s*$")


def picks_a_named_option(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a candidate answers with one of the two things the question offers, when it
    offers two the table holds."""
    match = _OPTIONS.search(question.lower())
    if not match:
        return True
    options = [fold(option) for option in match.groups()]
    if not all(options) or not all(option in grid.cell_text for option in options):
        return True
    values = candidate.result.values
    if len(values) != 1:
        return False
    said = fold(display(values[0]))
    return bool(said) and any(said in option or option in said for option in options)


def follows_the_question(question: str, grid: Grid, candidate: Candidate) -> bool:
    """Whether a candidate follows the order, the direction, the time order, the total and the
    amount the question asks for, reads each number and name it says once, and answers with
    one of the two things it offers."""
    if not (
        picks_a_named_option(question, grid, candidate)
        and follows_the_named_order(question, grid, candidate)
        and follows_the_asked_direction(question, grid, candidate)
        and reads_each_word_once(question, candidate)
        and keeps_the_said_comparison(question, candidate)
        and keeps_the_said_duration(question, grid, candidate)
        and names_every_kept_row(question, grid, candidate)
        and orders_as_asked(question, candidate)
        and not keeps_what_it_excludes(question, candidate)
        and averages_as_asked(question, grid, candidate)
        and counts_no_named_cell(question, grid, candidate)
        and reads_no_row_after(question, candidate)
    ):
        return False
    words = fold(question).split()
    return (
        follows_the_asked_time(words, grid, candidate)
        and not answers_which_with_a_date(words, grid, candidate)
        and follows_the_asked_total(words, grid, candidate)
        and follows_the_asked_amount(words, grid, candidate)
        and reads_no_unasked_row(words, grid, candidate)
        and reads_the_counted_amount(words, grid, candidate)
        and follows_the_named_doer(words, grid, candidate)
        and follows_the_asked_column(question, grid, candidate)
        and compares_to_some_effect(grid, candidate)
        and counts_what_it_names(question, grid, candidate)
        and answers_with_a_number(question, grid, candidate)
        and compares_years_with_times(question, grid, candidate)
        and keeps_what_it_has(words, grid, candidate.program)
        and reads_a_named_period(question, grid, candidate)
        and reads_only_when_asked(words, grid, candidate.program)
    )


def by_answer(found: list[Candidate]) -> list[Candidate]:
    """Return the candidates with those computing the likeliest answer first: the answer whose
    programs' probabilities add up to the most, as the ranker was trained (the summed
    probability of every program whose result is the gold answer). A program that is likeliest
    alone but computes what no other does yields to one of several that agree (on the dev fifth
    of WikiTableQuestions' training split: 1,408 right against 1,378, 14 and 16 more on its
    judge halves)."""
    mass: dict[tuple, float] = defaultdict(float)
    for candidate in found:
        mass[_answer(candidate)] += candidate.score
    if not mass:
        return found
    best = max(mass, key=mass.__getitem__)  # the first of equal masses: the likeliest program's
    # Of the programs that agree, the one that reads the most of what the question says leads:
    # "Abbey Fields" whole, not "fields" (a name said in part: tables/partial.py).
    agree = sorted((c for c in found if _answer(c) == best), key=_reads_said, reverse=True)
    return agree + [c for c in found if _answer(c) != best]


def _reads_said(candidate: Candidate) -> tuple[int, int]:
    """How many words the longest name a program reads in part has ("abbey fields": 2; two
    one-word fragments, "market" and "street", are 1), then how long its names are in all."""
    said = [
        str(c.value) for c in candidate.program.conditions + candidate.program.anchors
        if c.op == "contains"
    ]  # fmt: skip
    return max((len(value.split()) for value in said), default=0), sum(map(len, said))


def _answer(candidate: Candidate) -> tuple:
    """Return what a candidate answers, as the key its agreeing programs share. A result read
    from no row (a count of none) is its program's alone: every condition that keeps nothing
    counts 0, and such programs agree by accident, not by evidence."""
    if not candidate.result.rows:
        return (id(candidate),)
    return tuple(display(value) for value in candidate.result.values)


def followed(question: str, grid: Grid, weights: dict[int, float] | None = None) -> list[Candidate]:
    """Return the parser's candidates for a question that follow it, the likeliest answer's
    programs first (`by_answer`), led by a program a rule makes when one applies: the sum of
    two named rows (`added_pair`), which of two named groups has more rows
    (`counted_options`), the rows sharing a named row's cell (`same_as`), a run of
    consecutive rows (`consecutive_rows`), the one of two offered cells a row holds
    (`offered_row`), a change along a row between two columns (`column_change`), a total or an
    average along a row over its period columns (`row_span`), its cell in the one period named (`period_cell`), or its period with the most or
    the least (`row_extreme`), the one of two offered columns with more of a named row
    (`offered_column`), how many of its periods meet a comparison (`periods_meeting`), a period's total over every row (`period_total`), the rows whose
    amount is below or above another column's (`against_column`), the total of the one column
    of money (`money_total`), or as many rows as the question asks of the
    likeliest program's most or least (`top_rows`); a count that leaves out a cell the question
    names is set aside (`keeps_every_named_cell`). This is what the store, the model's judge
    and the benches read."""
    every = counts_some_rows(reads_both_of_a_pair(ranked(question, grid, weights)))
    found = [c for c in every if follows_the_question(question, grid, c)]
    found = by_answer(keeps_every_named_cell(question, grid, found))
    found = picks_an_offered_cell(question, grid, found)
    made_by_rules = (
        added_pair(question, grid, every),
        counted_options(question, grid, every),
        same_as(question, grid, every),
        consecutive_rows(question, grid, every),
        offered_row(question, grid, every),
        column_change(question, grid),
        row_span(question, grid),
        period_cell(question, grid),
        row_extreme(question, grid),
        offered_column(question, grid),
        periods_meeting(question, grid),
        period_total(question, grid),
        against_column(question, grid),
        money_total(question, grid),
        whole_column(question, grid),
        money_along_a_row(question, grid),
        still_owed(question, grid),
        over_every_month(question, grid, every, follows_the_question),
        summed_values(question, grid, found),
        top_rows(question, grid, found),
        compared_as_asked(question, grid, found),
    )
    for made in made_by_rules:
        if made is not None and follows_the_question(question, grid, made):
            return [made, *found]
    return found
