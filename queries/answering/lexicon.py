"""Word lists as data: each a file in `wordlists/` that says where it came from.

A list file (`wordlists/<name>.txt`) holds one entry per line (a word, or a word and its value
after a space); lines that start with `#` are comments, and the first says where the list came
from.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

WORDS_DIR = Path(__file__).resolve().parent / "wordlists"


def _lines(name: str) -> list[str]:
    text = (WORDS_DIR / f"{name}.txt").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


@cache
def words(name: str) -> frozenset[str]:
    """Return the entries of a list file, lowercased."""
    return frozenset(line.lower() for line in _lines(name))


@cache
def mapping(name: str) -> dict[str, str]:
    """Return the `word value` pairs of a list file."""
    pairs = {}
    for line in _lines(name):
        word, _, value = line.rpartition(" ")
        pairs[word.lower()] = value
    return pairs


@cache
def groups(name: str) -> tuple[tuple[str, ...], ...]:
    """Return the groups of a list file that holds one group per line, comma-separated."""
    return tuple(
        tuple(word.strip().lower() for word in line.split(",") if word.strip())
        for line in _lines(name)
    )


def sources() -> dict[str, str]:
    """Return each list file's first comment line: where the list came from."""
    found = {}
    for path in sorted(WORDS_DIR.glob("*.txt")):
        first = next((line for line in path.read_text(encoding="utf-8").splitlines()), "")
        found[path.stem] = first.lstrip("# ").strip()
    return found
