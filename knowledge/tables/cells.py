"""What a table cell holds: a number (with its currency or unit), a date, a length of time, or
text. Footnote marks ("12[3]", "40*") are not part of a value; "n/a", "-" and an empty cell hold
none. Dates are read with python-dateutil; a date with unknown parts keeps them unknown
("June 2024" is 2024-06-xx, as WikiTableQuestions writes dates).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from dateutil import parser as dateparser

NUMBER = "number"
DATE = "date"
DURATION = "duration"
TEXT = "text"

# Cells that hold no value.
MISSING = frozenset(
    {"", "-", "–", "—", "−", "n/a", "na", "n.a.", "?", "…", "...", "tba", "tbd", "tbc"}
)
# The cells that hold no value at all, of those: not a mark of one still to come ("tbc").
NO_VALUE = frozenset({"", "-", "–", "—", "−", "n/a", "na", "n.a."})
# An end not set yet: a column of end dates with a few of them is still a column of dates (the
# cell keeps its words: "which leases are rolling?").
OPEN_ENDS = frozenset({"ongoing", "rolling", "present", "open-ended", "indefinite"})
# Trailing footnote marks: "[3]", "[a]", "[note 2]", "*", "†", "‡", "§".
_MARKS = re.compile(r"(?:\s*(?:\[[^\]\n]{1,12}\]|[*†‡§¶^]+))+$")
_CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
# The currencies a cell may be read in (a column of money is in one of them).
CURRENCIES = frozenset(_CURRENCY_SYMBOLS.values())
_MULTIPLIERS = {"thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9}
# A number: an optional currency (symbol or code), the digits (thousands separated by commas or
# thin spaces), an optional multiplier and an optional unit or currency after it.
_NUMBER = re.compile(
    r"^(?P<before>[$€£¥₹]|[A-Z]{3}\s)?\s*"
    r"(?P<sign>[-+−]?)\s*(?P<digits>\d{1,3}(?:[,\u2009\u202f ]\d{3})+(?:\.\d+)?|\d*\.?\d+)"
    r"(?:\s*(?P<scale>thousand|million|billion|bn|mn)(?![a-z]))?"
    r"\s*(?P<after>%|[A-Za-z$€£¥₹][A-Za-z.²³/]{0,15})?$",
    re.IGNORECASE,
)
# Seconds in each unit of time (a month as 30 days, a year as 365: one scale to compare on).
_TIME_UNITS = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    "min": 60, "mins": 60, "minute": 60, "minutes": 60,
    "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
    "d": 86400, "day": 86400, "days": 86400,
    "week": 604800, "weeks": 604800, "wk": 604800, "wks": 604800,
    "month": 2592000, "months": 2592000, "year": 31536000, "years": 31536000,
}  # fmt: skip


def unit_seconds(unit: str) -> int | None:
    """Return the seconds in a unit of time ("days": 86400), None for any other word."""
    return _TIME_UNITS.get(unit.lower().rstrip("."))


# A race or clock time: "1:23:45", "1:23.45", "2:05".
_CLOCK = re.compile(r"^(?:(?P<h>\d{1,3}):)?(?P<m>\d{1,2}):(?P<s>\d{2}(?:\.\d+)?)$")
_ISO_DATE = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}$")
_MONTH = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?(?=\s|,|$|\d)",
    re.IGNORECASE,
)
# Two defaults that differ in every field: a field the text does not give takes the default,
# so a field that differs between the two parses was not given.
_DEFAULTS = (datetime(1904, 1, 1), datetime(1908, 2, 2))


@dataclass(frozen=True)
class Cell:
    """A cell read: its text without footnote marks, its type and its normalised value.

    `value` is a float for a number or a length of time (in seconds), "YYYY-MM-DD" for a date
    (unknown parts "xx"), the text for text, None for a cell with no value."""

    text: str
    type: str
    value: float | str | None
    unit: str = ""
    marked: bool = False


def clean(text: str) -> tuple[str, bool]:
    """Return a cell's text without footnote marks or extra space, and whether it had marks."""
    text = " ".join(str(text or "").split())
    stripped = _MARKS.sub("", text).strip()
    if not stripped:  # a cell that is only "*" or "[1]" keeps it
        return text, False
    return stripped, stripped != text


