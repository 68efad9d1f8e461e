"""Count the hand-written rules of the answering code: regular expressions and word lists.

    .venv/bin/python bench/rule_inventory.py [PATH ...]   (default: providers queries/answering)

A regular expression is a `re.compile(...)` call, or a call of another `re` function (search,
match, fullmatch, sub, findall, finditer, split) whose pattern is written inline. A word list
is a literal set, frozenset, tuple, list or dict in the code holding at least MIN_WORDS string
constants (a `" ".join(...)` of string tuples counts by its strings), or a data file of words
(`*.txt` under a `wordlists/` folder, one entry per line, `#` lines are comments). It prints each
file's counts, the totals, and the files' lines.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIN_WORDS = 5
RE_FUNCTIONS = {
    "compile",
    "search",
    "match",
    "fullmatch",
    "sub",
    "subn",
    "findall",
    "finditer",
    "split",
}


def _strings(node: ast.AST) -> list[str]:
    """Return the string constants a literal holds, looking into nested tuples and joins."""
    found: list[str] = []
    for child in ast.walk(node):
        if isinstance(child, ast.Constant) and isinstance(child.value, str):
            found.append(child.value)
    return found


def _is_word_list(node: ast.AST) -> int:
    """Return how many words a literal collection holds (0 when it is not a word list)."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("frozenset", "set", "tuple"):
        if node.args:
            return _is_word_list(node.args[0])
        return 0
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        strings = [s for s in _strings(node) if s.strip()]
        words = sum(len(s.split()) if " " in s and len(s) > 40 else 1 for s in strings)
        return words if len(strings) >= MIN_WORDS else 0
    if isinstance(node, ast.Dict):
        keys = [k for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        return len(keys) if len(keys) >= MIN_WORDS else 0
    return 0


def inventory(path: Path) -> dict[str, int]:
    """Return the counts of one Python file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    regexes = lists = words = 0
    counted: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = getattr(node.func.value, "id", "")
            if owner == "re" and node.func.attr in RE_FUNCTIONS:
                if node.func.attr == "compile" or (
                    node.args and not isinstance(node.args[0], ast.Name | ast.Attribute)
                ):
                    regexes += 1
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            value = node.value
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(getattr(target, "id", "") == "__all__" for target in targets):
                continue
            if id(value) in counted:
                continue
            size = _is_word_list(value)
            if size:
                counted.add(id(value))
                lists += 1
                words += size
    return {"regexes": regexes, "word_lists": lists, "words": words}


def data_files(path: Path) -> dict[str, int]:
    """Return the counts of one word-list data file."""
    entries = [
        line for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]  # fmt: skip
    return {"regexes": 0, "word_lists": 1, "words": len(entries)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="*", default=["providers", "queries/answering"])
    args = parser.parse_args()
    totals = {"regexes": 0, "word_lists": 0, "words": 0, "lines": 0}
    for name in args.paths:
        base = ROOT / name
        if not base.exists():
            continue
        files = sorted(p for p in base.rglob("*.py") if "migrations" not in p.parts)
        files += sorted(p for p in base.rglob("*.txt") if "wordlists" in p.parts)
        for path in files:
            counts = data_files(path) if path.suffix == ".txt" else inventory(path)
            lines = len(path.read_text(encoding="utf-8").splitlines())
            for key, value in counts.items():
                totals[key] += value
            totals["lines"] += lines
            if any(counts.values()):
                print(
                    f"{path.relative_to(ROOT)!s:<60}{counts['regexes']:>4} re"
                    f"{counts['word_lists']:>4} lists{counts['words']:>6} words{lines:>6} lines"
                )
    print(
        f"total: {totals['regexes']} regular expressions, {totals['word_lists']} word lists "
        f"({totals['words']} words), {totals['lines']} lines in {', '.join(args.paths)}"
    )


if __name__ == "__main__":
    sys.exit(main())
