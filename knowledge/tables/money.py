"""How much money in total: the sum of a table's only column of money.

A team asks "how much do we pay our suppliers each year in total?" of a table of contracts
whose one amount of money is headed Annual fee: the question says neither "annual" nor "fee",
so the parser, which ranks programs by the headers a question names, puts a count of the rows
first ("how much" is no number of rows) and a sum of Annual fee far below. `money_total` makes
that sum when the question asks "how much" with a word of totalling, names no other amount of
the table and no condition on its rows (no row, no month, nothing unpaid), and the table holds
exactly one column of money (its cells' currency, or a currency in its header: "Cost (€)").
"""

from __future__ import annotations

import re

from knowledge.tables.asked import is_a_time
from knowledge.tables.cells import DATE, is_money, says_yes_or_no
from knowledge.tables.change import named_amount_columns, one_row
from knowledge.tables.choice import TableChoice
from knowledge.tables.flags import OWED
from knowledge.tables.parser import Candidate
from knowledge.tables.programs import Grid, Program, fold, run
from knowledge.tables.question import mentions, read_question
from knowledge.tables.said import WHOLE, says_a_superlative

_TOTALLING = frozenset("total altogether combined overall".split())
# The words after "how much" that ask of money: a verb ("how much do we pay"), not a noun of
# another amount ("how much time", "how much space").
_ASKING = frozenset("do does did have has had is are was were will would we our in".split())
# How likely the sum is right when it is made: a question asking how much in total of a
# table with one column of money asks for little else.
MONEY_SCORE = 0.8


def how_much_asked(words: list[str]) -> int | None:
    """Return where "how much" asks of money ("how much do we pay", "how much does Banco Norte
    owe"), not of another amount ("how much time"), or None."""
    at = next((i for i, pair in enumerate(zip(words, words[1:])) if pair == ("how", "much")), None)
    if at is None or words[at + 2 : at + 3] and words[at + 2] not in _ASKING:
        return None
    return at


def money_total(question: str, grid: Grid) -> Candidate | None:
    """Return the sum of the table's one column of money (or of the one the question names) for
    "how much ... in total?" (or "so far", "to date"), or for
    "what has Volt charged us in total?" over the rows the question names by their cells (a
    Contractor's), or None."""
    words = fold(question).split()
    at = how_much_asked(words)
    named: tuple = ()
    if at is None and _TOTALLING & set(words) and _PAYING & set(words):
        said = mentions(read_question(question), grid)
        named = tuple(c for c in said if c.op == "eq" and not grid.columns[c.column].numeric)
        if len(named) != 1 or len(said) != 1 or _ASKS_OTHERWISE & set(words):
            return None  # one row's name, nothing else said of the rows or asked of them
        if OWED.search(" ".join(words)) or says_a_superlative(words) or _dated(words, grid):
            return None
    elif at is None or not (
        _TOTALLING.intersection(words) or "all" in words[at + 2 :] or WHOLE.search(" ".join(words))
    ):
        return None
    elif mentions(read_question(question), grid):
        return None  # rows named or kept by a condition: the parser's sum over them
    money = [i for i, column in enumerate(grid.columns) if is_money(column)]
    amounts = {i for i in named_amount_columns(words, grid) if grid.columns[i].type != DATE}
    if amounts - set(money):
        return None  # another amount named
    said = [i for i in money if f" {fold(grid.columns[i].name)} " in f" {' '.join(words)} "]
    if len(money) > 1 and len(said) == 1:
        money = said  # "how much have the insurers paid out so far?": Paid, not Claimed
    if len(money) != 1:
        return None
    if named and set(fold(grid.columns[money[0]].name).split()) & _PER:
        return None  # a price per unit or per month adds up to no total paid
    program = Program("sum", key=money[0], conditions=named)
    result = run(program, grid)
    return None if result is None else Candidate(program, result, {}, MONEY_SCORE)


# The words that ask for another operation than a total of what a named one was paid; the
# header words of a price per unit or per period; the words of a time said.
_ASKS_OTHERWISE = frozenset(
    "how many number count times average mean per each share percentage first last which when "
    "who most least highest lowest".split()
)
_PER = frozenset("unit per each monthly weekly daily annual yearly rate".split())
_TIMES_SAID = frozenset("year month quarter week today so far since".split())


