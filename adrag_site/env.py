"""Typed helpers that read configuration from the environment."""

from __future__ import annotations

import os


def env_str(name: str, default: str = "") -> str:
    """Return the variable as a string, or the default when unset or empty."""
    value = os.environ.get(name, "").strip()
    return value or default


def env_int(name: str, default: int) -> int:
    """Return the variable as an int, or the default when unset."""
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


def env_float(name: str, default: float) -> float:
    """Return the variable as a float, or the default when unset."""
    value = os.environ.get(name, "").strip()
    return float(value) if value else default


def env_bool(name: str, default: bool = False) -> bool:
    """Return the variable as a boolean (1/true/yes/on), or the default when unset."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    return value in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    """Return a comma-separated variable as a list of non-empty strings."""
    value = os.environ.get(name, "").strip()
    if not value:
        return list(default or [])
    return [item.strip() for item in value.split(",") if item.strip()]


def env_map(name: str, default: dict[str, str] | None = None) -> dict[str, str]:
    """Return a "key=value,key=value" variable over the defaults, keys lowercased."""
    mapping = dict(default or {})
    for item in env_list(name):
        key, _, value = item.partition("=")
        if key.strip() and value.strip():
            mapping[key.strip().lower()] = value.strip().lower()
    return mapping
