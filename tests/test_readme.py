"""What the README says of the configuration is what settings.py does."""

from __future__ import annotations

import re

from tests.support import ROOT

README = (ROOT / "README.md").read_text()
SETTINGS = (ROOT / "adrag_site" / "settings.py").read_text()


def default_in_settings(name: str) -> str:
    match = re.search(rf'^{name} = env_\w+\("{name}", "?([^"\)]*)"?\)', SETTINGS, re.M)
    assert match, f"{name} has no env default in settings.py"
    return match.group(1)


def default_in_readme(name: str) -> str:
    match = re.search(rf"^\| `{name}` \| `([^`]*)` \|", README, re.M)
    assert match, f"the README's configuration table has no row for {name}"
    return match.group(1)


def test_the_readme_names_the_local_model_settings_py_defaults_to():
    from providers.model_files import CATALOGUE

    default = default_in_settings("LOCAL_MODEL")
    assert default in CATALOGUE
    assert default_in_readme("LOCAL_MODEL") == default
    # `fetch_model` without a name fetches LOCAL_MODEL: the README's line says which model.
    line = next(line for line in README.splitlines() if line.rstrip().endswith("sha256-checked"))
    assert "manage.py fetch_model  " in line
    assert CATALOGUE[default].description.split(",")[0] in line


def test_the_readme_s_defaults_of_the_local_model_path_are_those_of_settings_py():
    for name in ("LOCAL_WARM_UP", "OPENAI_CACHE_PROMPT"):
        assert default_in_readme(name) == default_in_settings(name)


def _settings_defaults() -> dict[str, object]:
    """Each `NAME = env_x("NAME", <default>)` of settings.py, its default evaluated."""
    defaults = {}
    for match in re.finditer(r'^(\w+) = env_(\w+)\("\1", (.+?)\)\s*(?:#.*)?$', SETTINGS, re.M):
        name, kind, expression = match.groups()
        try:
            value = eval(expression, {"__builtins__": {}})  # literals and arithmetic only
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
    return written == value or (written == "empty" and value == "")


def test_every_default_in_the_readme_s_configuration_table_is_settings_py_s():
    defaults = _settings_defaults()
    compared, wrong = 0, []
    for line in README.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        names = re.findall(r"`(\w+)`", cells[0])
        values = [value.strip() for value in cells[1].split(", ")]
        if len(names) != len(values):
            continue
        for name, written in zip(names, values, strict=True):
            if name not in defaults or not re.fullmatch(r"`[^`]*`|empty|true|false", written):
                continue
            compared += 1
            kind, value = defaults[name]
            if not _same(kind, value, written):
                wrong.append(f"{name}: README {written}, settings.py {value!r}")
    assert not wrong, wrong
    assert compared >= 60, compared