def read_cell(raw: str) -> Cell:
    """Return what a cell holds."""
    text, marked = clean(raw)
    if text.lower() in MISSING:
        return Cell(text, TEXT, None, marked=marked)
    number = _number(text)
    if number is not None:
        value, unit = number
        seconds = _TIME_UNITS.get(unit.lower().rstrip("."))
        if seconds:
            return Cell(text, DURATION, value * seconds, unit, marked)
        return Cell(text, NUMBER, value, unit, marked)
    clock = _CLOCK.match(text)
    if clock:
        hours = float(clock.group("h") or 0)
        seconds = hours * 3600 + float(clock.group("m")) * 60 + float(clock.group("s"))
        return Cell(text, DURATION, seconds, "", marked)
    date = read_date(text)
    if date:
        return Cell(text, DATE, date, "", marked)
    return Cell(text, TEXT, text, "", marked)


def _number(text: str) -> tuple[float, str] | None:
    match = _NUMBER.match(text)
    if not match:
        return None
    digits = re.sub(r"[,\u2009\u202f ]", "", match.group("digits"))
    try:
        value = float(digits)
    except ValueError:
        return None
    if match.group("sign") in ("-", "−"):
        value = -value
    scale = (match.group("scale") or "").lower()
    after = match.group("after") or ""
    if scale:
        value *= _MULTIPLIERS[scale]
    before = (match.group("before") or "").strip()
    unit = _CURRENCY_SYMBOLS.get(before, before) or _CURRENCY_SYMBOLS.get(after, after)
    return value, unit


def read_date(text: str) -> str | None:
    """Return a date as "YYYY-MM-DD" with unknown parts "xx", or None when the text is not one
    (a bare year is a number; a date needs a month name or the ISO form)."""
    if _ISO_DATE.match(text):
        year, month, day = text.split("-")
        return f"{year}-{int(month):02d}-{int(day):02d}"
    if not _MONTH.search(text) or len(text) > 40:
        return None
    try:
        parsed = [dateparser.parse(text, default=default, fuzzy=False) for default in _DEFAULTS]
    except (ValueError, OverflowError, TypeError):
        return None
    first, second = parsed
    year = f"{first.year:04d}" if first.year == second.year else "xx"
    month = f"{first.month:02d}" if first.month == second.month else "xx"
    day = f"{first.day:02d}" if first.day == second.day else "xx"
    if month == "xx":
        return None
    return f"{year}-{month}-{day}"


def column_type(cells: list[Cell], share: float = 0.8) -> str:
    """Return the type most of a column's cells with a value hold (`share` of them), else text;
    a column of dates whatever its open ends ("rolling"). A column of years is a number column:
    years compare and sort as numbers."""
    typed = [cell.type for cell in cells if cell.value is not None]
    if not typed:
        return TEXT
    for kind in (NUMBER, DATE, DURATION):
        if sum(t == kind for t in typed) >= share * len(typed):
            return kind
    dated = [c.type for c in cells if c.value is not None and c.text.lower() not in OPEN_ENDS]
    if dated and sum(t == DATE for t in dated) >= share * len(dated):
        return DATE
    return TEXT


def column_unit(cells: list[Cell]) -> str:
    """Return the unit or currency most of a column's cells share ("" when none does)."""
    units = [cell.unit for cell in cells if cell.value is not None and cell.unit]
    if not units:
        return ""
    best = max(set(units), key=units.count)
    return best if units.count(best) * 2 >= len(units) else ""


_LEADING_NUMBER = re.compile(r"^\s*[$€£¥₹#~≈]?\s*([-−–]?\d[\d,]*(?:\.\d+)?)")


def leading_number(text: str) -> float | None:
    """Return the number a cell's text starts with ("12 (3)" 12, "1st" 1, "$1,200" 1200)."""
    match = _LEADING_NUMBER.match(text or "")
    if not match:
        return None
    digits = match.group(1).replace(",", "").replace("−", "-").replace("–", "-")
    try:
        return float(digits)
    except ValueError:
        return None


