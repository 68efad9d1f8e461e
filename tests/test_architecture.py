"""The architecture holds: imports point one way (pyproject.toml's [tool.importlinter]
contracts), and no production function or module grows past the size the house style allows."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.support import ROOT

# The packages `pip install` ships (pyproject.toml's [tool.setuptools.packages.find]) and
# manage.py; migrations are generated, tests and bench/ are not production code.
PRODUCTION = ("adrag_site", "knowledge", "providers", "queries")
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 500


def test_import_contracts_are_kept():
    result = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def _production_modules() -> list[Path]:
    modules = [ROOT / "manage.py"]
    for package in PRODUCTION:
        modules += [
            path
            for path in sorted((ROOT / package).rglob("*.py"))
            if "migrations" not in path.relative_to(ROOT).parts
        ]
    return modules


def test_no_production_function_is_over_60_lines_nor_module_over_500():
    modules = _production_modules()
    assert len(modules) > 50  # the walk found the packages
    too_long: list[str] = []
    for path in modules:
        source = path.read_text()
        name = path.relative_to(ROOT)
        lines = len(source.splitlines())
        if lines > MAX_MODULE_LINES:
            too_long.append(f"{name}: {lines} lines")
        for node in ast.walk(ast.parse(source, filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                # A function's decorators are part of it.
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                length = node.end_lineno - first + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{name}:{first} {node.name}(): {length} lines")
    assert too_long == [], "\n".join(too_long)
