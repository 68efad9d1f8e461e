"""When a predicted answer denotes a target answer: WikiTableQuestions' scoring rule, written
from its description in the dataset's SOURCE.md (bench/tables.py scores with it; the table
parser's training uses it to find the programs whose result is the answer).

A prediction is a set of values; it is right when it has as many items as the target and every
target item matches one predicted item. Two items match when their normalised strings are equal,
when both are numbers and equal, or when both are dates with every field equal (an unknown
field, `xx`, must be unknown in both).

`strict` scores a run's `answer_values` (what the answer asserts, as data); `lenient` asks only
that every target item is said in the answer's first sentence.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Smart quotes and dashes made ASCII.
_ASCII = str.maketrans({"‘": "'", "’": "'", "´": "'", "`": "'", "“": '"', "”": '"',
                        "–": "-", "—": "-", "‐": "-", "‑": "-", "−": "-"})  # fmt: skip
# Trailing citation marks: "[1]", "*", "†", "‡".
_TRAILING_MARKS = re.compile(r"(?:\s*(?:\[[^\]]*\]|[*†‡]))+\s*$")
_TRAILING_PARENTHESIS = re.compile(r"\s*\([^)]*\)\s*$")
_NUMBER = re.compile(r"^[-+]?(?:\d+(?:,\d{3})*|\d*)(?:\.\d+)?$")
_DATE = re.compile(r"^(\d{4}|xx|-?\d+)-(\d{2}|xx)-(\d{2}|xx)$")


def normalise(text: str) -> str:
    """Return a string as the rule compares it."""
    text = "".join(
        char
        for char in unicodedata.normalize("NFKD", str(text))
        if unicodedata.category(char) != "Mn"
    )
    text = text.translate(_ASCII)
    while True:
        before = text
        text = _TRAILING_MARKS.sub("", text)
        text = _TRAILING_PARENTHESIS.sub("", text) or text  # "(2)" alone stays
        text = text.strip()
        if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1].strip()
        text = text.removesuffix(".").strip()
        if text == before:
            break
    return " ".join(text.lower().split())


def as_number(text: str) -> float | None:
    """Return the number a string is, or None ("1,000" is 1000; "12 km" is not a number)."""
    text = str(text).strip()
    if not text or not _NUMBER.match(text) or text in "+-.":
        return None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


@dataclass(frozen=True)
class Item:
    """One value of a target or a prediction."""

    text: str
    number: float | None = None
    date: tuple[str, str, str] | None = None

    def matches(self, other: Item) -> bool:
        if normalise(self.text) == normalise(other.text):
            return True
        if self.number is not None and other.number is not None:
            return abs(self.number - other.number) < 1e-6
        if self.date is not None and other.date is not None:
            return self.date == other.date
        return False


def item(value) -> Item:
    """Return a value (a string, a number, an ISO date) as an item."""
    if isinstance(value, bool):
        value = str(value).lower()
    if isinstance(value, int | float):
        return Item(f"{value:g}", number=float(value))
    text = str(value)
    date = _DATE.match(text.strip())
    if date:
        year, month, day = date.groups()
        if month == "xx" and day == "xx" and year != "xx":
            return Item(text, number=float(year), date=(year, month, day))
        return Item(text, date=(year, month, day))
    return Item(text, number=as_number(text))


def target_items(raw: str, canon: str = "", canon_type: str = "") -> list[Item]:
    """Return a question's target: its items (`|`-separated), typed by the canonical values."""
    texts = raw.split("|")
    canons = canon.split("|") if canon else [""] * len(texts)
    if len(canons) != len(texts):
        canons = [""] * len(texts)
    items = []
    for text, value in zip(texts, canons):
        typed = item(value) if value else item(text)
        items.append(Item(text, number=typed.number, date=typed.date))
    return items


def right(predicted: list, target: list[Item]) -> bool:
    """Return whether a prediction (values) denotes the target."""
    items = [item(value) for value in predicted]
    if len(items) != len(target):
        return False
    return all(any(goal.matches(guess) for guess in items) for goal in target)


_NUMBERS_IN_TEXT = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")


def said(sentence: str, target: list[Item]) -> bool:
    """Return whether a sentence says every target item (its text, or its number)."""
    text = normalise(sentence)
    numbers = {as_number(match) for match in _NUMBERS_IN_TEXT.findall(sentence)} - {None}
    for goal in target:
        if normalise(goal.text) in text:
            continue
        if goal.number is not None and any(abs(goal.number - n) < 1e-6 for n in numbers):
            continue
        return False
    return True