def date_number(value: str) -> float | None:
    """Return an ISO date with "xx" parts as a number that sorts as the date does."""
    parts = value.split("-")
    if len(parts) != 3 or not parts[0].lstrip("-").isdigit():
        return None
    month = int(parts[1]) if parts[1].isdigit() else 0
    day = int(parts[2]) if parts[2].isdigit() else 0
    return int(parts[0]) * 10000 + month * 100 + day


# The cells of a column that only says whether a row is something ("Vegetarian: Yes").
YES = frozenset("yes y true".split())
NO = frozenset("no n false".split())


_CURRENCY_HEADER = re.compile(r"\((?:[$€£¥₹]|usd|eur|gbp|jpy|inr)\)", re.IGNORECASE)


def is_money(column) -> bool:
    """Whether a column holds amounts of money: its cells' currency, or one in its header."""
    return column.numeric and (
        column.unit in CURRENCIES or bool(_CURRENCY_HEADER.search(column.name))
    )


def says_yes_or_no(column) -> bool:
    """Whether a column holds only yes and no (a flag such as Vegetarian or Approved), each at
    least once; a cell of no value ("n/a", "-") says neither (one still pending, "TBC", is a
    third answer)."""
    said = {
        value for value, text in zip(column.folded, column.texts, strict=True)
        if value and text.strip().lower() not in NO_VALUE
    }  # fmt: skip
    return bool(said & YES) and bool(said & NO) and not said - YES - NO


def holds_a_value(text: str) -> bool:
    """Whether a cell says something: not empty, and not a mark of no value ("n/a", "-",
    "tbd"), which a lookup reads as nothing rather than as its answer."""
    return bool(text) and text.strip().lower() not in MISSING


# A cell that says its row has none of its column's thing ("which sites have batteries?").
_NONE = MISSING | {"none", "no", "nil"}
_NOT_APPLICABLE = frozenset({"n/a", "na", "n.a."})


def lacks(column, row: int, flag: bool) -> bool | None:
    """Whether a row's cell says it has none of its column's thing (no value, "none", "no", a
    0), or None when it says neither: a flag's "n/a" (in a Lighting rig column of Yes and No)
    is no No, and its row is not one that lacks the thing (an empty cell or a dash there often
    says No)."""
    text = column.texts[row].strip().lower()
    if flag and text in _NOT_APPLICABLE:
        return None
    return text in _NONE or column.numeric and column.numbers[row] == 0


# The header words of a column of identifiers ("Member no.", "Order ID", "Ref").
_IDENTIFIER = frozenset("no nos id ids number numbers code codes ref refs".split())


def named_beside(grid, index: int, words: list[str]) -> int:
    """Return the column of names beside a column of identifiers ("Name" beside "Member no.":
    "which members …" asks for their names), or the column itself: when the question's words
    say an identifier ("what is the member no. of Priya?"), or no column names the same rows
    (a Supplier name beside Product no. names suppliers)."""
    header = set(fold_header(grid.columns[index].name))
    if not header & _IDENTIFIER or _IDENTIFIER & set(words):
        return index
    names = [
        i for i, c in enumerate(grid.columns)
        if (fold_header(c.name) in (["name"], ["full", "name"])
            or fold_header(c.name)[-1:] == ["name"] and set(fold_header(c.name)[:-1]) <= header)
        and len(set(c.folded)) == grid.size
    ]  # fmt: skip
    return names[0] if len(names) == 1 else index


def fold_header(name: str) -> list[str]:
    """Return a header's words, lower case, without punctuation ("Member no." : member, no)."""
    return re.sub(r"[^\w\s]", " ", name.lower()).split()


# The months by their stems, in order ("jan" to "dec").
MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()


def month_of(column, row: int) -> str:
    """Return the month a column's cell names ("jan" of "January 2026" or of a date), or ""."""
    number = column.numbers[row] if column.type == DATE else None
    if number is not None:
        month = int(number) // 100 % 100
        return MONTHS[month - 1] if 1 <= month <= 12 else ""
    words = column.folded[row].split()  # "January" alone reads as a date of no year
    return words[0][:3] if words and words[0][:3] in MONTHS else ""


def names_its_rows(column) -> bool:
    """Whether a column's cells name its rows: every filled cell differs from the others."""
    filled = [value for value in column.folded if value]
    return len(filled) > 1 and len(set(filled)) == len(filled)
