"""What the README and docs/configuration.md say of the configuration is what the settings
modules do.

docs/configuration.md holds the full table (every variable the settings modules read); the
README keeps the common settings in the same format, opens with the two commands and stays short.
"""

from __future__ import annotations

import re

from tests.support import ROOT

README = (ROOT / "README.md").read_text()
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text()
# The settings package's modules (adrag_site/settings/), one text.
SETTINGS = "\n".join(
    path.read_text() for path in sorted((ROOT / "adrag_site" / "settings").glob("*.py"))
)
README_MAX_LINES = 600


def default_in_settings(name: str) -> str:
    match = re.search(rf'^{name} = env_\w+\("{name}", "?([^"\)]*)"?\)', SETTINGS, re.M)
    assert match, f"{name} has no env default in settings.py"
    return match.group(1)


def default_in(document: str, name: str) -> str | None:
    """The default a document's configuration table gives a one-variable row, or None."""
    match = re.search(rf"^\| `{name}` \| `([^`]*)` \|", document, re.M)
    return match.group(1) if match else None


def test_the_docs_name_the_local_model_settings_py_defaults_to():
    from providers.model_files import CATALOGUE

    default = default_in_settings("LOCAL_MODEL")
    assert default in CATALOGUE
    assert default_in(CONFIGURATION, "LOCAL_MODEL") == default
    assert default_in(README, "LOCAL_MODEL") in (None, default)
    # `fetch_model` without a name fetches LOCAL_MODEL: the README's line says which model.
    line = next(line for line in README.splitlines() if line.rstrip().endswith("sha256-checked"))
    assert "manage.py fetch_model  " in line
    assert CATALOGUE[default].description.split(",")[0] in line


def test_the_docs_defaults_of_the_local_model_path_are_those_of_settings_py():
    for name in ("LOCAL_WARM_UP", "OPENAI_CACHE_PROMPT"):
        assert default_in(CONFIGURATION, name) == default_in_settings(name)
        assert default_in(README, name) in (None, default_in_settings(name))


def _settings_defaults() -> dict[str, tuple[str, object]]:
    """Each `env_x("NAME", <default>)` of settings.py, its default evaluated (the first one)."""
    defaults = {}
    for match in re.finditer(r'env_(\w+)\("(\w+)"(?:, ([^()]*?))?\)', SETTINGS):
        kind, name, expression = match.groups()
        if name in defaults:
            continue
        try:
            value = eval(expression or '""', {"__builtins__": {}})  # literals and arithmetic only
        except Exception:  # noqa: BLE001 - a default computed from other settings
            continue
        defaults[name] = (kind, value)
    return defaults


def _same(kind: str, value: object, written: str) -> bool:
    written = written.strip().strip("`").strip()
    if kind == "bool":
        return written.lower() in (("true", "1") if value else ("false", "0"))
    if kind in ("int", "float"):
        try:
            return float(written) == float(value)
        except ValueError:
            return False
    if kind == "list":
        return (written == "empty" and not value) or written == ",".join(value)
    if kind == "map":
        return written == ",".join(f"{key}={item}" for key, item in value.items())
    return written == value or (written == "empty" and value == "")


def _rows(document: str) -> list[tuple[list[str], list[str]]]:
    """The configuration rows of a document: (variable names, their defaults as written)."""
    rows = []
    for line in document.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        rows.append((re.findall(r"`(\w+)`", cells[0]), [v.strip() for v in cells[1].split(", ")]))
    return rows


def _compare(document: str) -> tuple[int, list[str]]:
    defaults = _settings_defaults()
    compared, wrong = 0, []
    for names, values in _rows(document):
        if len(names) != len(values):
            continue
        for name, written in zip(names, values, strict=True):
            if name not in defaults or not re.fullmatch(r"`[^`]*`|empty|true|false", written):
                continue
            compared += 1
            kind, value = defaults[name]
            if not _same(kind, value, written):
                wrong.append(f"{name}: written {written}, settings.py {value!r}")
    return compared, wrong


def test_every_default_in_the_full_configuration_table_is_settings_py_s():
    compared, wrong = _compare(CONFIGURATION)
    assert not wrong, wrong
    assert compared >= 60, compared


def test_every_variable_settings_py_reads_has_a_row_in_the_full_table():
    read = set(re.findall(r'env_\w+\("(\w+)"', SETTINGS))
    listed = {name for names, _ in _rows(CONFIGURATION) for name in names}
    assert not read - listed, sorted(read - listed)


def test_the_readme_s_common_settings_are_settings_py_s_and_the_full_table_s():
    compared, wrong = _compare(README)
    assert not wrong, wrong
    assert compared >= 8, compared
    full = {tuple(names): values for names, values in _rows(CONFIGURATION)}
    for names, values in _rows(README):
        if names and names[0].isupper():  # a configuration row, not some other table's
            assert full.get(tuple(names)) == values, f"{names}: README {values}"


def test_the_readme_is_short_and_opens_with_the_two_commands():
    lines = README.splitlines()
    assert len(lines) <= README_MAX_LINES, len(lines)
    sections = [line for line in lines if line.startswith("## ")]
    assert sections[0] == "## The two commands", sections[:1]
    start = lines.index("## The two commands")
    block = lines[lines.index("```sh", start) + 1 :]
    block = block[: block.index("```")]
    assert [line.split()[:2] for line in block] == [["make", "run"], ["make", "test"]]
    assert lines.index("```sh", start) < 20


def test_every_tunable_of_a_run_is_in_the_configuration_table_and_its_re_run_range_in_the_api():
    """PipelineConfig's TUNABLES are the one list of a run's tunables: each has a row in the
    full table, and each a re-run may change is documented with its range."""
    from queries.pipeline.config import RERUN_RANGES, TUNABLES

    named = set(
        re.findall(r"`(\w+)`", " ".join(re.findall(r"^\| ([^|]*) \|", CONFIGURATION, re.M)))
    )
    missing = [t.setting for t in TUNABLES.values() if t.setting not in named]
    assert not missing, missing
    api = (ROOT / "docs" / "api.md").read_text()
    for name, (lowest, highest) in RERUN_RANGES.items():
        assert f"{name} ({lowest}-{highest})" in api, name
