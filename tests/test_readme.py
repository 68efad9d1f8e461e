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