def _dated(words: list[str], grid: Grid) -> bool:
    """Whether the question says a time ("this month", "so far") of a table with a column of
    dates: the rows of that time, which no rule here keeps. "This year" of a log whose dates
    are all of one year is every row."""
    said = _TIMES_SAID & set(words)
    dates = [c for c in grid.columns if c.type == DATE]
    if not said or not dates:
        return False
    years = {int(n) // 10000 for c in dates for n in c.numbers if n is not None}
    return said != {"year"} or len(years) > 1


# The words that ask what something costs, and the headers of an amount of money.
_PAYING = frozenset(
    "owe owes owed owing cost costs pay pays paid spend spent charge charges charged billed".split()
)
_MONEY_HEADERS = frozenset(
    "amount total price cost fee balance budget salary bonus value revenue rent due".split()
)


def names_the_amount_owed(question: str, choice: TableChoice) -> bool:
    """Whether "how much" with a word of paying ("how much does Banco Norte still owe us?")
    names the program's column: the table's one amount (not a time, not a yes or no), headed
    or written as money; and when a debt is said, the program keeps only the unpaid rows."""
    words = fold(question).split()
    columns = choice.grid.columns
    target = choice.best.program.target
    if how_much_asked(words) is None or not _PAYING & set(words):
        return False
    amounts = [
        index for index, column in enumerate(columns)
        if column.numeric and not is_a_time(column) and not says_yes_or_no(column)
    ]  # fmt: skip
    money = is_money(columns[target]) or set(fold(columns[target].name).split()) & _MONEY_HEADERS
    owed = OWED.search(fold(question)) is None or any(
        says_yes_or_no(columns[c.column]) for c in choice.best.program.conditions
    )
    return amounts == [target] and bool(money) and owed


# Headers of amounts that are no part of one cost beside the others: a total of them, what
# was planned or paid against it, a price or a rate, a count.
_NO_PART = frozenset(
    "total totals subtotal gross net vat balance paid deposit budget budgeted forecast actual "
    "planned plan price prices rate rates min max minimum maximum quote quoted agreed qty "
    "quantity units unit cumulative".split()
)
# A table's label that says its amounts are money: "Production costs, 2025-26 season (GBP)".
_MONEY_LABEL = re.compile(r"\b(?:gbp|eur|usd|chf|costs?|budgets?|spend|spending|expenses)\b|[£€$]")


def money_along_a_row(question: str, grid: Grid) -> Candidate | None:
    """Return the total along the row a question names of every column of money ("what did The
    Snow Queen cost us altogether?" over a table of each show's Set, Costumes, Lighting,
    Marketing and Fees), when it says a word of totalling and names no amount, and the table's
    three or more amounts, side by side, are all money (their currency, or a label of costs in
    GBP; a Rent beside a Deposit is no two parts of one cost); None otherwise."""
    words = fold(question).split()
    # ("cost" names no Costumes: a verb of paying names no amount here.)
    headers = {word for column in grid.columns for word in fold(column.name).split()}
    unpaid = [word for word in words if word not in _PAYING or word in headers]
    if not (_TOTALLING | {"together"}) & set(words) or named_amount_columns(unpaid, grid):
        return None
    amounts = [
        index for index, column in enumerate(grid.columns)
        if column.numeric and column.type != DATE and not is_a_time(column)
        and not getattr(column, "row_total", False)
    ]  # fmt: skip
    money = all(is_money(grid.columns[i]) for i in amounts) or (
        bool(_MONEY_LABEL.search(fold(grid.label)))
        and not any(grid.columns[i].unit for i in amounts)
    )
    if len(amounts) < 3 or not money or amounts != list(range(amounts[0], amounts[-1] + 1)):
        return None
    said = {word for i in amounts for word in fold(grid.columns[i].name).split()}
    said |= set(re.split(r"[\W_]+", fold(grid.label)))
    if said & _NO_PART or "to" in said:  # ("Spent to Jun": so far, not a part)
        return None  # a total, a budget beside what was spent, a price: no parts of one cost
    if len({grid.columns[i].unit for i in amounts}) > 1:
        return None
    conditions = one_row(question, grid)
    if conditions is None:
        return None
    program = Program("row_sum", target=amounts[-1], key=amounts[0], conditions=conditions)
    result = run(program, grid)
    return None if result is None else Candidate(program, result, {}, MONEY_SCORE)


# Headers of what has come in against an amount (and only that: no "VAT paid", "Interest
# paid"), of the amount, and of what is left of it (read as it is).
_RECEIVED = frozenset("paid received settled repaid".split())
_OF_RECEIVED = _RECEIVED | frozenset("amount sum total so far to date fee rent".split())
_OWED_AMOUNT = frozenset("value amount total price cost fee rent invoiced charge loan".split())
_LEFT = frozenset("balance outstanding owed owing remaining unpaid arrears due left".split())


def still_owed(question: str, grid: Grid) -> Candidate | None:
    """Return what the row a question names still owes ("how much does Riverside Housing Trust
    still owe us?" of contracts with a Value and a Paid: the Value less the Paid), when the
    table has one column of money paid, one other of the amount, and none of what is left (a
    Balance is read as it is); None otherwise."""
    words = fold(question).split()
    if not OWED.search(" ".join(words)) or how_much_asked(words) is None or "percentage" in words:
        return None
    money = [i for i, column in enumerate(grid.columns) if is_money(column)]
    headers = {i: set(fold(grid.columns[i].name).split()) for i in money}
    paid = [i for i in money if headers[i] & _RECEIVED and headers[i] <= _OF_RECEIVED]
    owed = [i for i in money if i not in paid and headers[i] & _OWED_AMOUNT]
    if len(paid) != 1 or len(owed) != 1 or any(words & _LEFT for words in headers.values()):
        return None
    conditions = one_row(question, grid)
    if conditions is None:
        return None
    program = Program("change", key=owed[0], target=paid[0], conditions=conditions)
    result = run(program, grid)
    return None if result is None else Candidate(program, result, {}, MONEY_SCORE)
