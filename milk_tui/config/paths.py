"""Where config and data live (docs/interfaces.md, "Paths")."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "milk-tui"


def config_dir() -> Path:
    home = os.environ.get("MILK_HOME")
    if home:
        return Path(home)
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME))


def data_dir() -> Path:
    home = os.environ.get("MILK_HOME")
    if home:
        return Path(home)
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def ensure_dir(p: Path) -> Path:
    p.mkdir(parents=True, exist_ok=True, mode=0o700)
    return p


def default_config_file() -> Path | None:
    """The first existing config file: ``MILK_CONFIG``, then config.toml, then config.json."""
    explicit = os.environ.get("MILK_CONFIG")
    if explicit:
        return Path(explicit)
    d = config_dir()
    for name in ("config.toml", "config.json"):
        if (d / name).exists():
            return d / name
    return None


def database_file() -> Path:
    return ensure_dir(data_dir()) / "milk.db"


def permissions_dir() -> Path:
    """Where the per-folder tool grants live (``storage.permission_grants``)."""
    return data_dir() / "permissions"
