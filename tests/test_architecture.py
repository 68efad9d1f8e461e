"""The import contracts of pyproject.toml ([tool.importlinter]) hold: imports point one way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support import ROOT


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
